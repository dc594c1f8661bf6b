#include "sim/config/MlperfLogReader.hpp"

#include "sim/config/YamlFile.hpp"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <map>
#include <sstream>
#include <vector>

namespace gpuscale::config {
namespace {

constexpr std::string_view kMarker = ":::MLLOG";

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

std::string text_of(const YAML::Node& node)
{
  return node.IsDefined() && node.IsScalar() ? node.Scalar() : std::string();
}

/// Collects the events of one log and turns them into a run.
class LogParser {
public:
  LogParser(std::string display_name, std::string benchmark)
      : name_(std::move(display_name)), benchmark_(std::move(benchmark))
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
    if (key == "init_start")
      init_start_ = true;
    else if (key == "run_start" && !run_start_) {
      run_start_ = time_ms;
      run_start_line_ = number;
    } else if (key == "run_stop" && !run_stop_) {
      run_stop_ = time_ms;
      run_stop_status_ = metadata.IsMap() ? text_of(metadata["status"]) : "";
      run_stop_line_ = number;
    } else if ((key == "block_start" || key == "epoch_start") && run_.first_block_ms == 0) {
      run_.first_block_ms = time_ms;
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
    else if (key == "submission_benchmark")
      run_.submission_benchmark = text_of(value);
    else if (key == "seed" && run_.seed == 0)
      run_.seed = number_of(value).value_or(0);
    else if (key == "eval_accuracy") {
      Evaluation evaluation;
      evaluation.value = number_of(value).value_or(NAN);
      if (metadata.IsMap()) {
        evaluation.epoch_num = number_of(metadata["epoch_num"]);
        evaluation.samples_count = number_of(metadata["samples_count"]);
        evaluation.metric = text_of(metadata["metric"]);
      }
      evaluations_.push_back(evaluation);
    }
  }

  model::MlperfRun finish()
  {
    if (run_start_)
      run_.run_start_ms = *run_start_;
    if (run_stop_)
      run_.run_stop_ms = *run_stop_;
    if (!run_start_)
      fail(model::MlperfRunStatus::Incomplete, 0, "no run_start");
    else if (!run_stop_)
      fail(model::MlperfRunStatus::NoRunStop, 0, "no run_stop: the run did not finish");
    else if (run_stop_status_ != "success")
      fail(model::MlperfRunStatus::Aborted, run_stop_line_,
           "run_stop status '" + run_stop_status_ + "': the run did not reach the quality target");
    else if (!init_start_)
      fail(model::MlperfRunStatus::Incomplete, 0, "no init_start (the MLPerf compliance checker requires one)");
    else if (run_.global_batch_size == 0)
      fail(model::MlperfRunStatus::Incomplete, 0, "no global_batch_size");
    else if (*run_stop_ < *run_start_)
      fail(model::MlperfRunStatus::Incomplete, run_stop_line_, "run_stop before run_start");
    convergence();
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

  void convergence()
  {
    if (evaluations_.empty()) {
      fail(model::MlperfRunStatus::Incomplete, 0, "no eval_accuracy: samples to converge unknown");
      return;
    }
    const Evaluation& last = evaluations_.back();
    const auto epoch_samples = mlperf_epoch_samples(benchmark_);
    if (benchmark_ == "bert") {
      run_.samples_processed = last.epoch_num.value_or(0);
      run_.samples_to_converge = run_.samples_processed;
    } else if (benchmark_ == "llama2_70b_lora") {
      run_.samples_processed = last.samples_count.value_or(0);
      run_.samples_to_converge = run_.samples_processed;
    } else if (benchmark_ == "stable_diffusion") {
      run_.samples_processed = last.samples_count.value_or(0);
      run_.samples_to_converge = stable_diffusion_target();
    } else if (epoch_samples) {
      run_.epochs_to_converge = last.epoch_num.value_or(0);
      run_.samples_to_converge = run_.epochs_to_converge * *epoch_samples;
      run_.samples_processed = run_.samples_to_converge;
    }
    if (run_.valid() && run_.samples_to_converge <= 0)
      fail(model::MlperfRunStatus::Incomplete, 0, "evaluations do not show the samples to converge");
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
  model::MlperfRun run_;
  bool init_start_ = false;
  std::optional<double> run_start_;
  std::optional<double> run_stop_;
  std::string run_stop_status_;
  int run_start_line_ = 0;
  int run_stop_line_ = 0;
  std::vector<Evaluation> evaluations_;
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
