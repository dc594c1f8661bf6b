#pragma once
/// The calibration's parameters and the surrogate that predicts a result's time to train for any
/// parameter values from its one reference simulation (docs/CALIBRATION.md):
///
///   e_c = min(1, compute[b] x generation[g]),  e_m = memory
///   busy   = StepWork::busy_time_s(e_c, e_m)                                  exact (roofline kernels)
///   exposed = max(E0 r, K0 r - (K0 - E0) busy / busy0)                         communication: r = 1
///             for links measured by nccl-tests (held), f0 / f for a fitted scale-up link class;
///             what compute hid at the reference shrinks and grows with compute
///   step   = max(busy + exposed + (step0 - busy0 - E0 - o0) + step_overhead[b], host limit)
///   time   = step x (training + evaluation seconds per step second) + table overhead + overhead[b]
///
/// Exact at the reference efficiencies; away from them only the overlap of communication with
/// compute is approximated (re-simulation measures the difference).

#include "analysis/calibration/CalibrationCase.hpp"

#include <optional>
#include <string>
#include <vector>

namespace gpuscale::analysis {

/// The free parameters, in the optimiser's coordinates: log(value) for efficiencies and factors,
/// minutes for run overheads (a coordinate scaled for the optimiser, so that its initial step and
/// tolerances are of the same order as the others'; the value it stands for is seconds), seconds for
/// step overheads.
class ParameterSpace {
public:
  enum class Group { Compute, Generation, Memory, Network, Overhead, StepOverhead };
  struct Parameter {
    std::string name; ///< e.g. compute.bert, generation.ampere, memory.bert, network.pcie, overhead.bert
    Group group = Group::Compute;
    std::string label; ///< benchmark name, generation or link class
    double start = 0, lower = 0, upper = 0; ///< in optimiser coordinates
    /// The benchmark of a compute, memory, overhead or step-overhead parameter.
    std::optional<model::Benchmark> benchmark;
  };

  /// One compute efficiency, memory efficiency and overhead per benchmark, one factor per generation
  /// other than the reference (hopper), and the fraction of each scale-up link class no measurement
  /// pins (kFittedLinkClasses); the other link fractions are nccl-tests', held.
  explicit ParameterSpace(const std::vector<CalibrationCase>& cases);

  const std::vector<Parameter>& parameters() const { return parameters_; }
  std::size_t size() const { return parameters_.size(); }
  std::vector<double> start() const;
  /// The value a parameter stands for (exp of log coordinates; overheads in seconds).
  /// Coordinates: log(value) for efficiencies and factors, minutes for run overheads, seconds for
  /// step overheads.
  double value_of(std::size_t index, const std::vector<double>& x) const;

  /// Surrogate time to train of `c` at parameters `x`, seconds.
  double predict_s(const CalibrationCase& c, const std::vector<double>& x) const;
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
};

/// The surrogate for given efficiencies and overhead (seconds): the formula above, communication
/// scaled by `communication_ratio` (ParameterSpace::communication_ratio); seconds.
double surrogate_s(const CalibrationCase& c, const model::Efficiency& efficiency, double overhead_s,
                         double communication_ratio = 1.0);

} // namespace gpuscale::analysis
