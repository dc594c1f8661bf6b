#include "sim/config/MlperfLogReader.hpp"

#include "sim/config/PrintableText.hpp"
#include "sim/config/YamlFile.hpp"
#include "sim/model/Benchmark.hpp"
#include "sim/model/MlperfScore.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <vector>

namespace gpuscale::config {
namespace {

constexpr std::string_view kMarker = ":::MLLOG";
/// An epoch whose epoch_stop comes this close to run_stop, or after it, may have been cut short: runs
/// that evaluate beside training (RetinaNet) stop inside the epoch after the one that converged.
constexpr double kCutEpochMs = 1000;
/// Evaluations, the start and the warm-up hold a run's average below its training rate, by up to about
/// 1.5x in the data (Llama 2 on 1,024 GPUs); a rate more than this above the average is not believed.
constexpr double kMaxRateOverAverage = 3.0;
/// The closed division's limit on initialisation, init_start to init_stop: 30 minutes (MLPerf Training
/// rules; mlperf_logging's compliance checker rejects a closed-division log that exceeds it).
constexpr double kMaxInitMs = 30 * 60 * 1000.0;
/// The least time one optimizer step can take. A step is a forward pass, a backward pass, a gradient
/// reduction over all accelerators and an update, one after the other, and the next step needs this
/// one's weights, so no system runs steps faster than this however many accelerators it has (more
/// accelerators make the batch larger, not the steps fewer). The fastest steps in the data
/// (shared/mlperf/runs_calibration.csv, run time / (samples / global batch size), evaluations
/// included) are 6.3 ms (ResNet-50 on 2,528 H100, v4.0), 11 ms (RetinaNet, 2,528 H100), 27 ms
/// (Stable Diffusion, 512 GB200), 37 ms (BERT, 512 GB200) and 263 ms (Llama 2 LoRA); 0.5 ms is 12
/// times below the fastest, so no real run comes near it, and a run faster than it did not train
/// the samples its log claims (a log converging in milliseconds).
constexpr double kMinStepMs = 0.5;

/// Where an evaluation began and the training counter it was logged at (samples or epochs).
struct EvaluationStart {
  double time_ms = 0;
  double counter = 0;
  double stop_ms = 0; ///< its eval_stop; 0 until logged
};

struct Evaluation {
  double value = 0;
  std::optional<double> epoch_num;
  std::optional<double> samples_count;
  std::string metric;
};

std::optional<double> number_of(const YAML::Node& node)
{
  double value = 0;
  if (!node.IsDefined() || !node.IsScalar() || !YAML::convert<double>::decode(node, value) || !std::isfinite(value))
    return std::nullopt;
  return value;
}

/// The number `metadata` (an event's metadata map) gives under `key`, if any.
std::optional<double> metadata_number(const YAML::Node& metadata, const char* key)
{
  return metadata.IsMap() ? number_of(metadata[key]) : std::nullopt;
}

/// `value` with `digits` decimals, for messages.
std::string fixed(double value, int digits)
{
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(digits);
  out << value;
  return out.str();
}

/// A string value of a log, made printable where it is read: every one can reach a terminal (a run's
/// status in a problem line, the benchmark a log names) and the import's tables.
std::string text_of(const YAML::Node& node)
{
  return node.IsDefined() && node.IsScalar() ? printable(node.Scalar()) : std::string();
}

/// Collects the events of one log and turns them into a run.
class LogParser {
public:
  LogParser(std::string display_name, std::string benchmark)
      : name_(std::move(display_name)), benchmark_(std::move(benchmark)),
        epoch_samples_(mlperf_epoch_samples(benchmark_))
  {
    run_.file = name_;
  }

  void line(std::string_view text, int number)
  {
    const auto at = text.find(kMarker);
    if (at == std::string_view::npos)
      return;
    const std::string json(text.substr(at + kMarker.size()));
    YAML::Node event;
    try {
      event = YAML::Load(json);
    } catch (const YAML::Exception& e) {
      fail(model::MlperfRunStatus::Unparsable, number, "MLLOG line is not valid JSON (" + e.msg + ")");
      return;
    }
    const std::optional<double> time = event.IsMap() ? number_of(event["time_ms"]) : std::nullopt;
    const std::string key = event.IsMap() ? text_of(event["key"]) : "";
    if (!time.has_value() || key.empty()) {
      fail(model::MlperfRunStatus::Unparsable, number, "MLLOG line without a numeric time_ms and a key");
      return;
    }
    const double time_ms = time.value_or(0.0);
    const YAML::Node value = event["value"];
    const YAML::Node metadata = event["metadata"];
    if (key == "init_start") {
      // Some implementations log init_start once per rank: initialisation begins at the earliest.
      if (!init_start_ms_ || time_ms < *init_start_ms_)
        init_start_ms_ = time_ms;
    } else if (key == "init_stop" && !init_stop_ms_) {
      init_stop_ms_ = time_ms;
      init_stop_line_ = number;
    } else if (key == "run_start" && !run_start_) {
      run_start_ = time_ms;
      run_start_line_ = number;
    } else if (key == "run_stop" && !run_stop_) {
      run_stop_ = time_ms;
      run_stop_status_ = metadata.IsMap() ? text_of(metadata["status"]) : "";
      run_stop_line_ = number;
    } else if (key == "epoch_start" || key == "block_start") {
      if (run_.first_block_ms == 0)
        run_.first_block_ms = time_ms;
      if (!eval_starts_.empty() && eval_starts_.back().stop_ms == 0)
        evaluation_beside_training_ = true;
      if (key == "epoch_start")
        epoch_start_ms_ = time_ms;
      else
        block_start_ = OpenBlock{time_ms, metadata_number(metadata, "samples_count")};
    } else if (key == "epoch_stop" && epoch_start_ms_) {
      if (epoch_samples_)
        epochs_.push_back({*epoch_start_ms_, time_ms, *epoch_samples_});
      epoch_start_ms_.reset();
    } else if (key == "block_stop") {
      // The samples of a block are its stop counter minus the previous block's: some logs count the
      // block_start in steps and the block_stop in samples (Juniper's and Habana's Llama 2 runs, whose
      // first block_stop has no block_start).
      const auto stop_samples = metadata_number(metadata, "samples_count");
      if (stop_samples && block_start_) {
        const double before = last_block_samples_ ? *last_block_samples_ : block_start_->samples.value_or(0.0);
        blocks_.push_back({block_start_->time_ms, time_ms, *stop_samples - before});
      }
      if (stop_samples)
        last_block_samples_ = stop_samples;
      block_start_.reset();
    } else if (key == "eval_start") {
      // Samples (Llama 2, Stable Diffusion; BERT's epoch_num) or epochs.
      std::optional<double> counter = metadata_number(metadata, "samples_count");
      if (!counter)
        counter = metadata_number(metadata, "epoch_num");
      if (counter)
        eval_starts_.push_back({time_ms, *counter, 0});
    } else if (key == "eval_stop") {
      if (!eval_starts_.empty() && eval_starts_.back().stop_ms == 0)
        eval_starts_.back().stop_ms = time_ms;
    } else if (key == "global_batch_size" && run_.global_batch_size == 0) {
      if (auto gbs = number_of(value); gbs && *gbs > 0 && *gbs < 1e9)
        run_.global_batch_size = static_cast<int>(*gbs);
    } else if (key == "gradient_accumulation_steps" && run_.gradient_accumulation_steps == 0) {
      if (auto steps = number_of(value); steps && *steps >= 1 && *steps < 1e6)
        run_.gradient_accumulation_steps = static_cast<int>(*steps);
    } else if (key == "submission_org")
      run_.submission_org = text_of(value);
    else if (key == "submission_platform")
      run_.submission_platform = text_of(value);
    else if (key == "submission_benchmark") {
      run_.submission_benchmark = text_of(value);
      submission_benchmark_line_ = number;
    } else if (key == "submission_division")
      submission_division_ = text_of(value);
    else if (key == "seed" && run_.seed == 0)
      run_.seed = number_of(value).value_or(0);
    else if (key == "eval_accuracy") {
      Evaluation evaluation;
      evaluation.value = number_of(value).value_or(NAN);
      evaluation.epoch_num = metadata_number(metadata, "epoch_num");
      evaluation.samples_count = metadata_number(metadata, "samples_count");
      if (metadata.IsMap())
        evaluation.metric = text_of(metadata["metric"]);
      evaluations_.push_back(evaluation);
    }
  }

  model::MlperfRun finish()
  {
    if (run_start_)
      run_.run_start_ms = *run_start_;
    if (run_stop_)
      run_.run_stop_ms = *run_stop_;
    check_benchmark();
    if (!run_start_)
      fail(model::MlperfRunStatus::Incomplete, 0, "no run_start");
    else if (!run_stop_)
      fail(model::MlperfRunStatus::NoRunStop, 0, "no run_stop: the run did not finish");
    else if (run_stop_status_ != "success")
      fail(model::MlperfRunStatus::Aborted, run_stop_line_,
           "run_stop status '" + run_stop_status_ + "': the run did not reach the quality target");
    else if (!init_start_ms_)
      fail(model::MlperfRunStatus::Incomplete, 0, "no init_start (the MLPerf compliance checker requires one)");
    else if (run_.global_batch_size == 0)
      fail(model::MlperfRunStatus::Incomplete, 0, "no global_batch_size");
    else if (*run_stop_ < *run_start_)
      fail(model::MlperfRunStatus::Incomplete, run_stop_line_, "run_stop before run_start");
    check_initialisation();
    convergence();
    check_plausible();
    if (run_.valid()) {
      const double rate = model::steady_training_rate(training_intervals());
      // A rate far above the run's own average is a log whose counters are not the samples it trained.
      const double average = run_.run_s() > 0 ? run_.samples_processed / run_.run_s() : 0.0;
      if (average > 0 && rate <= kMaxRateOverAverage * average)
        run_.training_rate_samples_per_s = rate;
    }
    return run_;
  }

private:
  /// The first problem decides the status; later ones are dropped (the run is out either way).
  void fail(model::MlperfRunStatus status, int line, const std::string& message)
  {
    if (run_.status != model::MlperfRunStatus::Success)
      return;
    run_.status = status;
    run_.problem = name_ + (line > 0 ? ":" + std::to_string(line) : "") + ": " + message;
  }

  /// A log whose submission_benchmark names another benchmark than the one it is read as (its folder)
  /// would be scored as that benchmark; ssd and retinanet are one benchmark (parse_benchmark). A log
  /// that does not say is read as its folder's.
  void check_benchmark()
  {
    if (benchmark_.empty() || run_.submission_benchmark.empty())
      return;
    const auto logged = model::parse_benchmark(run_.submission_benchmark);
    if (logged != model::parse_benchmark(benchmark_))
      fail(model::MlperfRunStatus::Inconsistent, submission_benchmark_line_,
           "submission_benchmark '" + run_.submission_benchmark + "' is not " + benchmark_ +
               ", the benchmark the log is read as (its folder)");
  }

  /// The closed division's initialisation limit, as mlperf_logging's compliance checker applies it
  /// (init_stop minus the earliest init_start). A log without init_stop is not judged by it.
  void check_initialisation()
  {
    if (!init_start_ms_ || !init_stop_ms_ || submission_division_ == "open")
      return;
    const double init_ms = *init_stop_ms_ - *init_start_ms_;
    if (init_ms > kMaxInitMs)
      fail(model::MlperfRunStatus::Noncompliant, init_stop_line_,
           "initialisation took " + fixed(init_ms / 60000.0, 2) +
               " min (init_start to init_stop), more than the 30 min the closed division allows");
  }

  /// A run shorter than kMinStepMs per optimizer step it claims to have taken to converge.
  void check_plausible()
  {
    if (!run_.valid())
      return;
    const double steps = run_.samples_to_converge / run_.global_batch_size;
    const double least_s = steps * kMinStepMs / 1000.0;
    if (run_.run_s() < least_s)
      fail(model::MlperfRunStatus::Implausible, run_stop_line_,
           "converged in " + fixed(run_.run_s(), 3) + " s, less than the " + fixed(least_s, 3) + " s its " +
               fixed(steps, 0) + " optimizer steps (samples to converge / global batch size) take at " +
               fixed(kMinStepMs, 1) + " ms each, the least any system needs");
  }

  void convergence()
  {
    if (evaluations_.empty()) {
      fail(model::MlperfRunStatus::Incomplete, 0, "no eval_accuracy: samples to converge unknown");
      return;
    }
    const Evaluation& last = evaluations_.back();
    if (benchmark_ == "bert") {
      run_.samples_processed = last.epoch_num.value_or(0);
      run_.samples_to_converge = run_.samples_processed;
    } else if (benchmark_ == "llama2_70b_lora") {
      run_.samples_processed = last.samples_count.value_or(0);
      run_.samples_to_converge = run_.samples_processed;
    } else if (benchmark_ == "stable_diffusion") {
      // v5.0 logs evaluate the saved checkpoints after training, newest first: the samples trained are
      // the largest samples_count evaluated, not the last one logged.
      for (const auto& e : evaluations_)
        run_.samples_processed = std::max(run_.samples_processed, e.samples_count.value_or(0));
      run_.samples_to_converge = stable_diffusion_target();
    } else if (epoch_samples_) {
      run_.epochs_to_converge = last.epoch_num.value_or(0);
      run_.samples_to_converge = run_.epochs_to_converge * *epoch_samples_;
      run_.samples_processed = run_.samples_to_converge;
    }
    if (run_.valid() && run_.samples_to_converge <= 0)
      fail(model::MlperfRunStatus::Incomplete, 0, "evaluations do not show the samples to converge");
  }

  /// The stretches the run trained in, between points where its log's clock and the GPUs agree:
  /// - blocks whose block_stop gives samples_count (Llama 2, Stable Diffusion), each block's samples
  ///   the difference of consecutive block_stop counters;
  /// - else, where evaluation stops training (BERT, MXNet's ResNet), from each eval_stop to the next
  ///   eval_start, the samples between their counters (epochs x the training-set size for ResNet). Not
  ///   the epochs of such a log: at scale its epoch_stop is logged when the host has queued the epoch,
  ///   seconds before the GPUs finish it (NVIDIA's 512-GPU ResNet: four "epochs" of 0.2 s, then 1.9 s
  ///   to the evaluation);
  /// - else, where evaluation runs beside training (RetinaNet: an epoch_start inside an evaluation),
  ///   whole epochs, the one run_stop cuts short left out.
  /// Only what happens inside the timed run counts: a block that starts after run_stop, or an evaluation
  /// that starts after it (v5.0 Stable Diffusion evaluates its checkpoints then), is not the run's.
  std::vector<model::TrainingInterval> training_intervals() const
  {
    std::vector<model::TrainingInterval> blocks;
    for (const auto& b : blocks_)
      if (b.start_ms < run_.run_stop_ms)
        blocks.push_back(b);
    if (blocks.size() >= 2)
      return blocks;
    std::vector<EvaluationStart> eval_starts;
    for (const auto& e : eval_starts_)
      if (e.time_ms < run_.run_stop_ms)
        eval_starts.push_back(e);
    if (!evaluation_beside_training_ && eval_starts.size() >= 2) {
      std::vector<model::TrainingInterval> stretches;
      const double scale = epoch_samples_.value_or(1.0);
      double start_ms = run_.first_block_ms > 0 ? run_.first_block_ms : run_.run_start_ms;
      double counter = 0;
      for (const auto& e : eval_starts) {
        stretches.push_back({start_ms, e.time_ms, (e.counter - counter) * scale});
        if (e.stop_ms == 0)
          break; // an evaluation without its stop: what follows is not training alone
        start_ms = e.stop_ms;
        counter = e.counter;
      }
      return stretches;
    }
    std::vector<model::TrainingInterval> epochs;
    for (const auto& e : epochs_)
      if (e.stop_ms < run_.run_stop_ms - kCutEpochMs)
        epochs.push_back(e);
    return epochs;
  }

  /// Stable Diffusion's target: FID <= 90 and CLIP >= 0.15 at the same evaluation (MLPerf rules).
  double stable_diffusion_target() const
  {
    std::map<double, std::pair<double, double>> by_samples; // samples -> (FID, CLIP)
    for (const auto& e : evaluations_) {
      if (!e.samples_count)
        continue;
      auto [it, inserted] = by_samples.try_emplace(*e.samples_count, NAN, NAN);
      (e.metric == "FID" ? it->second.first : it->second.second) = e.value;
    }
    for (const auto& [samples, metrics] : by_samples)
      if (metrics.first <= 90.0 && metrics.second >= 0.15)
        return samples;
    return 0;
  }

  std::string name_;
  std::string benchmark_;
  std::optional<double> epoch_samples_; ///< training-set size of the benchmarks that count epochs
  model::MlperfRun run_;
  std::optional<double> init_start_ms_; ///< the earliest init_start
  std::optional<double> init_stop_ms_;  ///< the first init_stop
  int init_stop_line_ = 0;
  int submission_benchmark_line_ = 0;
  std::string submission_division_;
  std::optional<double> run_start_;
  std::optional<double> run_stop_;
  std::string run_stop_status_;
  int run_start_line_ = 0;
  int run_stop_line_ = 0;
  std::vector<Evaluation> evaluations_;
  std::optional<double> epoch_start_ms_;
  struct OpenBlock {
    double time_ms = 0;
    std::optional<double> samples; ///< its samples_count, when logged
  };
  std::optional<OpenBlock> block_start_;
  std::optional<double> last_block_samples_;            ///< samples_count of the last block_stop
  std::vector<model::TrainingInterval> epochs_;          ///< the training-set size each
  std::vector<model::TrainingInterval> blocks_;
  std::vector<EvaluationStart> eval_starts_;
  bool evaluation_beside_training_ = false; ///< training started while an evaluation was open
};

} // namespace

std::optional<double> mlperf_epoch_samples(std::string_view benchmark)
{
  if (benchmark == "resnet")
    return 1281167.0;
  if (benchmark == "retinanet")
    return 1170301.0;
  return std::nullopt;
}

model::MlperfRun parse_mlperf_log(const std::string& text, const std::string& display_name, const std::string& benchmark)
{
  LogParser parser(display_name, benchmark);
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line))
    parser.line(line, ++number);
  return parser.finish();
}

model::MlperfRun read_mlperf_log(const std::string& path, const std::string& benchmark)
{
  Diagnostics diagnostics;
  const auto text = read_text_file(path, diagnostics);
  if (!text) {
    model::MlperfRun run;
    run.file = path;
    run.status = model::MlperfRunStatus::Unparsable;
    run.problem = path + ": cannot read the file";
    return run;
  }
  return parse_mlperf_log(*text, path, benchmark);
}

} // namespace gpuscale::config
