#pragma once
/// How far a simulated result may be off, from how far the calibration was off on results it had
/// not seen (sim/model/PredictionInterval.hpp), for any result `run`, a sweep, `plan` or `predict`
/// simulates at a calibration's efficiencies:
///
///   regimes   the validation modes the request falls in, the union over the accelerator types it
///             uses (a mixed cluster is as uncertain as its least-known type)
///   step      [t exp(q_low), t exp(q_high)] from those modes' left-out residuals, widened where its
///             parameters' log-sd (the calibration's standard errors through the surrogate of its
///             step, linearised: analysis::parameter_log_slopes) exceeds the mode's results'
///   time to train  the same, widened by the convergence table's spread where the batch lies beyond
///             its measured points (its 95 % interval read as +- 1.96 sd, added in quadrature)
///
/// The residuals are of time to train: they hold the step's error and the scatter of the submitted
/// runs' convergence at measured batches, so the step's interval is the time to train's model part,
/// no narrower than the step's own error.
///
/// A ratio of two results (option A against B) has its own interval: the two errors are correlated
/// when the options share hardware and calibration parameters. Its bounds are the left-out
/// residuals' pair differences (model::ratio_log_bounds), widened by the ratio's own parameter
/// log-sd, in which parameters both share with the same slope cancel. Two identical simulations
/// have the ratio exactly [1, 1].

#include "analysis/calibration/PredictionIntervals.hpp"
#include "sim/model/Calibration.hpp"
#include "sim/model/PredictionInterval.hpp"
#include "sim/model/Scenario.hpp"
#include "sim/results/RunRecord.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpuscale::uncertainty {

/// What one simulated result's interval rests on.
struct ResultUncertainty {
  model::Benchmark benchmark = model::Benchmark::Bert;
  /// The modes it falls in, most uncertain first (reported under the first).
  std::vector<model::PredictionRegime> regimes;
  /// Parameter sensitivities of the accelerator type whose parameters spread its time most.
  analysis::ParameterLogSlopes slopes;
  double parameter_log_sd = 0;
  double years_past_data = 0; ///< > 0: its software date is after the calibration's data
  /// log bounds of actual / simulated step: model error and parameters.
  std::pair<double, double> step_log{0, 0};
  /// log-sd of samples to converge: 0 at the convergence table's points, NaN where it cannot say.
  double convergence_log_sd = 0;
  /// log bounds of actual / simulated time to train; NaN without a usable convergence interval.
  std::pair<double, double> time_to_train_log{0, 0};
  std::string accelerators;   ///< the accelerator types used, sorted, comma-separated
  int global_batch_size = 0;

  /// The mode it is reported under (`interval_regime`); "" without regimes.
  std::string regime() const;
};

/// `record` of `scenario` as the calibration's surrogate sees it on the run's first accelerator type
/// (set_node_type moves it to another): the case whose parameter slopes give the run's spread.
analysis::CalibrationCase surrogate_case(const model::Calibration& calibration, const model::ResolvedScenario& scenario,
                                         const results::RunRecord& record);

/// The uncertainty of `record`, simulated from `scenario` at `calibration`'s efficiencies. nullopt
/// with the reason in `why_not` (when given) when there is none to give: the workload models no
/// MLPerf benchmark, the scenario states its own efficiencies, the run is infeasible, or the
/// calibration holds no intervals.
std::optional<ResultUncertainty> assess(const model::Calibration& calibration, const model::ResolvedScenario& scenario,
                                        const results::RunRecord& record, std::string* why_not = nullptr);

/// Writes the interval columns of `record` from `u`: iter_time_low_s, iter_time_high_s,
/// time_to_train_low_min, time_to_train_high_min (0 without a time to train), interval_regime,
/// parameter_log_sd.
void write_interval(const ResultUncertainty& u, results::RunRecord& record);

/// Whether two rows come from the same simulation: equal in everything but their names, ids and
/// sweep coordinates.
bool same_simulation(const results::RunRecord& a, const results::RunRecord& b);

/// Which time a ratio compares.
enum class RatioMetric { Step, TimeToTrain };

/// The ratio of two results' times, first over second, with its 80 % interval.
struct TimeRatio {
  double ratio = 1, low = 1, high = 1;
  /// What the bounds come from: "identical" (the same simulation), "<pair class> pairs of <modes>"
  /// (the left-out residuals' pair differences), "independent" (the two intervals combined as
  /// independent: no pairs to judge by, or different benchmarks).
  std::string basis;
  /// Neither option is faster at 80 %: the interval holds 1 (or either bound is unknown).
  bool tie() const { return !(high < 1.0) && !(low > 1.0); }
};

/// The ratio a_s / b_s under `metric`; `identical`: the two results are one simulation (same_simulation).
TimeRatio time_ratio(const model::IntervalModel& intervals, const ResultUncertainty& a, double a_s,
                     const ResultUncertainty& b, double b_s, RatioMetric metric, bool identical);

} // namespace gpuscale::uncertainty
