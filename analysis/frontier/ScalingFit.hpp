#pragma once
/// Regressions of time on GPU count for one scaling series.
///
/// Power law (log-log least squares):  log T = log a + b log N, so T = a N^b. Perfect strong scaling
/// is b = -1; b = 0 means no gain.
///
/// Universal Scalability Law (N. Gunther, "Guerrilla Capacity Planning", 2007, eq. 4.31): the
/// speedup over one GPU is S(N) = N / (1 + σ(N-1) + κN(N-1)), with σ the contention (serial)
/// fraction and κ the coherency (crosstalk) cost. With T(N) = T1 / S(N):
///     N T(N) = T1 + T1 σ (N-1) + T1 κ N(N-1),
/// which is linear in (T1, T1σ, T1κ); least squares on it gives T1, σ = β1/β0, κ = β2/β0.
/// Amdahl's law is the κ = 0 case: N T(N) = T1 (1 + σ(N-1)), σ the serial fraction.
/// Confidence intervals of the ratios use the delta method on the coefficients' covariance. The
/// simulator is deterministic, so intervals measure how far the series departs from the law, not
/// noise.

#include <optional>
#include <vector>

namespace gpuscale::analysis {

/// An estimate with its two-sided 95% confidence interval half-width (0 when there are no degrees of
/// freedom left).
struct Estimate {
  double value = 0;
  double half_width_95 = 0;
};

struct PowerLawFit {
  Estimate exponent;    ///< b
  Estimate coefficient; ///< a, in seconds (interval from the intercept's, transformed)
  double r_squared = 0;
  int points = 0;
};

struct UslFit {
  Estimate single_gpu_time_s; ///< T1
  Estimate contention;        ///< σ
  Estimate coherency;         ///< κ (exactly 0 for an Amdahl fit)
  double r_squared = 0;       ///< of N·T(N)
  int points = 0;
  bool amdahl = false;        ///< κ fixed at 0

  /// Predicted time at `gpus`.
  double time_s(double gpus) const;
};

/// Needs at least 2 points with distinct N (3 for an interval).
std::optional<PowerLawFit> fit_power_law(const std::vector<double>& gpus, const std::vector<double>& time_s);
/// Amdahl: needs at least 2 distinct N.
std::optional<UslFit> fit_amdahl(const std::vector<double>& gpus, const std::vector<double>& time_s);
/// USL: needs at least 3 distinct N.
std::optional<UslFit> fit_usl(const std::vector<double>& gpus, const std::vector<double>& time_s);

} // namespace gpuscale::analysis
