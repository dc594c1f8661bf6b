#pragma once
/// Isotonic (monotone) median regression: the non-decreasing step closest to the data in absolute
/// deviation, whose every value is one of the data's own.

#include <vector>

namespace gpuscale::analysis {

/// `groups[i]`: the observations at the i-th abscissa, in the order the monotonicity refers to.
/// Returns one value per group, non-decreasing, minimising the sum over every observation of
/// |value of its group - observation| (least absolute deviations under the order constraint), by
/// pool-adjacent-violators with block medians (Robertson, Wright and Dykstra, "Order Restricted
/// Statistical Inference", 1988, sec. 1.4): each run of groups whose medians would decrease is pooled
/// and given the median of all its observations. Medians are the lower middle observation, so every
/// value returned is an observation. Throws std::invalid_argument on an empty group or a value that
/// is not finite.
std::vector<double> fit_isotonic_median(const std::vector<std::vector<double>>& groups);

} // namespace gpuscale::analysis
