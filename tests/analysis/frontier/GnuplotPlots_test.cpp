// The plot scripts at 50 series: small multiples of at most 8 distinct-looking series, marks for
// input-bound and extrapolated points, numbered Pareto points. Scripts only (render = false).

#include "analysis/frontier/FrontierAnalysis.hpp"
#include "analysis/frontier/GnuplotPlots.hpp"
#include "tests/analysis/frontier/SyntheticRuns.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <unistd.h>

using namespace gpuscale;
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& path)
{
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The PNG half of a script, one string per `plot` command (continuation lines joined).
std::vector<std::string> plot_commands(const std::string& script)
{
  const std::string png = script.substr(0, script.find("set terminal svg"));
  std::vector<std::string> commands;
  std::istringstream in(png);
  std::string line, current;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line.rfind("plot ", 0) == 0) {
      inside = true;
      current.clear();
    }
    if (!inside)
      continue;
    current += line;
    if (line.empty() || line.back() != '\\') {
      commands.push_back(current);
      inside = false;
    }
  }
  return commands;
}

} // namespace

TEST_CASE("analysis::write_plots draws 50 series as panels of at most 8 that all look different", "[analysis][plots]")
{
  // 2 workloads x 5 platforms x 5 ZeRO/micro-batch variants = 50 series of 1..8 GPUs.
  std::vector<results::RunRecord> runs;
  for (const char* workload : {"alpha", "beta"})
    for (int platform = 0; platform < 5; ++platform)
      for (int variant = 0; variant < 5; ++variant)
        for (int gpus = 1; gpus <= 8; gpus *= 2) {
          auto r = testing::usl_run(workload, "cluster-" + std::to_string(platform), gpus, 3600 * (1 + platform),
                                    0.01 * (1 + variant), 0.0001, 2.0, 700, 989e12, 14);
          r.zero_stage = variant % 4;
          r.micro_batch_size = 4 << (variant / 4);
          r.input_bound = workload == std::string("beta") && platform == 0 && gpus == 8 ? 1 : 0;
          runs.push_back(r);
        }
  const auto analysis = analysis::analyse_frontier(runs, analysis::FrontierOptions{});
  REQUIRE(analysis.series.size() == 50);
  const fs::path dir = fs::temp_directory_path() / ("gpuscale-plots-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  analysis::write_plots(analysis, dir.string(), false);

  const auto commands = plot_commands(slurp(dir / "scaling_time.gp"));
  CHECK(commands.size() == 10); // one panel per workload and platform: 25 series a workload is over 8
  const std::regex series_style(R"('scaling\.dat' index \d+ using 1:2 with linespoints lw 2 dt (\d) pt (\d+) ps 1\.0 lc rgb '(#[0-9A-F]{6})')");
  int input_bound_panels = 0;
  for (const auto& command : commands) {
    std::set<std::string> colours, looks;
    std::size_t series = 0;
    for (std::sregex_iterator it(command.begin(), command.end(), series_style), end; it != end; ++it) {
      ++series;
      colours.insert((*it)[3]);
      looks.insert((*it)[1].str() + "/" + (*it)[2].str());
    }
    CHECK(series == 5);
    CHECK(colours.size() == series); // distinct colours within a panel
    CHECK(looks.size() == series);   // and distinct dash and point types
    input_bound_panels += command.find("title 'input bound (host CPUs set the pace)'") != std::string::npos ? 1 : 0;
  }
  CHECK(input_bound_panels == 1);
  CHECK(slurp(dir / "scaling_time.gp").find("set title \"beta @ cluster-0\"") != std::string::npos);

  // Pareto points carry the numbers of the report's table rows.
  const std::string front = slurp(dir / "frontier_alpha_gpu-hours.dat");
  CHECK(front.rfind("# Pareto front: time_s GPU-hours number\n", 0) == 0);
  CHECK(front.find(" \"1\"\n") != std::string::npos);
  fs::remove_all(dir);
}
