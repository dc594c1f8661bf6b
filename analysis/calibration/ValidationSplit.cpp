#include "analysis/calibration/ValidationSplit.hpp"

#include "sim/model/PredictionInterval.hpp"
#include "sim/model/SoftwareDate.hpp"

#include <algorithm>
#include <stdexcept>

namespace gpuscale::analysis {
namespace {

/// One fold predicting the cases `held_out` selects from a fit on the cases `fitted` selects.
ValidationFold one_fold(const std::string& name, const std::vector<CalibrationCase>& cases,
                        const std::function<bool(const CalibrationCase&)>& held_out,
                        const std::function<bool(const CalibrationCase&)>& fitted)
{
  ValidationFold fold{name, std::vector<bool>(cases.size(), false), {}};
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (held_out(cases[i]))
      fold.predicted.push_back(i);
    else
      fold.train[i] = fitted(cases[i]);
  }
  return fold;
}

} // namespace

std::string to_string(ValidationMode mode)
{
  switch (mode) {
    case ValidationMode::LeaveOneSystemOut: return "leave_one_system_out";
    case ValidationMode::LeaveOneFamilyOut: return "leave_one_family_out";
    case ValidationMode::LeaveRoundOut: return "leave_round_out";
    case ValidationMode::ScaleExtrapolation: return "scale_extrapolation";
  }
  throw std::logic_error("unknown validation mode");
}

std::vector<ValidationMode> all_validation_modes()
{
  return {ValidationMode::LeaveOneSystemOut, ValidationMode::LeaveOneFamilyOut, ValidationMode::LeaveRoundOut,
          ValidationMode::ScaleExtrapolation};
}

std::vector<ValidationFold> group_folds(const std::vector<CalibrationCase>& cases,
                                        const std::function<std::string(const CalibrationCase&)>& group_of)
{
  std::map<std::string, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < cases.size(); ++i)
    groups[group_of(cases[i])].push_back(i);
  std::vector<ValidationFold> folds;
  for (auto& [name, members] : groups) {
    ValidationFold fold{name, std::vector<bool>(cases.size(), true), std::move(members)};
    for (std::size_t i : fold.predicted)
      fold.train[i] = false;
    folds.push_back(std::move(fold));
  }
  return folds;
}

bool round_before(const std::string& a, const std::string& b)
{
  const auto date_a = model::mlperf_round_date(a);
  const auto date_b = model::mlperf_round_date(b);
  if (date_a && date_b)
    return *date_a < *date_b;
  return a < b;
}

std::string latest_round(const std::vector<CalibrationCase>& cases)
{
  std::string latest;
  for (const auto& c : cases)
    if (latest.empty() || round_before(latest, c.round))
      latest = c.round;
  return latest;
}

std::vector<ValidationFold> validation_folds(ValidationMode mode, const std::vector<CalibrationCase>& cases)
{
  switch (mode) {
    case ValidationMode::LeaveOneSystemOut:
      return group_folds(cases, [](const CalibrationCase& c) { return c.system_key; });
    case ValidationMode::LeaveOneFamilyOut:
      return group_folds(cases, [](const CalibrationCase& c) { return c.family; });
    case ValidationMode::LeaveRoundOut: {
      const std::string latest = latest_round(cases);
      return {one_fold(latest, cases, [&](const CalibrationCase& c) { return c.round == latest; },
                       [&](const CalibrationCase& c) { return round_before(c.round, latest); })};
    }
    case ValidationMode::ScaleExtrapolation: {
      const auto beyond = [](const CalibrationCase& c) { return c.accelerators > model::kScaleSplitAccelerators; };
      return {one_fold("> " + std::to_string(model::kScaleSplitAccelerators), cases, beyond,
                       [&](const CalibrationCase& c) { return !beyond(c); })};
    }
  }
  throw std::logic_error("unknown validation mode");
}

} // namespace gpuscale::analysis
