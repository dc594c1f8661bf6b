#pragma once
/// Software matures: the same accelerators train the same benchmark faster as frameworks, libraries,
/// kernels and the submitters' own code for that pair improve, quickly at first and then less and
/// less (docs/CALIBRATION.md, "Software maturity"). The calibration models the fraction of its
/// mature kernel efficiency a (benchmark, accelerator generation) pair reaches at software date d as
///
///   m(a) = 1 - (1 - m0_b) k^a,     a = max(0, d - max(d_generation, d_benchmark))   (years)
///
/// d_generation the date the generation's first part became available (the catalog's
/// `available_since`, earliest of the generation), d_benchmark the MLPerf Training round that
/// introduced the benchmark: software for the pair starts when both exist. m0_b in (0, 1]
/// (maturity.at_launch.<benchmark>) is the fraction reached at age 0, k in (0, 1]
/// (maturity.gap_kept_per_year) the fraction of the remaining gap still there a year later. Both
/// compute and memory efficiencies are the mature ones times m(a), so neither ever exceeds its
/// datasheet figure, and an old pair (H100 on ResNet-50) sits at m close to 1 whatever the date: the
/// data show the same Hopper systems flat from v4.1 to v5.0 while B200, months old, gained 7-32 %.
/// Communication (link fractions measured by nccl-tests), the step and run overheads and the host
/// pipeline are not moved.

#include "sim/model/Benchmark.hpp"
#include "sim/model/SoftwareDate.hpp"

namespace gpuscale::model {

/// m(a) above: 1 - (1 - at_launch) gap_kept_per_year^age; age < 0 counts as 0.
double software_maturity(double at_launch, double gap_kept_per_year, double age_years);

/// a above: years from the later of the generation's and the benchmark's start to `date`, at least 0.
/// A generation without a date (0) counts from the benchmark's start alone.
double software_age_years(double date_year, double generation_year, Benchmark benchmark);

/// The software date MLPerf Training introduced `benchmark` at (the round's date, SoftwareDate.hpp):
/// resnet v0.5 (2018-12), bert v0.7 (2020-07), retinanet v2.0 (2022-05), stable_diffusion v3.1
/// (2023-10), llama2_70b_lora v4.0 (2024-05).
SoftwareDate benchmark_introduced(Benchmark benchmark);

/// The calibration's key of the per-benchmark fraction at age 0 ("at_launch.bert") and of the
/// pooled yearly gap fraction.
std::string maturity_at_launch_key(Benchmark benchmark);
inline constexpr const char* kMaturityGapKey = "gap_kept_per_year";

/// Two results of the same benchmark, family and accelerator count at least this far apart (years)
/// make a dated repeat: maturity is measured on them alone (analysis/calibration/CalibrationFit.hpp).
inline constexpr double kMaturityRepeatSpanYears = 0.25;

/// How far past the calibration's reference date a prediction may ask (years); later dates are
/// refused. The data span two years of software (2023-05 to 2025-06): three years ahead is already
/// more than the span the maturity was measured over.
inline constexpr double kSoftwareDateHorizonYears = 3.0;

} // namespace gpuscale::model
