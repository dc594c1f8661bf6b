#pragma once
/// The four ways validate predicts MLPerf results the fit did not see, as train/predict splits that
/// every model validated against them uses (gpuscale's refits, CrossValidation.hpp; the baseline
/// regression, ScalingRegression.hpp), so both are judged on the same results from the same data:
///
///   leave_one_system_out   one fold per system (submitter/system, across rounds): fit on the others
///   leave_one_family_out   one fold per catalog accelerator family: fit on the other families
///   leave_round_out        one fold: fit on the rounds before the latest present, predict the latest
///   scale_extrapolation    one fold: fit on results with <= model::kScaleSplitAccelerators
///                          accelerators, predict the larger ones

#include "analysis/calibration/CalibrationCase.hpp"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace gpuscale::analysis {

enum class ValidationMode { LeaveOneSystemOut, LeaveOneFamilyOut, LeaveRoundOut, ScaleExtrapolation };

/// The mode's name in validate's report ("leave_one_system_out", ...).
std::string to_string(ValidationMode mode);
/// Every mode, in the order above.
std::vector<ValidationMode> all_validation_modes();

/// One fit of a split: the cases it is fitted on and the cases it predicts (disjoint).
struct ValidationFold {
  std::string name;                   ///< the left-out group (a system, a family, a round, "> 64")
  std::vector<bool> train;            ///< train[i]: case i is fitted on
  std::vector<std::size_t> predicted; ///< indices of the cases this fold predicts
};

/// Left-out predictions of one model, seconds per case: 0 where the mode predicts no such case (its
/// training rounds, the small results of the scale split) or the model could not predict it.
using LeftOutSeconds = std::map<ValidationMode, std::vector<double>>;

/// One fold per value of `group_of`: the group's cases predicted by a fit on every other case.
std::vector<ValidationFold> group_folds(const std::vector<CalibrationCase>& cases,
                                        const std::function<std::string(const CalibrationCase&)>& group_of);

/// The folds of `mode` over `cases` (the rules above). Each case is predicted by at most one fold.
std::vector<ValidationFold> validation_folds(ValidationMode mode, const std::vector<CalibrationCase>& cases);

/// Whether round `a` comes before round `b`: by the dates MLPerf round names stand for
/// (model::mlperf_round_date: "v4.1" < "v5.0", "v9.1" < "v10.0"), by name where either is not one.
bool round_before(const std::string& a, const std::string& b);

/// The latest round among `cases` by round_before ("" when empty).
std::string latest_round(const std::vector<CalibrationCase>& cases);

} // namespace gpuscale::analysis
