#pragma once
/// Efficiencies and overheads fitted to MLPerf Training results (gpuscale calibrate), as
/// calibration/mlperf.yaml stores them. docs/CALIBRATION.md says what each parameter is and why it
/// is there. A scenario without `efficiency:` runs with the committed calibration.
///
///   compute efficiency  e_c = min(1, compute[benchmark] x generation[accelerator generation])
///   memory efficiency   e_m = memory[benchmark]            (of HBM bandwidth, roofline kernels)
///   link fraction       network[link class(@generation)]  (of each link's line rate; LinkFractions)
///   collective costs    collective[fixed, simple_step]    seconds (LinkFractions)
///   step               += step_overhead[benchmark] seconds (per-step cost the step model lacks)
///   time to train      += overhead[benchmark] seconds      (per-run cost the step model lacks)
///   at software date d   e_c, e_m x m(age of the benchmark on the generation at d)  (SoftwareMaturity.hpp):
///                        compute and generation are the mature fractions, maturity[...] how far
///                        software is from them; without a date, d is the reference date

#include "sim/model/Benchmark.hpp"
#include "sim/model/Platform.hpp"
#include "sim/model/PredictionInterval.hpp"
#include "sim/model/Scenario.hpp"
#include "sim/model/SoftwareDate.hpp"
#include "sim/model/SoftwareMaturity.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpuscale::model {

/// One fitted number with what the data says about it.
struct CalibratedValue {
  double value = 0;
  double standard_error = 0; ///< 1-sigma, in the value's unit; 0 when held fixed
  int results = 0;           ///< calibration results whose prediction depends on it
  bool identified = true;    ///< false: the data cannot pin it down (see the note)
  std::string note;
};

/// One point of the global batch size MLPerf submitters use for `benchmark` against the accelerator
/// count: at `accelerators`, `global_batch_size` (the median of the calibration results on that many
/// accelerators, made non-decreasing in the count by an isotonic fit; app::batch_size_rules).
struct BatchSizePoint {
  Benchmark benchmark = Benchmark::Bert;
  int accelerators = 0;
  int global_batch_size = 0;
  int results = 0; ///< calibration results on exactly `accelerators`
};

/// How many times its convergence table's samples MLPerf submissions of `benchmark` train before
/// their score (docs/CALIBRATION.md, "Convergence as submitted"): the median, over the
/// calibration results, of each result's scored samples (its olympic runs' mean times the RCP scaling
/// factor) over the table's samples at its global batch size. Measured, not fitted: one entry per
/// benchmark (global_batch_size 0) and one per global batch size that at least
/// kConvergenceFactorMinResults results ran.
struct ConvergenceFactor {
  Benchmark benchmark = Benchmark::Bert;
  int global_batch_size = 0; ///< 0: the benchmark's, for batch sizes without an entry of their own
  double factor = 1;
  int results = 0; ///< results it is the median of
};
/// Results a global batch size needs for a convergence factor of its own.
inline constexpr int kConvergenceFactorMinResults = 3;
/// The entry of `benchmark` at `global_batch_size` among `factors`: that batch size's, else the
/// benchmark's; nullptr when there is neither.
const ConvergenceFactor* find_convergence_factor(const std::vector<ConvergenceFactor>& factors, Benchmark benchmark,
                                                 int global_batch_size);
/// Its factor, or 1 (the table's samples) without an entry.
double convergence_factor_in(const std::vector<ConvergenceFactor>& factors, Benchmark benchmark, int global_batch_size);

/// Fit and cross-validation figures stored with the parameters (for reports; not used to predict).
struct CalibrationSummary {
  int results = 0;
  double fit_median_ape_pct = 0;
  double loso_median_ape_pct = 0;
  double surrogate_max_abs_diff_pct = 0;
  std::string command;
  std::string data;
};

/// One nccl-tests log a network calibration was fitted to (gpuscale calibrate-network).
struct NetworkFitLog {
  std::string file;
  std::string op;        ///< "all_reduce", ...
  int ranks = 0;
  int hosts = 0;
  int rows = 0;          ///< rows fitted (sizes of 0 bytes are not)
  double median_ape_pct = 0; ///< median |fitted / measured - 1| of its rows' times, percent
};

/// What a network calibration was fitted to, and how well (`network_fit:` in the file).
struct NetworkFitSummary {
  std::string platform;
  int rows = 0;
  double rms_log_error = 0; ///< sqrt(mean of log(fitted / measured)^2) over every row
  int evaluations = 0;      ///< simulations of every log (one SimGrid run per log each)
  std::vector<NetworkFitLog> logs;
};

/// A group of calibrated values keyed by benchmark, or by name (generation, link class, ...).
using BenchmarkValues = std::map<Benchmark, CalibratedValue>;
using NamedValues = std::map<std::string, CalibratedValue>;

/// A group's key as the calibration file and the reports write it.
inline std::string key_text(Benchmark benchmark) { return to_string(benchmark); }
inline const std::string& key_text(const std::string& name) { return name; }

struct Calibration {
  BenchmarkValues compute;  ///< benchmark -> mature e_c on the reference generation (hopper)
  NamedValues generation;   ///< accelerator generation -> factor (hopper: 1)
  BenchmarkValues memory;   ///< benchmark -> e_m
  /// Link class (optionally @generation) or "nvls" -> usable fraction of the line rate. Measured by
  /// nccl-tests (the references, or `gpuscale calibrate-network` on a user's logs), held fixed by
  /// the fit against MLPerf: a property of the links, not of a benchmark.
  NamedValues network;
  NamedValues collective_s; ///< "fixed", "simple_step" -> seconds (LinkFractions)
  /// Modelling choices the data cannot show directly, declared with the evidence for them (1 taken,
  /// 0 not): "sharp_on_infiniband", whether MLPerf systems on InfiniBand HDR/NDR/XDR reduce in the
  /// network (no system description says).
  NamedValues choices;
  BenchmarkValues overhead_s;      ///< benchmark -> seconds added to every run
  BenchmarkValues step_overhead_s; ///< benchmark -> seconds added to every step
  /// Software maturity (SoftwareMaturity.hpp): "at_launch.<benchmark>" -> m0 in (0, 1], and
  /// "gap_kept_per_year" -> k in (0, 1]. Empty: no maturity, every date runs at the mature efficiencies.
  NamedValues maturity;
  /// d_ref: the software date a prediction without a date is for (the latest first-run date of the
  /// calibration results, or the latest round's date when they are undated); later dates are
  /// extrapolations (interval later_round).
  std::optional<SoftwareDate> software_reference_date;
  std::vector<BatchSizePoint> batch_sizes;           ///< sorted by benchmark, then accelerators (increasing)
  /// Empty: a calibration fitted at the convergence tables' samples, which predicts at them.
  std::vector<ConvergenceFactor> convergence_factors;
  CalibrationSummary summary;
  IntervalModel intervals;                           ///< left-out residuals per validation mode (prediction intervals)
  /// Present in a network calibration (gpuscale calibrate-network), which has network and collective only.
  std::optional<NetworkFitSummary> network_fit;

  /// The parameter groups in file order, with their key in calibration/mlperf.yaml and whether their
  /// values are durations: one list for the reader, the writer and the reports.
  template <class Self, class Visit>
  static void for_each_group(Self& self, Visit&& visit)
  {
    visit("compute", self.compute, false);
    visit("generation", self.generation, false);
    visit("memory", self.memory, false);
    visit("network", self.network, false);
    visit("collective", self.collective_s, true);
    visit("choices", self.choices, false);
    visit("overhead", self.overhead_s, true);
    visit("step_overhead", self.step_overhead_s, true);
    visit("maturity", self.maturity, false);
  }

  /// Efficiencies for `benchmark` on accelerators of `generation`, whose first part became available
  /// at `generation_year` (decimal year, 0 unknown: counted from the benchmark's start alone), at
  /// `software_date` (the reference date when nullopt). Unknown generation: the reference
  /// generation's factor (the caller may say so). No benchmark (a workload that is not an MLPerf
  /// benchmark), or one the calibration lacks: Efficiency's defaults.
  Efficiency efficiency_for(std::optional<Benchmark> benchmark, const std::string& generation, double generation_year,
                            std::optional<SoftwareDate> software_date = std::nullopt) const;
  /// m(age) of `benchmark` on a generation available since `generation_year` at `date` (the
  /// reference date when nullopt): the factor the mature compute and memory efficiencies are
  /// multiplied by; 1 without maturity parameters.
  double maturity_factor(Benchmark benchmark, double generation_year, std::optional<SoftwareDate> date) const;
  /// Why `date` cannot be predicted for (beyond kSoftwareDateHorizonYears after the reference date);
  /// nullopt when it can.
  std::optional<std::string> software_date_problem(SoftwareDate date) const;
  /// The link fractions and collective costs of `network` and `collective` (no what-ifs).
  LinkFractions link_fractions() const;
  /// The declared choice `name` (choices), or `otherwise` when the calibration has none.
  bool choice(const std::string& name, bool otherwise) const;
  /// Seconds added to every run of `benchmark` (0 without a benchmark or when the calibration has none).
  double overhead_s_for(std::optional<Benchmark> benchmark) const;
  /// convergence_factor_in(convergence_factors, ...).
  double convergence_factor_for(Benchmark benchmark, int global_batch_size) const
  {
    return convergence_factor_in(convergence_factors, benchmark, global_batch_size);
  }
  /// The global batch size submitters use on `accelerators`: the points of `benchmark` interpolated
  /// linearly in log(batch) against log(accelerators); beyond the first and last point, the batch per
  /// accelerator of that point (strong scaling grows the batch at most in proportion). Rounded to the
  /// nearest integer, at least 1; nullopt when the benchmark has no point.
  std::optional<int> batch_size_for(Benchmark benchmark, int accelerators) const;
};

/// The range of one group of calibrated parameters, defined once here: the fit searches inside it,
/// the calibration reader accepts a value only inside it, and a scenario's `efficiency:` block may not
/// exceed its upper bound. Every efficiency is a fraction of a datasheet figure: no kernel runs above
/// the dense peak or the HBM bandwidth, no link above its line rate. A fit that wants a bound is a
/// modelling error to find (docs/LIMITS.md, "Known limits of the model"), not a value to widen the range for.
struct ParameterRange {
  double lower = 0;
  double upper = 0;
};
inline constexpr ParameterRange kComputeRange{0.02, 1.0};    ///< compute[benchmark], and e_c itself
inline constexpr ParameterRange kGenerationRange{0.05, 1.0}; ///< generation[...]: fraction of the dense peak
inline constexpr ParameterRange kMemoryRange{0.05, 1.0};     ///< memory[benchmark]: fraction of HBM bandwidth
inline constexpr ParameterRange kNetworkRange{0.02, 1.0};    ///< network[link class]: no link above its line rate
inline constexpr ParameterRange kCollectiveCostRange_s{0.0, 1e-3}; ///< collective[fixed, simple_step], seconds
inline constexpr ParameterRange kChoiceRange{0.0, 1.0};             ///< choices[...]: 1 taken, 0 not
/// The choice that decides whether InfiniBand MLPerf systems get SHARP (Calibration::choices).
inline constexpr const char* kSharpOnInfinibandChoice = "sharp_on_infiniband";
inline constexpr ParameterRange kStepOverheadRange_s{0.0, 2.0};  ///< step_overhead[benchmark], seconds
inline constexpr ParameterRange kRunOverheadRange_s{0.0, 1800.0}; ///< overhead[benchmark], seconds
/// maturity[at_launch.*]: fraction of the mature efficiency reached at age 0; maturity[gap_kept_per_year]:
/// fraction of the gap to mature left after a year (SoftwareMaturity.hpp)
inline constexpr ParameterRange kMaturityRange{0.05, 1.0};
/// convergence_factors[...]: scored samples over the table's; a median outside it says the table is
/// not the benchmark's (a factor of 2 is a different dataset or target, not noise).
inline constexpr ParameterRange kConvergenceFactorRange{0.5, 2.0};
/// The range of the group stored under `key` in calibration/mlperf.yaml (Calibration::for_each_group).
ParameterRange parameter_range(const std::string& key);

/// Upper bound of a calibrated compute efficiency e_c = compute x generation.
inline constexpr double kMaxComputeEfficiency = kComputeRange.upper;

/// The generation whose fraction is measured, not fitted: it fixes the scale of compute[] x
/// generation[] (only their product is seen by the data).
inline constexpr const char* kReferenceGeneration = "hopper";
/// Its fraction of the dense peak that a large GEMM sustains: about 790 of 989 TFLOP/s for bf16 on an
/// H200 (shared/references/COMPUTE.md). Also the fraction of a generation without calibration results.
inline constexpr double kReferenceComputeFraction = 0.8;

} // namespace gpuscale::model
