#include "analysis/calibration/ValidationSplit.hpp"
#include "sim/model/PredictionInterval.hpp"

#include <catch2/catch.hpp>

#include <set>

using namespace gpuscale;

namespace {

/// Three rounds, four systems, three families, accelerator counts on both sides of the scale split.
std::vector<analysis::CalibrationCase> mixed_cases()
{
  std::vector<analysis::CalibrationCase> cases;
  const struct {
    const char* round;
    const char* system;
    const char* family;
    int accelerators;
  } rows[] = {{"v3.0", "acme/dgx", "h100", 8},     {"v3.1", "acme/dgx", "h100", 64},
              {"v4.0", "acme/dgx", "h100", 512},   {"v4.1", "acme/dgx", "h100", 8},
              {"v3.1", "beta/hgx", "a100", 16},    {"v4.1", "beta/hgx", "a100", 128},
              {"v4.0", "gamma/pod", "tpu", 65},    {"v4.1", "gamma/pod", "tpu", 4},
              {"v4.0", "delta/box", "h100", 1024}, {"v3.0", "delta/box", "a100", 8}};
  for (const auto& r : rows) {
    analysis::CalibrationCase c;
    c.round = r.round;
    c.system_key = r.system;
    c.family = r.family;
    c.benchmark = model::Benchmark::Bert;
    c.accelerators = r.accelerators;
    cases.push_back(c);
  }
  return cases;
}

} // namespace

TEST_CASE("analysis::validation_folds never trains on a result it predicts, nor on its system or family",
          "[analysis]")
{
  const auto cases = mixed_cases();
  for (auto mode : analysis::all_validation_modes()) {
    INFO(analysis::to_string(mode));
    std::multiset<std::size_t> predicted;
    for (const auto& fold : analysis::validation_folds(mode, cases)) {
      REQUIRE(fold.train.size() == cases.size());
      for (std::size_t i : fold.predicted) {
        predicted.insert(i);
        CHECK_FALSE(fold.train[i]);
        for (std::size_t j = 0; j < cases.size(); ++j) {
          if (!fold.train[j])
            continue;
          if (mode == analysis::ValidationMode::LeaveOneSystemOut)
            CHECK(cases[j].system_key != cases[i].system_key);
          if (mode == analysis::ValidationMode::LeaveOneFamilyOut)
            CHECK(cases[j].family != cases[i].family);
        }
      }
    }
    for (std::size_t i = 0; i < cases.size(); ++i)
      CHECK(predicted.count(i) <= 1); // one prediction per result at most
    const bool grouped =
        mode == analysis::ValidationMode::LeaveOneSystemOut || mode == analysis::ValidationMode::LeaveOneFamilyOut;
    if (grouped)
      CHECK(predicted.size() == cases.size()); // every result predicted once
  }
}

TEST_CASE("analysis::validation_folds: the round split predicts the latest round from the rounds before it",
          "[analysis]")
{
  const auto cases = mixed_cases();
  CHECK(analysis::latest_round(cases) == "v4.1");
  const auto folds = analysis::validation_folds(analysis::ValidationMode::LeaveRoundOut, cases);
  REQUIRE(folds.size() == 1);
  CHECK(folds[0].predicted.size() == 3);
  for (std::size_t i : folds[0].predicted)
    CHECK(cases[i].round == "v4.1");
  int trained = 0;
  for (std::size_t j = 0; j < cases.size(); ++j)
    if (folds[0].train[j]) {
      ++trained;
      for (std::size_t i : folds[0].predicted)
        CHECK(cases[j].round < cases[i].round);
    }
  CHECK(trained == 7);
}

TEST_CASE("analysis::round_before orders MLPerf rounds by date, v10 after v9", "[analysis]")
{
  CHECK(analysis::round_before("v4.1", "v5.0"));
  CHECK(analysis::round_before("v9.1", "v10.0"));
  CHECK_FALSE(analysis::round_before("v10.0", "v9.1"));
  CHECK_FALSE(analysis::round_before("v4.1", "v4.1"));
  CHECK(analysis::round_before("april", "may")); // not round names: by name
  auto cases = mixed_cases();
  for (auto& c : cases)
    if (c.round == "v4.1")
      c.round = "v10.0";
  CHECK(analysis::latest_round(cases) == "v10.0");
  const auto folds = analysis::validation_folds(analysis::ValidationMode::LeaveRoundOut, cases);
  REQUIRE(folds.size() == 1);
  CHECK(folds[0].predicted.size() == 3);
}

TEST_CASE("analysis::validation_folds: the scale split trains on <= 64 accelerators and predicts the larger results",
          "[analysis]")
{
  const auto cases = mixed_cases();
  const auto folds = analysis::validation_folds(analysis::ValidationMode::ScaleExtrapolation, cases);
  REQUIRE(folds.size() == 1);
  CHECK(folds[0].predicted.size() == 4); // 512, 128, 65, 1024
  for (std::size_t i : folds[0].predicted)
    CHECK(cases[i].accelerators > model::kScaleSplitAccelerators);
  int trained = 0;
  for (std::size_t j = 0; j < cases.size(); ++j)
    if (folds[0].train[j]) {
      ++trained;
      CHECK(cases[j].accelerators <= model::kScaleSplitAccelerators);
    }
  CHECK(trained == 6);
}
