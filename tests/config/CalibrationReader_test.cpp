#include "sim/config/CalibrationReader.hpp"
#include "sim/config/ConfigError.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

using namespace gpuscale;

namespace {

/// Every located message reading `text` as c.yaml gives (none when it reads).
std::vector<std::string> messages_of(const std::string& text)
{
  std::vector<std::string> messages;
  try {
    config::read_calibration_text(text, "c.yaml");
  } catch (const config::ConfigError& e) {
    for (const auto& d : e.diagnostics())
      messages.push_back(d.format());
  }
  return messages;
}

} // namespace
using model::Benchmark;

TEST_CASE("config::format_calibration and read_calibration_text round-trip a calibration", "[config]")
{
  model::Calibration c;
  c.compute[Benchmark::Bert] = {0.9, 0.05, 20, true, ""};
  c.generation["hopper"] = {1.0, 0.0, 0, true, "reference generation: held at 1"};
  c.generation["ampere"] = {0.6, 0.1, 9, false, "at its bound"};
  c.memory[Benchmark::Bert] = {0.8, 0.2, 100, true, ""};
  c.network["nic"] = {0.6, 0.1, 30, true, ""};
  c.network["nvswitch@ampere"] = {0.7, 0.05, 0, true, "from nccl-tests"};
  c.collective_s["fixed"] = {8e-6, 1e-6, 0, true, ""};
  c.overhead_s[Benchmark::Bert] = {42.0, 3.0, 20, true, ""};
  c.batch_sizes = {{Benchmark::Bert, 8, 768, 20}, {Benchmark::Bert, 64, 4608, 2}};
  c.convergence_factors = {{Benchmark::Bert, 0, 0.964, 33}, {Benchmark::Bert, 768, 0.958, 19}};
  c.summary.results = 200;
  c.summary.command = "gpuscale calibrate";
  const auto read = config::read_calibration_text(config::format_calibration(c), "c.yaml");
  CHECK(read.compute.at(Benchmark::Bert).value == Approx(0.9));
  CHECK(read.generation.at("ampere").identified == false);
  CHECK(read.generation.at("ampere").note == "at its bound");
  CHECK(read.overhead_s.at(Benchmark::Bert).value == Approx(42.0));
  CHECK(read.overhead_s_for(Benchmark::Bert) == Approx(42.0));
  CHECK(read.batch_size_for(Benchmark::Bert, 8) == 768);
  CHECK(read.batch_size_for(Benchmark::Bert, 64) == 4608);
  // Between points, log-log: 16 is a third of the way from 8 to 64, so 768 * 6^(1/3) = 1395.5.
  CHECK(read.batch_size_for(Benchmark::Bert, 16) == 1396);
  // Beyond the ends, the end point's batch per accelerator: 96 below, 72 above.
  CHECK(read.batch_size_for(Benchmark::Bert, 4) == 384);
  CHECK(read.batch_size_for(Benchmark::Bert, 4096) == 4096 * 72);
  int previous = 0; // non-decreasing in the accelerator count, as the points are
  for (int n = 1; n <= 1024; ++n) {
    const int batch = *read.batch_size_for(Benchmark::Bert, n);
    CHECK(batch >= previous);
    previous = batch;
  }
  CHECK_FALSE(read.batch_size_for(Benchmark::Resnet, 8).has_value());
  // Convergence factors: a batch size's own, else the benchmark's, else the table's samples (1).
  REQUIRE(read.convergence_factors.size() == 2);
  CHECK(read.convergence_factor_for(Benchmark::Bert, 768) == Approx(0.958));
  CHECK(read.convergence_factor_for(Benchmark::Bert, 4608) == Approx(0.964));
  CHECK(read.convergence_factor_for(Benchmark::Resnet, 3200) == 1.0);
  CHECK(read.convergence_factors[1].results == 19);
  CHECK(read.batch_size_for(Benchmark::Bert, 2'000'000'000) == std::numeric_limits<int>::max()); // clamped, not UB
  const auto e = read.efficiency_for(Benchmark::Bert, "ampere", 0.0);
  CHECK(e.compute == Approx(0.9 * 0.6));
  CHECK(e.memory == Approx(0.8));
  const auto links = read.link_fractions();
  CHECK(links.of(model::LinkClass::Nic, "") == Approx(0.6));
  CHECK(links.of(model::LinkClass::NvSwitch, "ampere") == Approx(0.7));
  CHECK(links.of(model::LinkClass::NvSwitch, "hopper") == Approx(model::kDefaultLinkFraction)); // no entry
  CHECK(links.collective_fixed_s == Approx(8e-6));
  CHECK(links.simple_step_s == 0);
}

TEST_CASE("config::format_network_calibration writes a file of network and collective values that reads back",
          "[config]")
{
  model::Calibration c;
  c.summary.command = "gpuscale calibrate-network --platform p.yaml -o n.yaml --nccl-tests a.txt";
  c.summary.data = "1 nccl-tests log(s)";
  c.network["nvswitch@hopper"] = {0.7, 4e-5, 23, true, ""};
  c.network["nvls@hopper"] = {1.0, 0.2, 4, false, "at its bound"};
  c.collective_s["fixed"] = {7e-6, 6e-10, 29, true, ""};
  model::NetworkFitSummary fit;
  fit.platform = "p.yaml";
  fit.rows = 29;
  fit.rms_log_error = 1e-4;
  fit.evaluations = 81;
  fit.logs = {{"a.txt", "all_reduce", 16, 2, 29, 0.01}};
  c.network_fit = fit;
  const std::string text = config::format_network_calibration(c);
  CHECK(text.find("compute:") == std::string::npos);
  CHECK(text.find("batch_sizes:") == std::string::npos);
  CHECK(text.find("fit_median_ape_pct") == std::string::npos);
  const auto back = config::read_calibration_text(text, "n.yaml");
  CHECK(back.summary.command == c.summary.command);
  REQUIRE(back.network.size() == 2);
  CHECK(back.network.at("nvswitch@hopper").value == 0.7);
  CHECK(back.network.at("nvswitch@hopper").results == 23);
  CHECK(back.network.at("nvls@hopper").note == "at its bound");
  CHECK_FALSE(back.network.at("nvls@hopper").identified);
  CHECK(back.collective_s.at("fixed").value == Approx(7e-6));
  CHECK(back.compute.empty());
  CHECK(back.batch_sizes.empty());
  REQUIRE(back.network_fit);
  CHECK(back.network_fit->platform == "p.yaml");
  CHECK(back.network_fit->rows == 29);
  CHECK(back.network_fit->evaluations == 81);
  REQUIRE(back.network_fit->logs.size() == 1);
  CHECK(back.network_fit->logs[0].file == "a.txt");
  CHECK(back.network_fit->logs[0].op == "all_reduce");
  CHECK(back.network_fit->logs[0].ranks == 16);
  CHECK(back.network_fit->logs[0].hosts == 2);
  CHECK(back.network_fit->logs[0].median_ape_pct == Approx(0.01));
}

TEST_CASE("config::read_calibration_text reports bad values, located", "[config]")
{
  const std::string text = "calibration:\n"
                           "  overhead:\n"
                           "    bert: {value: 42}\n"
                           "  compute:\n"
                           "    bert: {value: 7, colour: red}\n";
  const auto messages = messages_of(text);
  REQUIRE(messages.size() == 3);
  CHECK_THAT(messages[0], Catch::StartsWith("c.yaml:5:19: error: /calibration/compute/bert/value: expected a number in"));
  CHECK(messages[1] == "c.yaml:5:22: error: /calibration/compute/bert/colour: unknown key 'colour' (known keys: identified, "
                       "note, results, standard_error, value)");
  CHECK_THAT(messages[2], Catch::StartsWith("c.yaml:3:19: error: /calibration/overhead/bert/value:"));
}

TEST_CASE("config::default_calibration is the committed calibration/mlperf.yaml", "[config]")
{
  std::ifstream in(std::string(GPUSCALE_SOURCE_DIR) + "/calibration/mlperf.yaml");
  std::stringstream text;
  text << in.rdbuf();
  CHECK(text.str() == config::embedded_calibration_text());
  CHECK_NOTHROW(config::default_calibration());
}

TEST_CASE("config::read_calibration_text reports an unknown benchmark key at its location and reads on", "[config]")
{
  const std::string text = "calibration:\n"
                           "  compute:\n"
                           "    bert: {value: 0.9}\n"
                           "    gpt3: {value: 0.5}\n"
                           "  batch_sizes:\n"
                           "    - {benchmark: bert-large, accelerators: 8, global_batch_size: 768}\n";
  try {
    (void)config::read_calibration_text(text, "c.yaml");
    FAIL("no ConfigError");
  } catch (const config::ConfigError& e) {
    CHECK(std::string(e.what()) ==
          "c.yaml:4:5: error: /calibration/compute/gpt3: unknown benchmark 'gpt3' (known: bert, llama2_70b_lora, "
          "resnet, retinanet, stable_diffusion)\n"
          "c.yaml:6:19: error: /calibration/batch_sizes/0/benchmark: unknown benchmark 'bert-large' (known: bert, "
          "llama2_70b_lora, resnet, retinanet, stable_diffusion)");
  }
}

TEST_CASE("config::read_calibration_text rejects batch-size points out of accelerator order", "[config]")
{
  const std::string text = "calibration:\n"
                           "  batch_sizes:\n"
                           "    - {benchmark: bert, accelerators: 64, global_batch_size: 4608}\n"
                           "    - {benchmark: resnet, accelerators: 8, global_batch_size: 3200}\n"
                           "    - {benchmark: bert, accelerators: 8, global_batch_size: 768}\n";
  CHECK_THROWS_WITH(config::read_calibration_text(text, "c.yaml"),
                    "c.yaml:5:39: error: /calibration/batch_sizes/2/accelerators: 8 after 64 for bert: each "
                    "benchmark's points must increase in accelerators");
}

TEST_CASE("config::format_calibration and read_calibration_text round-trip software maturity", "[config]")
{
  model::Calibration c;
  c.compute[model::Benchmark::Bert] = {0.9, 0.05, 20, true, ""};
  c.maturity["at_launch.bert"] = {0.73, 0.02, 150, true, ""};
  c.maturity["gap_kept_per_year"] = {1.0, 0.1, 20, false, "at its bound"};
  c.software_reference_date = model::software_date_of(2024, 10, 20);
  c.batch_sizes = {{model::Benchmark::Bert, 8, 768, 20}};
  const auto read = config::read_calibration_text(config::format_calibration(c), "c.yaml");
  CHECK(read.maturity.at("at_launch.bert").value == Approx(0.73));
  CHECK(read.maturity.at("gap_kept_per_year").note == "at its bound");
  REQUIRE(read.software_reference_date);
  CHECK(*read.software_reference_date == *c.software_reference_date); // exactly: the day round-trips
  CHECK(model::to_string(*read.software_reference_date) == "2024-10-20");
}

TEST_CASE("config::read_calibration_text reports bad software maturity, located", "[config]")
{
  // A maturity above 1 (software faster than mature) and a date that is not one.
  const auto bad = messages_of("calibration:\n"
                               "  maturity:\n"
                               "    at_launch.bert: {value: 1.2}\n"
                               "    gap_kept_per_year: {value: 0.5}\n"
                               "  software_reference_date: \"2024-13-01\"\n");
  REQUIRE(bad.size() == 2);
  CHECK(bad[0] == "c.yaml:3:29: error: /calibration/maturity/at_launch.bert/value: expected a number in [0.05, 1], "
                  "got 1.2");
  CHECK(bad[1] == "c.yaml:5:28: error: /calibration/software_reference_date: expected a date 'YYYY-MM' or "
                  "'YYYY-MM-DD', or an MLPerf round 'vM.0' / 'vM.1', got '2024-13-01'");
  // Maturity without the date predictions default to, and without its gap.
  const auto undated = messages_of("calibration:\n"
                                   "  maturity:\n"
                                   "    at_launch.bert: {value: 0.9}\n");
  REQUIRE(undated.size() == 2);
  CHECK(undated[0] == "c.yaml:3:5: error: /calibration/maturity: software maturity needs gap_kept_per_year and at "
                      "least one at_launch.<benchmark>");
  CHECK(undated[1] == "c.yaml:3:5: error: /calibration/maturity: software maturity needs the date predictions "
                      "default to (software_reference_date: YYYY-MM-DD)");
}
