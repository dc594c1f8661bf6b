#pragma once
/// TOPSIS, the Technique for Order of Preference by Similarity to Ideal Solution (C.-L. Hwang and
/// K. Yoon, "Multiple Attribute Decision Making", Springer 1981):
///   r_ij = x_ij / sqrt(Σ_i x_ij²)            vector normalisation of each criterion j
///   v_ij = w_j r_ij                           weights summing to 1
///   A+ = best v per criterion, A- = worst     (max for benefit criteria, min for cost criteria)
///   D±_i = ||v_i - A±||,  C_i = D-_i / (D+_i + D-_i)  in [0, 1]; rank by decreasing C.

#include <string>
#include <vector>

namespace gpuscale::analysis {

struct Criterion {
  std::string name;
  double weight = 0;
  bool benefit = false; ///< larger is better (efficiency); otherwise smaller is better (time, cost)
};

/// Closeness C_i of every alternative (rows of `matrix`, one column per criterion). Weights are
/// normalised to sum to 1. Throws std::invalid_argument on shape errors, negative weights or a
/// criterion whose column is all zero.
std::vector<double> topsis_closeness(const std::vector<std::vector<double>>& matrix,
                                     const std::vector<Criterion>& criteria);

} // namespace gpuscale::analysis
