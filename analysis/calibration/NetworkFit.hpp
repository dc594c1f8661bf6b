#pragma once
/// Fits link fractions and collective costs to measured collective times (a cluster's nccl-tests
/// logs, gpuscale calibrate-network): the parameters are the usable fractions of the link classes
/// the measured collectives cross (in (0, 1] of the line rate, model::kNetworkRange) and the fixed
/// and Simple-step costs every collective pays (model::kCollectiveCostRange_s).
///
///   objective  sum over every row of every series of log(t_simulated / t_measured)^2
///   search     NLopt BOBYQA (derivative-free, bounded) in log(fraction) and microseconds
///   1-sigma    Gauss-Newton covariance sigma^2 (J^T J)^-1, J = d log t / d coordinate by central
///              differences of the simulation, sigma^2 = RSS / (rows - parameters)
///
/// The simulator is a callback: each call simulates every row of one series (one SimGrid run of one
/// log's sizes), so the fit never sees the engine. A candidate no row depends on (its perturbation
/// changes no simulated time at the start) is not fitted; one at a bound, or whose 1-sigma exceeds a
/// factor 1.65 (0.5 in log; a duration: its value), is not identified.

#include "analysis/calibration/CalibrationFit.hpp"
#include "sim/model/LinkFractions.hpp"
#include "sim/model/Platform.hpp"

#include <functional>
#include <string>
#include <vector>

namespace gpuscale::analysis {

/// One parameter the network fit may adjust.
struct NetworkParameter {
  enum class Group { Network, Collective };
  Group group = Group::Network;
  /// Network: a key of LinkFractions::fraction ("nvswitch@hopper", "nvls@hopper", "nic");
  /// Collective: "fixed" (LinkFractions::collective_fixed_s) or "simple_step" (simple_step_s).
  std::string key;

  std::string name() const { return (group == Group::Network ? "network." : "collective.") + key; }
  bool operator==(const NetworkParameter&) const = default;
};

/// The parameters benchmarks of `gpus[i]` GPUs of `platform` (its first GPUs, as a run uses them) may
/// depend on: the scale-up class of every node type they use, keyed by its accelerator generation
/// (`nvswitch@hopper`: the links of the GPUs measured), `nvls@generation` where that node type reduces
/// in its switches, `nic` where it has NICs (crossed only by benchmarks that span nodes), and the two
/// collective costs.
std::vector<NetworkParameter> network_parameter_candidates(const model::Platform& platform, const std::vector<int>& gpus);

/// One measured series: the rows one simulator call covers (one nccl-tests log).
struct NetworkFitSeries {
  std::string name;
  std::vector<double> measured_s; ///< per row, each > 0
};

/// The simulated times of every row of series `series` with `links`, in the order of its measured_s.
using NetworkSimulator = std::function<std::vector<double>(std::size_t series, const model::LinkFractions& links)>;

struct NetworkFitOptions {
  int max_evaluations = 300; ///< BOBYQA's evaluations of every series (the probe and the Jacobian come on top)
};

struct NetworkFittedParameter {
  NetworkParameter parameter;
  double start = 0;       ///< fraction, or seconds
  FittedParameter fitted; ///< value and standard_error in the same unit; results = rows that depend on it
};

struct NetworkFitResult {
  std::vector<NetworkFittedParameter> parameters; ///< the candidates some row depends on, in candidate order
  std::vector<NetworkParameter> uninformed;       ///< candidates no row depends on: not fitted
  model::LinkFractions links;                     ///< the start with the fitted values in place
  std::vector<std::vector<double>> fitted_s;      ///< per series and row, simulated at the fitted values
  double rms_log_error = 0;
  double start_rms_log_error = 0;
  int evaluations = 0; ///< simulations of every series, all phases
};

/// Fits the candidates to `series`, starting from `start` (whose other fractions stay as they are).
/// Throws std::invalid_argument without series, rows or candidates, or with a measured time <= 0; what
/// `simulate` throws is passed on.
NetworkFitResult fit_network(const model::LinkFractions& start, const std::vector<NetworkParameter>& candidates,
                             const std::vector<NetworkFitSeries>& series, const NetworkSimulator& simulate,
                             const NetworkFitOptions& options = {});

} // namespace gpuscale::analysis
