// The report's tables on fixed synthetic rows against tests/analysis/golden/report_tables.md.
// Numbers are compared with a relative tolerance of 2e-3: the tables print 4 significant digits, so a
// last-digit rounding flip between platforms passes, a real change does not. Regenerate the golden
// file only with `cmake --build <build> --target update_analysis_golden`, and review the diff.

#include "analysis/frontier/FrontierAnalysis.hpp"
#include "analysis/frontier/MarkdownReport.hpp"
#include "tests/analysis/frontier/SyntheticRuns.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>

namespace {

constexpr double kRelativeTolerance = 2e-3;

std::string generated_tables()
{
  std::ostringstream out;
  gpuscale::analysis::write_report_tables(
      gpuscale::analysis::analyse_frontier(gpuscale::testing::synthetic_runs(), gpuscale::analysis::FrontierOptions{}),
      out);
  return out.str();
}

std::vector<std::string> lines_of(const std::string& text)
{
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

/// Equal when the text outside numbers is identical and every number is within the tolerance.
bool same_line(const std::string& expected, const std::string& actual)
{
  static const std::regex number(R"([-+]?\d+(\.\d+)?([eE][-+]?\d+)?)");
  std::sregex_iterator e(expected.begin(), expected.end(), number), a(actual.begin(), actual.end(), number), end;
  if (std::regex_replace(expected, number, "#") != std::regex_replace(actual, number, "#"))
    return false;
  for (; e != end && a != end; ++e, ++a) {
    const double x = std::stod(e->str()), y = std::stod(a->str());
    if (std::fabs(x - y) > kRelativeTolerance * std::max(std::fabs(x), std::fabs(y)))
      return false;
  }
  return e == end && a == end;
}

} // namespace

TEST_CASE("analysis report tables match the golden file (numbers within 0.2%)", "[analysis][golden]")
{
  std::ifstream in(GPUSCALE_SOURCE_DIR "/tests/analysis/golden/report_tables.md");
  REQUIRE(in);
  std::stringstream golden;
  golden << in.rdbuf();
  const auto expected = lines_of(golden.str());
  const auto actual = lines_of(generated_tables());
  REQUIRE(actual.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    INFO("line " << i + 1 << "\nexpected: " << expected[i] << "\nactual:   " << actual[i]);
    CHECK(same_line(expected[i], actual[i]));
  }
}

TEST_CASE("analysis::format_ranking_text keeps its columns aligned with long configuration labels", "[analysis][golden]")
{
  // Two ZeRO stages of one workload on a platform with a long name: labels of 60+ characters.
  std::vector<gpuscale::results::RunRecord> runs;
  const std::string platform = "dgx-h100-512node-fattree-2to1-oversubscribed";
  for (int gpus : {8, 16})
    for (int stage : {1, 3}) {
      auto r = gpuscale::testing::usl_run("alpha", platform, gpus, 36000 * (1 + 0.1 * stage), 0.01, 0.0002, 2.0, 700,
                                          989e12, 14);
      r.zero_stage = stage;
      runs.push_back(r);
    }
  const auto analysis = gpuscale::analysis::analyse_frontier(runs, gpuscale::analysis::FrontierOptions{});
  // Every figure starts in the same column on every row: the label column is as wide as the longest label.
  const std::string expected =
      "TOPSIS ranking, alpha\n"
      "  rank  configuration                                                     time   GPU-hours  cost (USD) efficiency closeness\n"
      "     1  dgx-h100-512node-fattree-2to1-oversubscribed x16 (ZeRO-1)    49.42 min       13.18       26.36     0.9025     0.896\n"
      "     2  dgx-h100-512node-fattree-2to1-oversubscribed x16 (ZeRO-3)     58.4 min       15.57       31.15     0.9025    0.7242\n"
      "     3  dgx-h100-512node-fattree-2to1-oversubscribed x8 (ZeRO-1)      89.2 min       11.89       23.79          1    0.3605\n"
      "     4  dgx-h100-512node-fattree-2to1-oversubscribed x8 (ZeRO-3)     105.4 min       14.06       28.11          1    0.1151\n";
  const auto expected_lines = lines_of(expected);
  const auto actual_lines = lines_of(gpuscale::analysis::format_ranking_text(analysis, 10));
  REQUIRE(actual_lines.size() == expected_lines.size());
  for (std::size_t i = 0; i < expected_lines.size(); ++i) {
    INFO("line " << i + 1 << "\nexpected: " << expected_lines[i] << "\nactual:   " << actual_lines[i]);
    CHECK(same_line(expected_lines[i], actual_lines[i]));
  }
}
