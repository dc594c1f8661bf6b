#pragma once
/// Reads one MLPerf Training result log: the ":::MLLOG {json}" lines that mlperf_logging writes
/// (anything before ":::MLLOG" on a line, such as a launcher's prefix, is ignored, as are lines
/// without it). Content problems never throw: they set the run's status and its problem text
/// ("file:line: message"), so a repository import reports them and goes on.

#include "sim/model/MlperfRun.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace gpuscale::config {

/// Training-set size of the benchmarks whose logs count epochs (shared/mlperf/README.md: ImageNet
/// 1,281,167 images for resnet, OpenImages-MLPerf 1,170,301 for retinanet); nullopt for the others.
std::optional<double> mlperf_epoch_samples(std::string_view benchmark);

/// Parses `text` (the log of one run of `benchmark`, gpuscale's name) that came from `display_name`.
///
/// Samples to converge follow mlperf_logging's rcp_checker: bert = epoch_num of the last
/// eval_accuracy (BERT counts samples there); llama2_70b_lora = samples_count of the last
/// eval_accuracy; stable_diffusion = the smallest samples_count whose FID <= 90 and CLIP >= 0.15;
/// resnet, retinanet = epoch_num of the last eval_accuracy x training-set size. Samples processed (for
/// the throughput) are the same counter at the last evaluation, except stable_diffusion: the largest
/// samples_count evaluated (v5.0 evaluates its checkpoints after run_stop, newest first).
///
/// Besides an incomplete or failed log, a run is invalid when its submission_benchmark is not
/// `benchmark` (Inconsistent; ssd is retinanet), its initialisation exceeds the closed division's 30
/// minutes (Noncompliant), or it converged faster than its optimizer steps can run (Implausible).
model::MlperfRun parse_mlperf_log(const std::string& text, const std::string& display_name, const std::string& benchmark);

/// Reads and parses the file at `path`; an unreadable file becomes a run with status Unparsable.
model::MlperfRun read_mlperf_log(const std::string& path, const std::string& benchmark);

} // namespace gpuscale::config
