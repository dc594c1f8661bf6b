#pragma once
/// The calibration's parameters and the surrogate that predicts a result's time to train for any
/// parameter values from its one reference simulation (docs/CALIBRATION.md):
///
///   e_c = min(1, compute[b] x generation[g] x m),  e_m = memory[b] x m,
///   m = 1 - (1 - maturity[at_launch.b]) maturity[gap_kept_per_year]^age, the age of benchmark b on
///       generation g at the case's software date d (SoftwareMaturity.hpp)
///   busy   = StepWork::busy_time_s(e_c, e_m)                                  exact (roofline kernels)
///   exposed = max(E0 r, K0 r - (K0 - E0) busy / busy0)                         communication: r = 1
///             for links measured by nccl-tests (held), f0 / f for a fitted scale-up link class;
///             what compute hid at the reference shrinks and grows with compute
///   step   = max(busy + exposed + (step0 - busy0 - E0 - o0) + step_overhead[b], host limit)
///   time   = step x (training + evaluation seconds per step second) x k + table overhead + overhead[b]
///   k      = samples trained over the convergence table's: the result's own in the fit (ConvergenceBasis
///            Runs), the training results' median (ConvergenceFactors.hpp) in a prediction
///
/// Exact at the reference efficiencies; away from them only the overlap of communication with
/// compute is approximated (re-simulation measures the difference).

#include "analysis/calibration/CalibrationCase.hpp"

#include "sim/model/Calibration.hpp"

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace gpuscale::analysis {

/// The free parameters, in the optimiser's coordinates: log(value) for efficiencies and factors,
/// minutes for run overheads (a coordinate scaled for the optimiser, so that its initial step and
/// tolerances are of the same order as the others'; the value it stands for is seconds), seconds for
/// step overheads.
class ParameterSpace {
public:
  enum class Group { Compute, Generation, Memory, Network, Overhead, StepOverhead, Maturity };
  struct Parameter {
    std::string name; ///< e.g. compute.bert, generation.ampere, memory.bert, network.pcie, overhead.bert,
                      ///< maturity.at_launch.bert, maturity.gap_kept_per_year
    Group group = Group::Compute;
    std::string label; ///< benchmark name, generation, link class or maturity key (at_launch.bert)
    double start = 0, lower = 0, upper = 0; ///< in optimiser coordinates
    /// The benchmark of a compute, memory, overhead or step-overhead parameter.
    std::optional<model::Benchmark> benchmark;
  };

  /// One compute efficiency, memory efficiency and overhead per benchmark, one factor per generation
  /// other than the reference (hopper), and the fraction of each scale-up link class no measurement
  /// pins (kFittedLinkClasses); the other link fractions are nccl-tests', held.
  /// With dated cases, software maturity (SoftwareMaturity.hpp): one fraction at age 0 per benchmark
  /// and one yearly gap fraction for all; the reference date is the latest software date of the cases.
  explicit ParameterSpace(const std::vector<CalibrationCase>& cases);

  /// The same parameters, with the reference date decided on the cases `use` selects alone (a
  /// validation fold's training cases): what a user fitting on them would have.
  ParameterSpace for_training(const std::vector<CalibrationCase>& cases, const std::vector<bool>& use) const;

  /// The space a prediction from `calibration` runs in: `request`'s parameters, the calibration's
  /// maturity of its benchmark when the request is dated, and the calibration's reference date.
  static ParameterSpace for_request(const CalibrationCase& request, const model::Calibration& calibration);

  /// The dated repeats among the cases `use` selects (all when empty), grouped: each group holds the
  /// indices of the results of one benchmark, accelerator family and accelerator count whose software
  /// dates span at least model::kMaturityRepeatSpanYears. Maturity is measured on them alone
  /// (CalibrationFit.hpp). None without maturity parameters.
  std::vector<std::vector<std::size_t>> repeat_groups(const std::vector<CalibrationCase>& cases,
                                                      const std::vector<bool>& use = {}) const;

  /// d_ref as a decimal year (0: undated cases, no maturity).
  double reference_year() const { return reference_year_; }
  /// Whether the space has maturity parameters.
  bool has_maturity() const { return reference_year_ > 0; }
  /// The case's software age (SoftwareMaturity.hpp) at its own date, or at the reference date when undated.
  double software_age_years(const CalibrationCase& c) const;

  const std::vector<Parameter>& parameters() const { return parameters_; }
  std::size_t size() const { return parameters_.size(); }
  std::vector<double> start() const;
  /// The value a parameter stands for (exp of log coordinates; overheads in seconds).
  /// Coordinates: log(value) for efficiencies and factors, minutes for run overheads, seconds for
  /// step overheads.
  double value_of(std::size_t index, const std::vector<double>& x) const;

  /// What a result's time to train is fitted and predicted at (docs/CALIBRATION.md, "Convergence as submitted").
  enum class ConvergenceBasis {
    Table, ///< the convergence table's samples, both: the fitted efficiencies absorb how far submissions converge from it
    Runs,  ///< fitted at the samples each result's runs trained; predicted at the table's times the
           ///< training results' median ratio to it (convergence_factor)
  };
  ConvergenceBasis convergence_basis() const { return basis_; }
  /// The same parameters with the convergence factors measured on the cases `use` selects (all when empty).
  ParameterSpace with_convergence_basis(ConvergenceBasis basis, const std::vector<CalibrationCase>& cases,
                                        const std::vector<bool>& use = {}) const;
  /// The convergence factors measured on the training cases (Runs; ConvergenceFactors.hpp), else none.
  const std::vector<model::ConvergenceFactor>& convergence_factors() const { return convergence_factors_; }
  /// Predicted samples to converge over the convergence table's for `c`'s benchmark and batch size
  /// (model::convergence_factor_in): 1 without factors.
  double convergence_factor(const CalibrationCase& c) const;

  /// Surrogate time to train of `c` at parameters `x`, seconds: a prediction, converging in
  /// convergence_factor times the table's samples.
  double predict_s(const CalibrationCase& c, const std::vector<double>& x) const;
  /// The same, converging in the samples the fit compares with: the result's own (Runs) or the table's.
  double fitted_s(const CalibrationCase& c, const std::vector<double>& x) const;
  /// The same at the convergence table's samples: what re-simulating the case gives.
  double at_table_s(const CalibrationCase& c, const std::vector<double>& x) const;
  /// The efficiencies `c` runs at under `x`.
  model::Efficiency efficiency(const CalibrationCase& c, const std::vector<double>& x) const;
  double overhead_s(model::Benchmark benchmark, const std::vector<double>& x) const;
  /// The case's communication time over its reference's: reference fraction / fitted fraction of its
  /// scale-up links when their class is fitted, else 1.
  double communication_ratio(const CalibrationCase& c, const std::vector<double>& x) const;
  /// Index of the parameter `name`, or -1.
  int index_of(const std::string& name) const;

private:
  std::vector<Parameter> parameters_;
  double reference_year_ = 0;
  ConvergenceBasis basis_ = ConvergenceBasis::Table;
  std::vector<model::ConvergenceFactor> convergence_factors_; ///< Runs only
};

/// "runs", "table".
std::string to_string(ParameterSpace::ConvergenceBasis basis);
/// Every basis, Runs first (the default).
std::vector<ParameterSpace::ConvergenceBasis> all_convergence_bases();

/// The surrogate for given efficiencies and overhead (seconds): the formula above, communication
/// scaled by `communication_ratio` (ParameterSpace::communication_ratio) and the training and
/// evaluation steps by `convergence_factor` (samples trained over the convergence table's); seconds.
double surrogate_s(const CalibrationCase& c, const model::Efficiency& efficiency, double overhead_s,
                   double communication_ratio = 1.0, double convergence_factor = 1.0);

} // namespace gpuscale::analysis
