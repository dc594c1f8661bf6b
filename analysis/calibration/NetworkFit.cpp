#include "analysis/calibration/NetworkFit.hpp"

#include "sim/model/Calibration.hpp"

#include <Eigen/Dense>
#include <nlopt.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <stdexcept>

namespace gpuscale::analysis {
namespace {

/// Coordinates: log(fraction) for link fractions (a relative change is what a fraction's error is),
/// microseconds for the collective costs (they may be 0).
constexpr double kSecondsPerCoordinate = 1e-6;
constexpr double kUnidentifiedLogError = 0.5;
constexpr double kStrongCorrelation = 0.9;
/// A row depends on a parameter when its log time moves by more than this under the probe or the
/// Jacobian's step (SimGrid's times are exact to far better).
constexpr double kDependence = 1e-7;

struct Coordinate {
  double lower = 0, upper = 0;
  double initial_step = 0; ///< BOBYQA's first trust radius
  double difference_step = 0; ///< for the Jacobian
  double probe = 0;        ///< the perturbation that tells whether any row depends on it
};

Coordinate coordinate_of(const NetworkParameter& p)
{
  if (p.group == NetworkParameter::Group::Network)
    return {std::log(model::kNetworkRange.lower), std::log(model::kNetworkRange.upper), 0.1, 0.01, -0.1};
  return {model::kCollectiveCostRange_s.lower / kSecondsPerCoordinate,
          model::kCollectiveCostRange_s.upper / kSecondsPerCoordinate, 1.0, 0.1, 1.0};
}

double value_of(const NetworkParameter& p, double x)
{
  return p.group == NetworkParameter::Group::Network ? std::exp(x) : x * kSecondsPerCoordinate;
}

double coordinate_of_value(const NetworkParameter& p, double value)
{
  return p.group == NetworkParameter::Group::Network ? std::log(value) : value / kSecondsPerCoordinate;
}

double start_value(const model::LinkFractions& links, const NetworkParameter& p)
{
  if (p.group == NetworkParameter::Group::Network) {
    // What LinkFractions' lookup gives the key's links: the key itself, else its class without the
    // @generation, else the default.
    if (const auto it = links.fraction.find(p.key); it != links.fraction.end())
      return it->second;
    if (const auto at = p.key.find('@'); at != std::string::npos)
      if (const auto it = links.fraction.find(p.key.substr(0, at)); it != links.fraction.end())
        return it->second;
    return model::kDefaultLinkFraction;
  }
  if (p.key == "fixed")
    return links.collective_fixed_s;
  if (p.key == "simple_step")
    return links.simple_step_s;
  throw std::invalid_argument("network fit: no collective cost '" + p.key + "' (known: fixed, simple_step)");
}

void set_value(model::LinkFractions& links, const NetworkParameter& p, double value)
{
  if (p.group == NetworkParameter::Group::Network)
    links.fraction[p.key] = value;
  else if (p.key == "fixed")
    links.collective_fixed_s = value;
  else
    links.simple_step_s = value;
}

class Problem {
public:
  Problem(const model::LinkFractions& start, std::vector<NetworkParameter> parameters,
          const std::vector<NetworkFitSeries>& series, const NetworkSimulator& simulate)
      : start_(start), parameters_(std::move(parameters)), series_(series), simulate_(simulate)
  {
  }

  const std::vector<NetworkParameter>& parameters() const { return parameters_; }
  int evaluations() const { return evaluations_; }

  model::LinkFractions links_at(const std::vector<double>& x) const
  {
    model::LinkFractions links = start_;
    links.every_link.reset();
    for (std::size_t j = 0; j < parameters_.size(); ++j)
      set_value(links, parameters_[j], value_of(parameters_[j], x[j]));
    return links;
  }

  /// Every row's simulated time at `x`, per series.
  std::vector<std::vector<double>> simulate(const std::vector<double>& x)
  {
    const model::LinkFractions links = links_at(x);
    std::vector<std::vector<double>> times;
    for (std::size_t s = 0; s < series_.size(); ++s) {
      times.push_back(simulate_(s, links));
      if (times.back().size() != series_[s].measured_s.size())
        throw std::runtime_error("network fit: the simulation of " + series_[s].name + " gave " +
                                 std::to_string(times.back().size()) + " times for " +
                                 std::to_string(series_[s].measured_s.size()) + " rows");
    }
    ++evaluations_;
    return times;
  }

  /// log(simulated / measured) of every row, all series in order.
  std::vector<double> residuals(const std::vector<std::vector<double>>& times) const
  {
    std::vector<double> r;
    for (std::size_t s = 0; s < series_.size(); ++s)
      for (std::size_t i = 0; i < times[s].size(); ++i)
        r.push_back(std::log(std::max(times[s][i], 1e-300) / series_[s].measured_s[i]));
    return r;
  }

  std::vector<double> residuals_at(const std::vector<double>& x) { return residuals(simulate(x)); }

private:
  model::LinkFractions start_;
  std::vector<NetworkParameter> parameters_;
  const std::vector<NetworkFitSeries>& series_;
  const NetworkSimulator& simulate_;
  int evaluations_ = 0;
};

double sum_of_squares(const std::vector<double>& r)
{
  double sum = 0;
  for (double v : r)
    sum += v * v;
  return sum;
}

struct Objective {
  Problem& problem;
  std::exception_ptr error; ///< what the simulation threw (NLopt would keep only its kind)
};

double objective(unsigned n, const double* x, double* gradient, void* data)
{
  auto& o = *static_cast<Objective*>(data);
  (void)gradient; // derivative-free algorithm
  try {
    return sum_of_squares(o.problem.residuals_at(std::vector<double>(x, x + n)));
  } catch (...) {
    o.error = std::current_exception();
    throw nlopt::forced_stop();
  }
}

/// d residual / d coordinate at `x`: central differences, one-sided inward at a bound.
Eigen::MatrixXd jacobian(Problem& problem, const std::vector<double>& x, const std::vector<Coordinate>& coordinates,
                         std::size_t rows)
{
  const std::size_t n = x.size();
  Eigen::MatrixXd j(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(n));
  for (std::size_t k = 0; k < n; ++k) {
    const double h = coordinates[k].difference_step;
    auto plus = x, minus = x;
    plus[k] = std::min(x[k] + h, coordinates[k].upper);
    minus[k] = std::max(x[k] - h, coordinates[k].lower);
    const auto r_plus = problem.residuals_at(plus);
    const auto r_minus = problem.residuals_at(minus);
    for (std::size_t i = 0; i < rows; ++i)
      j(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(k)) = (r_plus[i] - r_minus[i]) / (plus[k] - minus[k]);
  }
  return j;
}

void add_uncertainties(Problem& problem, const std::vector<double>& x, const std::vector<Coordinate>& coordinates,
                       const std::vector<double>& residuals, NetworkFitResult& result)
{
  const std::size_t n = x.size();
  const std::size_t m = residuals.size();
  const Eigen::MatrixXd j = jacobian(problem, x, coordinates, m);
  // Pseudo-inverse: a combination the rows do not fix gets no finite variance rather than a crash.
  const Eigen::MatrixXd jtj = j.transpose() * j;
  const Eigen::MatrixXd covariance_unit = jtj.completeOrthogonalDecomposition().pseudoInverse();
  const double dof = m > n ? static_cast<double>(m - n) : 1.0;
  const double sigma2 = sum_of_squares(residuals) / dof;
  const auto& params = problem.parameters();
  for (std::size_t k = 0; k < n; ++k) {
    auto& f = result.parameters[k].fitted;
    const auto kk = static_cast<Eigen::Index>(k);
    int dependent = 0;
    for (std::size_t i = 0; i < m; ++i)
      if (std::abs(j(static_cast<Eigen::Index>(i), kk)) * coordinates[k].difference_step > kDependence)
        ++dependent;
    f.results = dependent;
    const double se_x = jtj(kk, kk) > 0 ? std::sqrt(std::max(0.0, sigma2 * covariance_unit(kk, kk))) : INFINITY;
    const bool fraction = params[k].group == NetworkParameter::Group::Network;
    f.standard_error = fraction ? f.value * se_x : se_x * kSecondsPerCoordinate;
    const double span = coordinates[k].upper - coordinates[k].lower;
    const bool at_bound = x[k] - coordinates[k].lower < 1e-4 * span || coordinates[k].upper - x[k] < 1e-4 * span;
    if (at_bound) {
      f.identified = false;
      f.note = "at its bound";
    } else if (fraction && !(se_x <= kUnidentifiedLogError)) {
      f.identified = false;
      f.note = "1-sigma above a factor 1.65: the logs barely constrain it";
    } else if (!fraction && !(f.standard_error <= f.value)) {
      f.identified = false;
      f.note = "1-sigma larger than the value: the logs barely constrain it";
    }
    if (!std::isfinite(f.standard_error))
      f.standard_error = 0;
    double strongest = 0;
    std::size_t partner = k;
    for (std::size_t l = 0; l < n; ++l) {
      const auto ll = static_cast<Eigen::Index>(l);
      const double scale = std::sqrt(covariance_unit(kk, kk) * covariance_unit(ll, ll));
      if (l == k || !(scale > 0))
        continue;
      if (const double rho = covariance_unit(kk, ll) / scale; std::abs(rho) > std::abs(strongest)) {
        strongest = rho;
        partner = l;
      }
    }
    if (std::abs(strongest) > kStrongCorrelation && f.note.empty()) {
      char rho[16];
      std::snprintf(rho, sizeof rho, "%.2f", strongest);
      f.note = "correlated with " + params[partner].name() + " (rho " + rho + "): the logs fix their combination better";
    }
  }
}

/// Rows over every series; throws without rows or with a measured time that is not positive.
std::size_t checked_rows(const std::vector<NetworkFitSeries>& series)
{
  std::size_t rows = 0;
  for (const auto& s : series) {
    rows += s.measured_s.size();
    for (double t : s.measured_s)
      if (!(t > 0) || !std::isfinite(t))
        throw std::invalid_argument("network fit: " + s.name + " has a measured time that is not positive");
  }
  if (rows == 0)
    throw std::invalid_argument("network fit: the series have no rows");
  return rows;
}

/// The candidates some row depends on, with their start coordinates.
struct Informed {
  std::vector<NetworkParameter> parameters;
  std::vector<double> start;
};

/// Probes every candidate from its start in `base`: moved by its probe step, does any row's residual
/// move? Those that move none go to result.uninformed; result's start error and evaluations are set.
Informed probe_candidates(const model::LinkFractions& base, const std::vector<NetworkParameter>& candidates,
                          const std::vector<NetworkFitSeries>& series, const NetworkSimulator& simulate,
                          std::size_t rows, NetworkFitResult& result)
{
  std::vector<double> x0;
  for (const auto& p : candidates) {
    const Coordinate c = coordinate_of(p);
    x0.push_back(std::clamp(coordinate_of_value(p, std::max(start_value(base, p), 1e-300)), c.lower, c.upper));
  }
  Problem probe(base, candidates, series, simulate);
  const auto r0 = probe.residuals_at(x0);
  result.start_rms_log_error = std::sqrt(sum_of_squares(r0) / static_cast<double>(rows));
  Informed informed;
  for (std::size_t k = 0; k < candidates.size(); ++k) {
    const Coordinate c = coordinate_of(candidates[k]);
    auto moved = x0;
    moved[k] = x0[k] + c.probe;
    if (moved[k] < c.lower || moved[k] > c.upper)
      moved[k] = x0[k] - c.probe;
    const auto r = probe.residuals_at(moved);
    bool depends = false;
    for (std::size_t i = 0; i < rows; ++i)
      depends = depends || std::abs(r[i] - r0[i]) > kDependence;
    if (depends) {
      informed.parameters.push_back(candidates[k]);
      informed.start.push_back(x0[k]);
    } else {
      result.uninformed.push_back(candidates[k]);
    }
  }
  result.evaluations = probe.evaluations();
  return informed;
}

/// Minimises the sum of squared log errors over `problem`'s parameters from `x` (BOBYQA within their
/// coordinates' bounds), leaving the best point in `x`.
void minimise(Problem& problem, const std::vector<NetworkParameter>& informed, const std::vector<Coordinate>& coordinates,
              const NetworkFitOptions& options, std::vector<double>& x)
{
  std::vector<double> lower, upper, steps;
  for (const auto& c : coordinates) {
    lower.push_back(c.lower);
    upper.push_back(c.upper);
    steps.push_back(c.initial_step);
  }
  Objective o{problem, nullptr};
  nlopt::opt optimizer(nlopt::LN_BOBYQA, static_cast<unsigned>(informed.size()));
  optimizer.set_lower_bounds(lower);
  optimizer.set_upper_bounds(upper);
  optimizer.set_initial_step(steps);
  optimizer.set_min_objective(objective, &o);
  std::vector<double> tolerance;
  for (const auto& p : informed)
    tolerance.push_back(p.group == NetworkParameter::Group::Network ? 1e-5 : 1e-3); // 0.001 %, 1 ns
  optimizer.set_xtol_abs(tolerance);
  optimizer.set_ftol_rel(1e-10);
  optimizer.set_maxeval(options.max_evaluations);
  double minimum = 0;
  try {
    optimizer.optimize(x, minimum);
  } catch (const nlopt::forced_stop&) {
    if (o.error)
      std::rethrow_exception(o.error);
    throw;
  } catch (const nlopt::roundoff_limited&) {
    // the best point so far is in x
  }
}

} // namespace

std::vector<NetworkParameter> network_parameter_candidates(const model::Platform& platform, const std::vector<int>& gpus)
{
  std::vector<NetworkParameter> candidates;
  const auto add = [&](NetworkParameter::Group group, const std::string& key) {
    const NetworkParameter p{group, key};
    if (std::find(candidates.begin(), candidates.end(), p) == candidates.end())
      candidates.push_back(p);
  };
  bool nics = false;
  for (int count : gpus) {
    for (const auto& use : platform.groups_used(count)) {
      const model::NodeType& node = platform.node_type_of_group(use.group);
      nics = nics || node.nic_count > 0;
      const std::string& generation = platform.gpu_type_of(node).generation;
      const std::string suffix = generation.empty() ? "" : "@" + generation;
      add(NetworkParameter::Group::Network, model::to_string(model::scale_up_link_class(node.fabric)) + suffix);
      if (node.in_switch_reduction)
        add(NetworkParameter::Group::Network, model::kNvlsKey + suffix);
    }
  }
  if (nics) // crossed only by benchmarks that span nodes: the probe of fit_network tells
    add(NetworkParameter::Group::Network, model::to_string(model::LinkClass::Nic));
  add(NetworkParameter::Group::Collective, "fixed");
  add(NetworkParameter::Group::Collective, "simple_step");
  return candidates;
}

NetworkFitResult fit_network(const model::LinkFractions& start, const std::vector<NetworkParameter>& candidates,
                             const std::vector<NetworkFitSeries>& series, const NetworkSimulator& simulate,
                             const NetworkFitOptions& options)
{
  if (series.empty())
    throw std::invalid_argument("network fit: no measured series");
  if (candidates.empty())
    throw std::invalid_argument("network fit: no parameters to fit");
  const std::size_t rows = checked_rows(series);
  model::LinkFractions base = start;
  base.every_link.reset();

  NetworkFitResult result;
  const Informed informed = probe_candidates(base, candidates, series, simulate, rows, result);
  if (informed.parameters.empty())
    throw std::invalid_argument("network fit: no row's simulated time depends on any of the parameters");

  Problem problem(base, informed.parameters, series, simulate);
  std::vector<Coordinate> coordinates;
  for (const auto& p : informed.parameters)
    coordinates.push_back(coordinate_of(p));
  std::vector<double> x = informed.start;
  minimise(problem, informed.parameters, coordinates, options, x);

  result.links = problem.links_at(x);
  result.fitted_s = problem.simulate(x);
  const auto residuals = problem.residuals(result.fitted_s);
  result.rms_log_error = std::sqrt(sum_of_squares(residuals) / static_cast<double>(rows));
  for (std::size_t k = 0; k < informed.parameters.size(); ++k) {
    NetworkFittedParameter p;
    p.parameter = informed.parameters[k];
    p.start = value_of(informed.parameters[k], informed.start[k]);
    p.fitted.value = value_of(informed.parameters[k], x[k]);
    result.parameters.push_back(p);
  }
  add_uncertainties(problem, x, coordinates, residuals, result);
  result.evaluations += problem.evaluations();
  return result;
}

} // namespace gpuscale::analysis
