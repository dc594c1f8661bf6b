#include "sim/config/ConfigError.hpp"
#include "sim/config/MlperfLogReader.hpp"
#include "sim/config/MlperfRepositoryReader.hpp"
#include "sim/config/MlperfScalingReader.hpp"
#include "sim/config/MlperfSystemReader.hpp"
#include "sim/model/MlperfScore.hpp"
#include "tests/support/MlperfData.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <unistd.h>

using namespace gpuscale;

namespace {

const std::string kData = std::string(GPUSCALE_SOURCE_DIR) + "/tests/data/mlperf";

const model::MlperfEntry& entry_of(const config::MlperfImport& imported, const std::string& system)
{
  for (const auto& e : imported.entries)
    if (e.system == system)
      return e;
  throw std::runtime_error("no entry " + system);
}

/// The entries of `imported` by their key (round/submitter/system/benchmark).
std::map<std::string, const model::MlperfEntry*> entries_by_key(const config::MlperfImport& imported)
{
  std::map<std::string, const model::MlperfEntry*> by_key;
  for (const auto& e : imported.entries)
    by_key[e.key()] = &e;
  return by_key;
}

/// One CSV record's fields (the reader's own parser).
std::vector<std::string> csv_fields(const std::string& line)
{
  return config::parse_csv_record(line).value().fields;
}

} // namespace

TEST_CASE("model::olympic_score_s drops the fastest and the slowest, an invalid run is the slowest", "[model]")
{
  CHECK(model::olympic_score_s({10, 11, 12, 13, 14}, 0).value() == Approx(12.0).epsilon(1e-15));
  CHECK(model::olympic_score_s({10, 11, 12, 13}, 1).value() == Approx(12.0).epsilon(1e-15));
  CHECK_FALSE(model::olympic_score_s({10, 11, 12}, 2).has_value());
  CHECK_FALSE(model::olympic_score_s({10, 11}, 0).has_value());
}

TEST_CASE("config::read_mlperf_repository scores the fixture entry and reports each bad log with its file", "[config]")
{
  const auto imported = config::read_mlperf_repository(kData);
  REQUIRE(imported.entries.size() == 2);
  const auto& box = entry_of(imported, "box8");
  CHECK(box.round == "v9.9");
  CHECK(box.submitter == "Acme");
  CHECK(box.benchmark == model::Benchmark::Bert);
  CHECK(box.description.accelerator_model_name == "NVIDIA H100-SXM5-80GB");
  CHECK(box.runs.size() == 5);
  CHECK(box.n_converged == 4);
  CHECK(box.global_batch_size == 48);
  CHECK(box.gradient_accumulation_steps == 2);
  CHECK(box.runs[0].gradient_accumulation_steps == 2);
  // valid 10, 12, 11, 13 min; result_3 aborted counts as the slowest: mean(11, 12, 13)
  CHECK(box.score_s.value() == Approx(12.0 * 60).margin(1e-9));
  // The shared layout's scores table gives the factor its trimmed copy has no scaling.json for.
  CHECK(box.rcp_scaling_factor == 1.05);
  CHECK(box.rcp_scaling_source == kData + "/scores_calibration.csv");
  CHECK(box.published_score_s().value() == Approx(12.6 * 60).margin(1e-9));
  CHECK(box.mean_samples_to_converge == Approx((300000.0 * 3 + 450000.0) / 4));
  // The score's runs (11, 12 and 13 min; the 10-minute one and the aborted one dropped) trained
  // 300,000, 450,000 and 300,000 samples.
  CHECK(box.olympic_samples_to_converge == Approx(350000.0));
  CHECK(box.runs[3].status == model::MlperfRunStatus::Aborted);
  // Training begins at the first block_start or epoch_start: 0.5, 1.0, 1.5 (an epoch_start) and 2.0 s
  // after run_start in the valid runs; the aborted run's 9 s does not count.
  CHECK(box.runs[0].start_gap_s().value() == Approx(0.5));
  CHECK(box.runs[2].start_gap_s().value() == Approx(1.5));
  CHECK(box.median_start_gap_s.value() == Approx(1.25));
  // The training rate: 150,000 samples between one evaluation's eval_stop and the next eval_start,
  // the stretch before the first evaluation (the warm-up) left out: 195 s, 175 s (twice), 215 s and
  // 255 s in the valid runs; the aborted run has none.
  CHECK(box.runs[0].training_rate_samples_per_s == Approx(150000.0 / 195));
  CHECK(box.runs[1].training_rate_samples_per_s == Approx(150000.0 / 175));
  CHECK(box.runs[3].training_rate_samples_per_s == 0.0);
  CHECK(box.median_training_rate_samples_per_s.value() == Approx((150000.0 / 195 + 150000.0 / 215) / 2));

  const auto& broken = entry_of(imported, "broken4");
  CHECK_FALSE(broken.score_s.has_value());
  CHECK(broken.olympic_samples_to_converge == 0.0);
  CHECK_FALSE(broken.median_start_gap_s.has_value()); // its logs have no block_start
  CHECK_FALSE(broken.median_training_rate_samples_per_s.has_value()); // nor eval_start / eval_stop
  CHECK(broken.runs[1].status == model::MlperfRunStatus::NoRunStop);
  CHECK(broken.runs[2].status == model::MlperfRunStatus::Unparsable);
  CHECK(broken.runs[2].problem == kData + "/results/v9.9/Acme__broken4/bert/result_2.txt:6: MLLOG line is not valid JSON "
                                          "(illegal EOF in scalar)");
  CHECK(broken.runs[3].status == model::MlperfRunStatus::Inconsistent);
  std::string problems;
  for (const auto& p : imported.problems)
    problems += p + "\n";
  CHECK_THAT(problems, Catch::Contains("Acme__box8/bert/result_3.txt:") && Catch::Contains("run_stop status 'aborted'"));
  CHECK_THAT(problems, Catch::Contains("Acme__broken4/bert/result_1.txt: no run_stop"));
  CHECK_THAT(problems, Catch::Contains("Acme__broken4/bert: no score (3 invalid of 5 runs)"));
}

namespace {

/// One MLLOG line.
std::string mllog(double time_ms, const std::string& key, const std::string& value = "null",
                  const std::string& metadata = "{}")
{
  return ":::MLLOG {\"time_ms\": " + std::to_string(static_cast<long long>(time_ms)) + ", \"key\": \"" + key +
         "\", \"value\": " + value + ", \"metadata\": " + metadata + "}\n";
}

/// A successful run's frame around `body`: init, batch size, run_start at 0 and run_stop at `stop_s`.
std::string run_log(const std::string& body, double stop_s)
{
  return mllog(-5000, "init_start") + mllog(-4000, "global_batch_size", "8") + mllog(0, "run_start") + body +
         mllog(stop_s * 1000, "run_stop", "null", "{\"status\": \"success\"}");
}

} // namespace

TEST_CASE("model::steady_training_rate is the median over the intervals after the first", "[model]")
{
  using model::TrainingInterval;
  // The first interval is the warm-up; an empty or zero-length one does not count.
  CHECK(model::steady_training_rate({{0, 10000, 10}, {10000, 20000, 20}, {20000, 30000, 40}, {30000, 40000, 30}}) ==
        Approx(3.0));
  CHECK(model::steady_training_rate({{0, 10000, 10}, {10000, 20000, 0}, {20000, 20000, 5}, {20000, 30000, 20}}) ==
        Approx(2.0));
  CHECK(model::steady_training_rate({{0, 10000, 10}}) == 0.0);
  CHECK(model::steady_training_rate({}) == 0.0);
}

TEST_CASE("config::parse_mlperf_log measures the training rate from epochs, blocks or the stretches between "
          "evaluations",
          "[config]")
{
  SECTION("epochs (RetinaNet): the training-set size each; the epoch run_stop cuts short does not count")
  {
    std::string body;
    const std::vector<std::pair<double, double>> epochs_s{{0, 500}, {530, 1020}, {1050, 1550}, {1580, 1581}};
    for (std::size_t i = 0; i < epochs_s.size(); ++i) {
      const std::string n = "{\"epoch_num\": " + std::to_string(i) + "}";
      body += mllog(epochs_s[i].first * 1000, "epoch_start", std::to_string(i), n);
      body += mllog(epochs_s[i].second * 1000, "epoch_stop", std::to_string(i), n);
      if (i < 3)
        body += mllog(epochs_s[i].second * 1000 + 10000, "eval_accuracy", "0.3", "{\"epoch_num\": " +
                                                                                     std::to_string(i + 1) + "}");
    }
    const auto run = config::parse_mlperf_log(run_log(body, 1581.5), "epochs.txt", "retinanet");
    REQUIRE(run.valid());
    // Epochs 2 and 3 (490 and 500 s); the first is the warm-up, the fourth ends at run_stop.
    CHECK(run.training_rate_samples_per_s == Approx((1170301.0 / 490 + 1170301.0 / 500) / 2));
  }
  SECTION("blocks (Llama 2): each block's samples from the block_stop counters, whatever block_start counts")
  {
    // Juniper's and Habana's logs count block_start in steps (192 = 1536 / 8) and block_stop in samples;
    // Habana's first block has no block_start (start count -1 here: none logged).
    std::string body;
    const std::vector<std::array<double, 4>> blocks{
        {0, -1, 700, 1536}, {737, 192, 917, 1920}, {954, 240, 1144, 2304}, {1181, 288, 1361, 2688}};
    for (const auto& [start_s, start_count, stop_s, stop_count] : blocks) {
      if (start_count >= 0)
        body += mllog(start_s * 1000, "block_start", "null", "{\"samples_count\": " + std::to_string(start_count) + "}");
      body += mllog(stop_s * 1000, "block_stop", "null", "{\"samples_count\": " + std::to_string(stop_count) + "}");
      body += mllog(stop_s * 1000 + 30000, "eval_accuracy", "0.93", "{\"samples_count\": " + std::to_string(stop_count) + "}");
    }
    const auto run = config::parse_mlperf_log(run_log(body, 1400), "blocks.txt", "llama2_70b_lora");
    REQUIRE(run.valid());
    // The first block with a block_start is the warm-up; then blocks of 190 and 180 s.
    CHECK(run.training_rate_samples_per_s == Approx((384.0 / 180 + 384.0 / 190) / 2));
  }
  SECTION("evaluations (BERT): eval_stop to the next eval_start; counters the run cannot have trained are refused")
  {
    auto bert = [](double counter_scale) {
      std::string body = mllog(500, "block_start", "null", "{\"first_epoch_num\": 1}");
      for (int i = 1; i <= 3; ++i) {
        const double at_ms = i * 100000.0;
        const std::string counter = "{\"epoch_num\": " + std::to_string(static_cast<long long>(150000 * i * counter_scale)) + "}";
        body += mllog(at_ms - 5000, "eval_start", "null", counter);
        body += mllog(at_ms, "eval_stop", "null", counter);
        body += mllog(at_ms, "eval_accuracy", "0.7", "{\"epoch_num\": " + std::to_string(150000 * i) + "}");
      }
      return config::parse_mlperf_log(run_log(body, 300.5), "bert.txt", "bert");
    };
    CHECK(bert(1).training_rate_samples_per_s == Approx(150000.0 / 95.0));
    // Evaluation counters 100 times the samples its evaluations report: a rate 100 times the run's
    // average is not believed.
    CHECK(bert(100).valid());
    CHECK(bert(100).training_rate_samples_per_s == 0.0);
  }
}

namespace {

/// The synthetic logs in the real MLLOG format (tests/data/mlperf/logs/).
const std::string kLogs = kData + "/logs/";

/// The text of `path` with every occurrence of `from` replaced by `to`.
std::string replaced(const std::string& path, const std::string& from, const std::string& to)
{
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  for (auto at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

} // namespace

TEST_CASE("config::read_mlperf_log: an initialisation over the closed division's 30 minutes is noncompliant, "
          "the slowest run of the score",
          "[config]")
{
  const std::string path = kLogs + "bert_initialisation_over_30_min.txt";
  const auto run = config::read_mlperf_log(path, "bert");
  CHECK(run.status == model::MlperfRunStatus::Noncompliant);
  CHECK(run.problem == path + ":9: initialisation took 30.02 min (init_start to init_stop), more than the 30 min the "
                              "closed division allows");
  // The run itself converged normally: what it measured is kept, it just does not count.
  CHECK(run.run_s() == Approx(600.0));
  // 30 minutes exactly is allowed; the open division has no such limit.
  const std::string at_limit = replaced(path, "\"time_ms\": 1745601801000", "\"time_ms\": 1745601800000");
  CHECK(config::parse_mlperf_log(at_limit, "at_limit.txt", "bert").valid());
  const std::string open = replaced(path, "\"closed\"", "\"open\"");
  CHECK(config::parse_mlperf_log(open, "open.txt", "bert").valid());

  // In an entry it is invalid like an aborted run: it counts as the slowest, so of the four valid runs
  // (8, 9, 10 and 11 min) only the fastest is dropped.
  model::MlperfEntry entry;
  const std::string valid = replaced(path, "\"time_ms\": 1745601801000", "\"time_ms\": 1745600005000");
  for (const int minutes : {8, 9, 10, 11}) {
    model::MlperfRun r = config::parse_mlperf_log(valid, "valid.txt", "bert");
    REQUIRE(r.valid());
    r.run_stop_ms = r.run_start_ms + minutes * 60000.0;
    entry.runs.push_back(r);
  }
  entry.runs.push_back(run); // 10 min, but noncompliant
  model::summarise_entry(entry);
  CHECK(entry.n_converged == 4);
  CHECK(entry.score_s.value() == Approx((9.0 + 10.0 + 11.0) / 3 * 60));
}

TEST_CASE("config::read_mlperf_log: Stable Diffusion's checkpoints evaluated after run_stop, newest first", "[config]")
{
  const auto run = config::read_mlperf_log(kLogs + "stable_diffusion_checkpoints_evaluated_after_run_stop.txt",
                                           "stable_diffusion");
  REQUIRE(run.valid());
  CHECK(run.run_s() == Approx(55.7));
  // Trained: the largest samples_count evaluated (25,600), not the last one logged (12,800).
  CHECK(run.samples_processed == 25600.0);
  // Converged (rcp_checker): the smallest samples_count with FID <= 90 and CLIP >= 0.15.
  CHECK(run.samples_to_converge == 19200.0);
  // The training rate from the blocks that start before run_stop, the first (warm-up) left out: 6,400
  // samples in 10, 12.8 and 12.8 s. The two blocks trained after the back-dated run_stop (5 s each)
  // are not the run's.
  CHECK(run.training_rate_samples_per_s == Approx(500.0));
  model::MlperfEntry entry;
  entry.runs = {run, run, run};
  model::summarise_entry(entry);
  CHECK(entry.mean_throughput_samples_per_s == Approx(25600.0 / 55.7));
  CHECK(entry.median_training_rate_samples_per_s.value() == Approx(500.0));
}

TEST_CASE("config::read_mlperf_log: a run faster than 0.5 ms per optimizer step is implausible", "[config]")
{
  const std::string path = kLogs + "bert_converged_in_40_ms.txt";
  const auto run = config::read_mlperf_log(path, "bert");
  CHECK(run.status == model::MlperfRunStatus::Implausible);
  // 300,000 samples at a global batch of 48: 6,250 steps, at least 3.125 s.
  CHECK(run.problem == path + ":18: converged in 0.040 s, less than the 3.125 s its 6250 optimizer steps (samples to "
                              "converge / global batch size) take at 0.5 ms each, the least any system needs");
  // The same log over 3.2 s is possible.
  const std::string slower = replaced(path, "\"time_ms\": 1745600005050, \"event_type\": \"INTERVAL_END\", \"key\": \"run_stop\"",
                                      "\"time_ms\": 1745600008210, \"event_type\": \"INTERVAL_END\", \"key\": \"run_stop\"");
  CHECK(config::parse_mlperf_log(slower, "slower.txt", "bert").valid());
}

TEST_CASE("config::read_mlperf_log refuses a log whose submission_benchmark is not its folder's, ssd is retinanet",
          "[config]")
{
  const std::string path = kLogs + "resnet_log_in_bert_folder.txt";
  const auto run = config::read_mlperf_log(path, "bert");
  CHECK(run.status == model::MlperfRunStatus::Inconsistent);
  CHECK(run.problem == path + ":2: submission_benchmark 'resnet' is not bert, the benchmark the log is read as (its "
                              "folder)");
  // A benchmark gpuscale does not model is not the folder's either. (v4.0/v4.1 RetinaNet logs say ssd
  // in retinanet's folders: the upstream repository test below reads them.)
  CHECK(config::parse_mlperf_log(replaced(path, "\"resnet\"", "\"gpt3\""), "g.txt", "bert").status ==
        model::MlperfRunStatus::Inconsistent);
  CHECK(config::parse_mlperf_log(replaced(path, "\"resnet\"", "\"bert\""), "b.txt", "bert").valid());
}

TEST_CASE("config::read_mlperf_repository reads an upstream round repository, ssd is retinanet, gpt3 skipped",
          "[config]")
{
  const auto imported = config::read_mlperf_repository(kData + "/upstream/training_results_v9.9");
  REQUIRE(imported.entries.size() == 1);
  const auto& e = imported.entries[0];
  CHECK(e.round == "v9.9");
  CHECK(e.benchmark == model::Benchmark::Retinanet);
  CHECK(e.n_converged == 3); // their submission_benchmark, ssd, is retinanet
  CHECK(e.score_s.value() == Approx(31.0 * 60).margin(1e-9));
  CHECK(e.rcp_scaling_factor == 1.025); // its folder's scaling.json
  CHECK(e.published_score_s().value() == Approx(31.0 * 1.025 * 60).margin(1e-9));
  CHECK(e.mean_epochs_to_converge == 3.0);
  CHECK(e.mean_samples_to_converge == 3.0 * 1170301);
  CHECK(imported.skipped_benchmark_folders == 1);
}

TEST_CASE("config::read_mlperf_scaling_json and read_scores_table_scaling refuse what is not a factor, located",
          "[config]")
{
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("gpuscale-scaling-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };
  CHECK(config::read_mlperf_scaling_json(write("ok.json", "{\"scaling_factor\": 1.1}")) == 1.1);
  const std::string below = write("below.json", "{\n  \"scaling_factor\": 0.9\n}");
  CHECK_THROWS_WITH(config::read_mlperf_scaling_json(below),
                    below + ":2:21: error: /scaling_factor: expected a number in [1, 2] (the factor MLCommons "
                            "multiplies the score by)");
  const std::string text = write("text.json", "{\"scaling_factor\": \"fast\"}");
  CHECK_THROWS_WITH(config::read_mlperf_scaling_json(text), Catch::StartsWith(text + ":1:20: error: /scaling_factor:"));
  const std::string missing = write("missing.json", "{\"factor\": 1.1}");
  CHECK_THROWS_WITH(config::read_mlperf_scaling_json(missing), Catch::StartsWith(missing + ":1:1: error:"));

  const std::string table = write("t.csv", "round,submitter,system,benchmark,rcp_scaling_factor\n"
                                           "v4.0,A,\"x, y\",bert,1.02\n"
                                           "v4.0,A,z,bert,\n"
                                           "v4.0,A,w,bert,0.5\n"
                                           "v4.0,A,v,bert\n");
  try {
    (void)config::read_scores_table_scaling(table);
    FAIL("no ConfigError");
  } catch (const config::ConfigError& e) {
    CHECK(std::string(e.what()) == table + ":4:15: error: rcp_scaling_factor: expected empty or a number in [1, 2], "
                                           "got '0.5'\n" + table + ":5:1: error: 4 fields where the header has 5");
  }
  const std::string good = write("good.csv", "round,submitter,system,benchmark,rcp_scaling_factor\r\n"
                                             "v4.0,A,\"x, y\",bert,1.02\r\nv4.0,A,z,bert,\r\n");
  const auto factors = config::read_scores_table_scaling(good);
  CHECK(factors.size() == 2);
  CHECK(factors.at("v4.0/A/x, y/bert") == 1.02);
  CHECK(factors.at("v4.0/A/z/bert") == 1.0);
  const std::string no_column = write("no.csv", "round,submitter,system,benchmark\n");
  CHECK_THROWS_WITH(config::read_scores_table_scaling(no_column),
                    no_column + ":1:1: error: no column 'rcp_scaling_factor' in the header");
  fs::remove_all(dir);
}

TEST_CASE("config::read_mlperf_repository reports a loop of symbolic links and a dangling link, and goes on",
          "[config]")
{
  namespace fs = std::filesystem;
  const fs::path copy = fs::temp_directory_path() / ("gpuscale-import-links-" + std::to_string(::getpid()));
  fs::remove_all(copy);
  fs::create_directories(copy);
  fs::copy(kData + "/results", copy / "results", fs::copy_options::recursive);
  fs::copy(kData + "/systems", copy / "systems", fs::copy_options::recursive);
  fs::create_directory_symlink("loop", copy / "results/v9.9/loop");
  fs::create_symlink("absent.txt", copy / "results/v9.9/Acme__box8/bert/result_9.txt");
  const auto imported = config::read_mlperf_repository(copy.string());
  std::string problems;
  for (const auto& p : imported.problems)
    problems += p + "\n";
  fs::remove_all(copy);
  CHECK(imported.entries.size() == 2); // the readable entries are all there
  CHECK_THAT(problems, Catch::Contains("results/v9.9/loop: a loop of symbolic links; skipped"));
  CHECK_THAT(problems, Catch::Contains("Acme__box8/bert/result_9.txt: a symbolic link whose target cannot be read"));
}

TEST_CASE("config::read_mlperf_repository rejects a folder of neither layout", "[config]")
{
  CHECK_THROWS_WITH(config::read_mlperf_repository(kData + "/systems"),
                    Catch::Contains("not an MLPerf Training results folder"));
}

TEST_CASE("config::read_mlperf_system reports a count that is not a number, located", "[config]")
{
  const std::string path = kData + "/invalid_malformed.json";
  CHECK_THROWS_WITH(config::read_mlperf_system(path), Catch::Contains(path + ":"));
  const std::string text = "{\"number_of_nodes\": \"two\", \"accelerators_per_node\": \"8\", "
                           "\"accelerator_model_name\": \"x\"}";
  CHECK_THROWS_WITH(config::read_mlperf_system_text(text, "s.json"),
                    "s.json:1:21: error: /number_of_nodes: expected a whole number >= 1 (as a string, e.g. \"8\"), got "
                    "'two'");
}

namespace {

/// The rows of a CSV file with a header, each a map from column name to field.
std::vector<std::map<std::string, std::string>> csv_rows(const std::string& path)
{
  std::ifstream csv(path);
  std::string line;
  std::getline(csv, line);
  const auto header = csv_fields(line);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(csv, line)) {
    const auto fields = csv_fields(line);
    auto& row = rows.emplace_back();
    for (std::size_t i = 0; i < header.size() && i < fields.size(); ++i)
      row[header[i]] = fields[i];
  }
  return rows;
}

/// The system descriptions the import refuses (reported in its problems, their entries skipped) although
/// the table has rows for them: Dell's v5.0 1xXE9680Lx8H200-SXM-141GB JSON repeats five accelerator keys,
/// three with different values (shared/mlperf/README.md), and gpuscale's JSON reader refuses a key given
/// twice rather than guess which one counts.
bool system_refused(const config::MlperfImport& imported, const std::string& round, const std::string& submitter,
                    const std::string& system)
{
  const std::string json = "systems/" + round + "/" + submitter + "__" + system + ".json";
  return std::any_of(imported.problems.begin(), imported.problems.end(),
                     [&](const std::string& p) { return p.find(json) != std::string::npos; });
}

/// Whether `got` is within `relative` of `want` (and `absolute`, for figures the table rounds).
bool near(double got, double want, double relative, double absolute = 0)
{
  return std::abs(got - want) <= relative * std::abs(want) + absolute;
}

} // namespace

TEST_CASE("config::read_mlperf_repository agrees with scores_calibration.csv on every row", "[config][mlperf]")
{
  const auto dir = test::mlperf_dir();
  if (!dir)
    return;
  const auto imported = config::read_mlperf_repository(*dir);
  auto by_key = entries_by_key(imported);
  const auto rows = csv_rows(*dir + "/scores_calibration.csv");
  // Every disagreement, one line each, so that a failure lists them all.
  std::string mismatches, refused;
  auto compare = [&](const std::string& key, const std::string& what, double got, double want, bool same) {
    if (!same)
      mismatches += key + " " + what + ": import " + std::to_string(got) + ", table " + std::to_string(want) + "\n";
  };
  for (const auto& f : rows) {
    const std::string key =
        model::mlperf_entry_key(f.at("round"), f.at("submitter"), f.at("system"), f.at("benchmark"));
    if (!by_key.contains(key)) {
      if (system_refused(imported, f.at("round"), f.at("submitter"), f.at("system")))
        refused += key + "\n";
      else
        mismatches += key + ": not imported\n";
      continue;
    }
    const auto& e = *by_key[key];
    auto number = [&](const char* column) { return std::stod(f.at(column)); };
    compare(key, "global_batch_size", e.global_batch_size, number("global_batch_size"),
            e.global_batch_size == number("global_batch_size"));
    compare(key, "n_runs", static_cast<double>(e.runs.size()), number("n_runs"),
            static_cast<double>(e.runs.size()) == number("n_runs"));
    compare(key, "n_converged", e.n_converged, number("n_converged"), e.n_converged == number("n_converged"));
    if (!e.score_s) {
      mismatches += key + ": no score\n";
      continue;
    }
    // The table gives 4 decimals of a minute; the figures agree to 1e-4 relative.
    compare(key, "score_minutes", *e.score_s / 60, number("score_minutes"),
            near(*e.score_s / 60, number("score_minutes"), 1e-4, 5e-5));
    compare(key, "score_minutes_scaled", *e.published_score_s() / 60, number("score_minutes_scaled"),
            near(*e.published_score_s() / 60, number("score_minutes_scaled"), 1e-4, 5e-5));
    compare(key, "mean_samples_to_converge", e.mean_samples_to_converge, number("mean_samples_to_converge"),
            near(e.mean_samples_to_converge, number("mean_samples_to_converge"), 1e-6, 0.06));
    compare(key, "mean_throughput_samples_per_s", e.mean_throughput_samples_per_s,
            number("mean_throughput_samples_per_s"),
            near(e.mean_throughput_samples_per_s, number("mean_throughput_samples_per_s"), 1e-4, 5e-4));
  }
  CHECK(mismatches == "");
  CHECK(refused == "v5.0/Dell/1xXE9680Lx8H200-SXM-141GB/llama2_70b_lora\n"
                   "v5.0/Dell/1xXE9680Lx8H200-SXM-141GB/retinanet\n"
                   "v5.0/Dell/1xXE9680Lx8H200-SXM-141GB/stable_diffusion\n");
  CHECK(rows.size() == 359);
  CHECK(by_key.size() == 356);
}

TEST_CASE("config::read_mlperf_repository takes as valid exactly the runs runs_calibration.csv marks success",
          "[config][mlperf]")
{
  const auto dir = test::mlperf_dir();
  if (!dir)
    return;
  const auto imported = config::read_mlperf_repository(*dir);
  std::map<std::string, const model::MlperfRun*> runs; // by key/file name
  for (const auto& e : imported.entries)
    for (const auto& run : e.runs)
      runs[e.key() + "/" + std::filesystem::path(run.file).filename().string()] = &run;
  // Among the others: aborted runs, runs without run_stop and the compliance checker's rejections
  // (success_but_noncompliant); none of them is a run the physical minimum rejects.
  std::string mismatches;
  std::size_t rows = 0;
  for (const auto& f : csv_rows(*dir + "/runs_calibration.csv")) {
    ++rows;
    const std::string key =
        model::mlperf_entry_key(f.at("round"), f.at("submitter"), f.at("system"), f.at("benchmark")) + "/" +
        f.at("result_file");
    const auto it = runs.find(key);
    if (it == runs.end()) {
      if (!system_refused(imported, f.at("round"), f.at("submitter"), f.at("system")))
        mismatches += key + ": not imported\n";
      continue;
    }
    const bool success = f.at("status") == "success";
    if (it->second->valid() != success)
      mismatches += key + ": table " + f.at("status") + ", import " + model::to_string(it->second->status) + " (" +
                    it->second->problem + ")\n";
  }
  CHECK(mismatches == "");
  CHECK(rows == 2735);
  CHECK(runs.size() == 2710); // the 25 logs of the refused Dell system description left out
}

TEST_CASE("the MLPerf logs' training rates agree with the rates read by hand and with each run's own average",
          "[config][mlperf]")
{
  const auto dir = test::mlperf_dir();
  if (!dir)
    return;
  const auto imported = config::read_mlperf_repository(*dir);
  auto by_key = entries_by_key(imported);
  // Read by hand from one log each (result_0 or the first file): Dell's 8x H100 Llama 2 LoRA trains
  // 384 samples per block of 177.2 s; its RetinaNet epochs take 508-517 s (1,170,301 images); NVIDIA's
  // Stable Diffusion blocks of 25,600 samples take 23.1-23.3 s; Juniper's DeepSpeed Llama 2 blocks
  // 384 samples in 704-725 s (its block_start counts steps).
  const std::vector<std::pair<std::string, double>> by_hand{
      {"v4.1/Dell/XE9680x8H100-SXM-80GB/llama2_70b_lora", 384.0 / 177.2},
      {"v4.1/Dell/XE9680x8H100-SXM-80GB/retinanet", 1170301.0 / 512.0},
      {"v4.1/NVIDIA/eos_ngc24.09_nemo/stable_diffusion", 25600.0 / 23.25},
      {"v4.0/JuniperNetworks/h100_n1_ngc24.1_pytorch_deepspeed/llama2_70b_lora", 384.0 / 712.0}};
  for (const auto& [key, rate] : by_hand) {
    INFO(key);
    REQUIRE(by_key.contains(key));
    REQUIRE(by_key[key]->median_training_rate_samples_per_s.has_value());
    CHECK(*by_key[key]->median_training_rate_samples_per_s == Approx(rate).epsilon(0.015));
  }
  // Every valid run's rate lies between its average over the whole run (evaluations, start and
  // warm-up only slow it) and 2.1 times it, where its log shows one. The largest ratios in the data:
  // Google's v5.0 8x H200 Stable Diffusion result_5, 2.08 (its blocks log 25,600 samples per 5 s, its
  // other runs train slower), tinycorp's v5.0 tinybox RetinaNet, 1.8 (tinygrad's evaluation is slow
  // against its training), Llama 2 on 1,024 GPUs, 1.6 (11 evaluations and 8-16 s of warm-up in an
  // 80-s run).
  int rated = 0, runs = 0;
  for (const auto& e : imported.entries)
    for (const auto& run : e.runs) {
      if (!run.valid())
        continue;
      ++runs;
      if (run.training_rate_samples_per_s <= 0)
        continue;
      ++rated;
      INFO(e.key() << " " << run.file);
      const double average = run.samples_processed / run.run_s();
      // The lower bound from the samples the run surely trained by run_stop, its samples to converge:
      // Stable Diffusion's samples processed are the largest checkpoint evaluated, which Google's v4.1
      // TPU logs trained after the run_stop they date back to the converged checkpoint.
      CHECK(run.training_rate_samples_per_s >= 0.9 * run.samples_to_converge / run.run_s());
      CHECK(run.training_rate_samples_per_s <= 2.1 * average);
    }
  CHECK(rated >= 0.95 * runs);
}
