#pragma once
/// Software gets faster between MLPerf rounds: the same hardware trains faster with later framework,
/// library and kernel releases (docs/CALIBRATION.md, "Software trend"). The calibration models it as
/// an achievable kernel efficiency that rises with the software date d and never exceeds 1:
///
///   e(d) = min(1, e_ref x rho_b^(d_ref - d))        (d, d_ref in years)
///
/// e_ref the calibrated compute or memory efficiency at the calibration's reference date d_ref (the
/// latest software date of its results), rho_b in (0, 1] the fitted maturity fraction per year of
/// benchmark b's software stack: the efficiency a year earlier as a fraction of today's. rho = 1 is
/// no trend. Per benchmark, not per accelerator generation: the data show the gains in the software
/// of a benchmark (Llama 2 LoRA and Stable Diffusion +9-13 % from v4.0 to v4.1 on the same Hopper
/// systems, BERT and RetinaNet none); a per-generation trend forced BERT's and RetinaNet's
/// repeats to move with Llama's and worsened every validation (docs/CALIBRATION.md). Communication
/// (link fractions measured by nccl-tests), the step and run overheads and the host pipeline are not
/// moved.
///
/// A benchmark with fewer than kOwnTrendMinResults dated repeats (results whose benchmark,
/// accelerator family and accelerator count were also run at a software date at least
/// kTrendRepeatSpanYears away) takes the pooled trend (kPooledSoftwareTrend), measured on the dated
/// repeats of every benchmark together; so does a benchmark the calibration has no trend of.
/// Trends are measured within the dated repeats only (analysis/calibration/CalibrationFit.hpp).

#include <string>

namespace gpuscale::model {

/// The factor the kernel efficiencies are multiplied by `years_after_reference` (d - d_ref) after the
/// reference date: rho^(-years), exactly 1 at the reference date; >= 1 later, <= 1 earlier.
double software_trend_factor(double rho_per_year, double years_after_reference);

/// The trend benchmarks without their own share (Calibration::software_trend key).
inline constexpr const char* kPooledSoftwareTrend = "pooled";

/// A benchmark fits its own trend with at least this many dated repeats (rule above).
inline constexpr int kOwnTrendMinResults = 10;
/// Two results of the same benchmark, family and accelerator count at least this far apart (years)
/// make a dated repeat.
inline constexpr double kTrendRepeatSpanYears = 0.25;

/// How far past the reference date the trend is extrapolated (years); later dates are refused. The
/// data span 1.5 years of software (2023-04 to 2024-10), so two years ahead is already more than the
/// span the trend was measured over.
inline constexpr double kSoftwareTrendHorizonYears = 2.0;

} // namespace gpuscale::model
