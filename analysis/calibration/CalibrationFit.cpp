#include "analysis/calibration/CalibrationFit.hpp"
#include "sim/model/SoftwareMaturity.hpp"
#include "sim/units/Quantity.hpp"


#include <nlopt.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace gpuscale::analysis {
namespace {

constexpr double kUnidentifiedLogError = 0.5;
constexpr double kStrongCorrelation = 0.9;

struct Problem {
  const ParameterSpace& space;
  const std::vector<CalibrationCase>& cases;
  std::vector<std::size_t> used;
  std::vector<double> prior_weight; ///< prior_weights(space)
  int evaluations = 0;
  /// The dated repeats (ParameterSpace::repeat_groups), as case indices: maturity is fitted to the
  /// spread of each group's residuals about the group's mean alone.
  std::vector<std::vector<std::size_t>> repeats;
  // What one optimisation varies: the coordinates `free` of `full`; `within`: maturity's objective.
  std::vector<std::size_t> free;
  std::vector<double> full;
  bool within = false;
};

double case_residual(const Problem& p, std::size_t index, const std::vector<double>& x)
{
  const auto& c = p.cases[index];
  return std::log(p.space.fitted_s(c, x) / c.actual_s);
}

double residual(const Problem& p, std::size_t i, const std::vector<double>& x)
{
  return case_residual(p, p.used[i], x);
}

/// kPriorResidualLogSd^2 / tau_j^2 per parameter (0 without prior): the prior's weight in the
/// objective and its information in the covariance.
std::vector<double> prior_weights(const ParameterSpace& space)
{
  std::vector<double> weights;
  for (const auto& parameter : space.parameters()) {
    const double tau = prior_sd(parameter);
    weights.push_back(tau > 0 ? kPriorResidualLogSd * kPriorResidualLogSd / (tau * tau) : 0.0);
  }
  return weights;
}

/// Pseudo-Huber loss of one log residual, 2 c^2 (sqrt(1 + (r/c)^2) - 1) written without the
/// cancellation: r^2 for |r| well below c = kRobustLogScale, growing like 2 c |r| beyond it.
double robust_loss(double r)
{
  const double u = r / kRobustLogScale;
  return 2 * r * r / (std::sqrt(1 + u * u) + 1);
}

/// Robust loss of the log residuals of every used case, plus the overheads' prior.
double global_sum(const Problem& p, const std::vector<double>& x)
{
  double sum = 0;
  for (std::size_t i = 0; i < p.used.size(); ++i)
    sum += robust_loss(residual(p, i, x));
  for (std::size_t j = 0; j < x.size() && j < p.prior_weight.size(); ++j)
    sum += p.prior_weight[j] * x[j] * x[j];
  return sum;
}

/// Each repeat group's log residuals about their mean: what maturity changes between the dates of
/// the same hardware running the same benchmark, whatever the model's error common to the group.
std::vector<double> within_residuals(const Problem& p, const std::vector<double>& x)
{
  std::vector<double> out;
  for (const auto& group : p.repeats) {
    std::vector<double> r;
    double mean = 0;
    for (std::size_t i : group) {
      r.push_back(case_residual(p, i, x));
      mean += r.back();
    }
    mean /= static_cast<double>(r.size());
    for (double v : r)
      out.push_back(v - mean);
  }
  return out;
}

/// The within residuals' sum of squares plus the priors (of maturity at launch: the only ones that
/// vary in this objective, the others add a constant).
double within_sum(const Problem& p, const std::vector<double>& x)
{
  double sum = 0;
  for (double r : within_residuals(p, x))
    sum += r * r;
  for (std::size_t j = 0; j < x.size() && j < p.prior_weight.size(); ++j)
    sum += p.prior_weight[j] * x[j] * x[j];
  return sum;
}

double objective(unsigned n, const double* x, double* gradient, void* data)
{
  auto& p = *static_cast<Problem*>(data);
  (void)gradient; // derivative-free algorithm
  std::vector<double> point = p.full;
  for (unsigned k = 0; k < n; ++k)
    point[p.free[k]] = x[k];
  ++p.evaluations;
  return p.within ? within_sum(p, point) : global_sum(p, point);
}

/// `x` lies within 1e-4 of the range from one of `p`'s bounds.
bool at_a_bound(const ParameterSpace::Parameter& p, double x)
{
  const double span = p.upper - p.lower;
  return x - p.lower < 1e-4 * span || p.upper - x < 1e-4 * span;
}

/// Minimises over the coordinates `free` of x (the others held), BOBYQA restarted once from its
/// optimum (a restart resets its trust region).
void minimise(Problem& problem, std::vector<double>& x, const std::vector<std::size_t>& free, bool within)
{
  if (free.empty())
    return;
  const auto& params = problem.space.parameters();
  std::vector<double> lower, upper, y;
  for (std::size_t j : free) {
    lower.push_back(params[j].lower);
    upper.push_back(params[j].upper);
    y.push_back(std::clamp(x[j], params[j].lower, params[j].upper));
  }
  problem.free = free;
  problem.within = within;
  for (int round = 0; round < 2; ++round) {
    // BOBYQA may return a coordinate at its bound rounded just outside it, which its next start refuses.
    for (std::size_t k = 0; k < free.size(); ++k)
      y[k] = std::clamp(y[k], lower[k], upper[k]);
    problem.full = x;
    nlopt::opt optimizer(nlopt::LN_BOBYQA, static_cast<unsigned>(free.size()));
    optimizer.set_lower_bounds(lower);
    optimizer.set_upper_bounds(upper);
    optimizer.set_min_objective(objective, &problem);
    optimizer.set_xtol_rel(1e-7);
    optimizer.set_ftol_abs(1e-12);
    optimizer.set_maxeval(20000);
    double minimum = 0;
    try {
      optimizer.optimize(y, minimum);
    } catch (const nlopt::roundoff_limited&) {
      // the best point so far is kept in y
    }
    for (std::size_t k = 0; k < free.size(); ++k)
      x[free[k]] = y[k];
  }
}

std::vector<double> inverse_spd(std::vector<std::vector<double>> a);

/// Maturity's standard errors and flags from the within residuals: Gauss-Newton on them alone, over
/// the maturity parameters `indices` together (a young generation's repeats inform both its
/// benchmark's fraction at launch and the pooled gap).
void maturity_uncertainties(const Problem& p, CalibrationFitResult& result, const std::vector<std::size_t>& indices)
{
  const auto& params = p.space.parameters();
  const auto r0 = within_residuals(p, result.x);
  double rss = 0;
  for (double r : r0)
    rss += r * r;
  const std::size_t n = indices.size();
  std::vector<std::vector<double>> derivative(n);
  std::vector<int> members(n, 0);
  for (std::size_t a = 0; a < n; ++a) {
    const std::size_t j = indices[a];
    const double h = 1e-5 * std::max(1.0, std::abs(result.x[j]));
    auto plus = result.x, minus = result.x;
    plus[j] += h;
    minus[j] -= h;
    const auto rp = within_residuals(p, plus), rm = within_residuals(p, minus);
    for (std::size_t k = 0; k < rp.size(); ++k) {
      derivative[a].push_back((rp[k] - rm[k]) / (2 * h));
      if (std::abs(derivative[a].back()) > 1e-9)
        ++members[a];
    }
  }
  std::vector<std::vector<double>> jtj(n, std::vector<double>(n, 0.0));
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = 0; b < n; ++b)
      for (std::size_t k = 0; k < r0.size(); ++k)
        jtj[a][b] += derivative[a][k] * derivative[b][k];
  for (std::size_t a = 0; a < n; ++a) // the prior's information, as in add_uncertainties
    if (indices[a] < p.prior_weight.size())
      jtj[a][a] += p.prior_weight[indices[a]];
  const auto covariance = inverse_spd(jtj);
  const double dof = std::max(1.0, static_cast<double>(r0.size()) - static_cast<double>(p.repeats.size()) -
                                       static_cast<double>(n));
  const double sigma2 = rss / dof;
  for (std::size_t a = 0; a < n; ++a) {
    const std::size_t j = indices[a];
    FittedParameter& f = result.parameters[j];
    f.results = members[a];
    f.note.clear();
    f.identified = true;
    const double variance = covariance[a * n + a];
    const double se_x = std::isfinite(variance) ? std::sqrt(sigma2 * variance) : 0.0;
    f.standard_error = f.value * se_x;
    if (members[a] == 0) {
      f.identified = false;
      f.note = "no dated repeat depends on it: no maturity measured";
    } else if (at_a_bound(params[j], result.x[j])) {
      f.identified = false;
      f.note = "at its bound";
    } else if (se_x > kUnidentifiedLogError) {
      f.identified = false;
      f.note = "1-sigma above a factor 1.65: the data barely constrain it";
    }
  }
}

/// Inverse of a symmetric positive semi-definite matrix by Cholesky with a small ridge; rows of an
/// unused parameter (zero diagonal) come back as +inf variance. Row-major n x n, flat.
std::vector<double> inverse_spd(std::vector<std::vector<double>> a)
{
  const std::size_t n = a.size();
  double trace = 0;
  for (std::size_t i = 0; i < n; ++i)
    trace += a[i][i];
  const double ridge = 1e-12 * (trace > 0 ? trace / n : 1.0);
  std::vector<bool> dead(n, false);
  for (std::size_t i = 0; i < n; ++i) {
    dead[i] = a[i][i] <= ridge;
    if (dead[i]) {
      for (std::size_t j = 0; j < n; ++j)
        a[i][j] = a[j][i] = 0;
      a[i][i] = 1;
    } else {
      a[i][i] += ridge;
    }
  }
  std::vector<std::vector<double>> l(n, std::vector<double>(n, 0));
  for (std::size_t j = 0; j < n; ++j) {
    double d = a[j][j];
    for (std::size_t k = 0; k < j; ++k)
      d -= l[j][k] * l[j][k];
    l[j][j] = std::sqrt(std::max(d, 1e-300));
    for (std::size_t i = j + 1; i < n; ++i) {
      double s = a[i][j];
      for (std::size_t k = 0; k < j; ++k)
        s -= l[i][k] * l[j][k];
      l[i][j] = s / l[j][j];
    }
  }
  std::vector<double> inv(n * n, 0.0);
  for (std::size_t col = 0; col < n; ++col) { // solve L L^T x = e_col
    std::vector<double> y(n, 0), x(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
      double s = i == col ? 1.0 : 0.0;
      for (std::size_t k = 0; k < i; ++k)
        s -= l[i][k] * y[k];
      y[i] = s / l[i][i];
    }
    for (std::size_t i = n; i-- > 0;) {
      double s = y[i];
      for (std::size_t k = i + 1; k < n; ++k)
        s -= l[k][i] * x[k];
      x[i] = s / l[i][i];
    }
    for (std::size_t i = 0; i < n; ++i)
      inv[i * n + col] = x[i];
  }
  for (std::size_t i = 0; i < n; ++i)
    if (dead[i])
      inv[i * n + i] = INFINITY;
  return inv;
}

void add_uncertainties(const Problem& p, CalibrationFitResult& result)
{
  const auto& params = p.space.parameters();
  const std::size_t n = params.size();
  const std::size_t m = p.used.size();
  std::vector<std::vector<double>> jacobian(m, std::vector<double>(n, 0));
  double rss = 0, weighted_rss = 0;
  std::vector<double> weight(m, 1.0);
  for (std::size_t i = 0; i < m; ++i) {
    const double r = residual(p, i, result.x);
    rss += r * r;
    weight[i] = robust_weight(r);
    weighted_rss += weight[i] * r * r;
  }
  std::vector<int> dependent(n, 0);
  for (std::size_t j = 0; j < n; ++j) {
    const double h = 1e-5 * std::max(1.0, std::abs(result.x[j]));
    auto plus = result.x, minus = result.x;
    plus[j] += h;
    minus[j] -= h;
    for (std::size_t i = 0; i < m; ++i) {
      jacobian[i][j] = (residual(p, i, plus) - residual(p, i, minus)) / (2 * h);
      if (std::abs(jacobian[i][j]) > 1e-9)
        ++dependent[j];
    }
  }
  std::vector<std::vector<double>> jtj(n, std::vector<double>(n, 0));
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = 0; b < n; ++b)
      for (std::size_t i = 0; i < m; ++i)
        jtj[a][b] += weight[i] * jacobian[i][a] * jacobian[i][b];
  for (std::size_t j = 0; j < n; ++j) // the prior's information (MAP covariance)
    if (dependent[j] > 0)
      jtj[j][j] += p.prior_weight[j];
  const auto covariance = inverse_spd(jtj);
  const double dof = m > n ? static_cast<double>(m - n) : 1.0;
  const double sigma2 = weighted_rss / dof;
  result.rms_log_error = m > 0 ? std::sqrt(rss / static_cast<double>(m)) : 0.0;
  for (std::size_t j = 0; j < n; ++j) {
    FittedParameter& f = result.parameters[j];
    const double se_x = std::sqrt(sigma2 * covariance[j * n + j]);
    const bool run_overhead = params[j].group == ParameterSpace::Group::Overhead;
    const bool log_scale = !run_overhead && params[j].group != ParameterSpace::Group::StepOverhead;
    f.standard_error = log_scale ? f.value * se_x : (run_overhead ? units::from_minutes(se_x) : se_x);
    f.results = dependent[j];
    const bool at_bound = at_a_bound(params[j], result.x[j]);
    if (dependent[j] == 0) {
      f.identified = false;
      f.note = "no calibration result depends on it";
    } else if (at_bound) {
      f.identified = false;
      f.note = "at its bound";
    } else if (log_scale && se_x > kUnidentifiedLogError) {
      f.identified = false;
      f.note = "1-sigma above a factor 1.65: the data barely constrain it";
    } else if (!log_scale && !(f.standard_error < std::max(run_overhead ? units::kSecondsPerMinute : 0.01, f.value))) {
      f.identified = false;
      f.note = "1-sigma larger than the value: the data barely constrain it";
    }
    if (!std::isfinite(f.standard_error))
      f.standard_error = 0;
    // The strongest correlation with another parameter: the data may pin down a combination only.
    double strongest = 0;
    std::size_t partner = j;
    for (std::size_t k = 0; k < n; ++k) {
      const double scale = std::sqrt(covariance[j * n + j] * covariance[k * n + k]);
      if (k == j || !std::isfinite(scale) || scale <= 0)
        continue;
      const double rho = covariance[j * n + k] / scale;
      if (std::abs(rho) > std::abs(strongest)) {
        strongest = rho;
        partner = k;
      }
    }
    if (std::abs(strongest) > kStrongCorrelation && f.note.empty())
    {
      char rho[16];
      std::snprintf(rho, sizeof rho, "%.2f", strongest);
      f.note = "correlated with " + params[partner].name + " (rho " + rho + "): the data fix their combination better";
    }
  }
}

} // namespace

double robust_weight(double log_residual)
{
  const double u = log_residual / kRobustLogScale;
  return 1 / std::sqrt(1 + u * u);
}

double outlier_log_error()
{
  return kRobustLogScale * std::sqrt(1 / (kOutlierWeight * kOutlierWeight) - 1);
}

double prior_sd(const ParameterSpace::Parameter& p)
{
  switch (p.group) { // optimiser coordinates (ParameterSpace::value_of): run overhead in minutes
    case ParameterSpace::Group::Overhead: return units::to_minutes(kRunOverheadPriorSd_s);
    case ParameterSpace::Group::StepOverhead: return kStepOverheadPriorSd_s;
    case ParameterSpace::Group::Maturity: return p.label == model::kMaturityGapKey ? 0.0 : kMaturityAtLaunchPriorSd;
    default: return 0.0;
  }
}

CalibrationFitResult fit_calibration(const ParameterSpace& space, const std::vector<CalibrationCase>& cases,
                                     const std::vector<bool>& use, const std::vector<double>& start,
                                     bool uncertainties)
{
  Problem problem{space, cases, {}, prior_weights(space), 0, space.repeat_groups(cases, use), {}, {}, false};
  for (std::size_t i = 0; i < cases.size(); ++i)
    if (use.empty() || use[i])
      problem.used.push_back(i);
  if (problem.used.empty())
    throw std::invalid_argument("calibration: no results to fit");
  const std::size_t n = space.size();
  CalibrationFitResult result;
  result.x = start.empty() ? space.start() : start;
  for (std::size_t j = 0; j < n; ++j)
    result.x[j] = std::clamp(result.x[j], space.parameters()[j].lower, space.parameters()[j].upper);
  // Maturity is measured within the dated repeats only (the same benchmark on the same accelerator
  // family and count at different dates); the other parameters are fitted to every result with
  // maturity held; the two alternate until settled.
  std::vector<std::size_t> others, maturity;
  for (std::size_t j = 0; j < n; ++j)
    (space.parameters()[j].group == ParameterSpace::Group::Maturity ? maturity : others).push_back(j);
  Problem within{space, cases, problem.used, problem.prior_weight, 0, problem.repeats, {}, {}, false};
  minimise(problem, result.x, others, false);
  if (!maturity.empty() && !within.repeats.empty())
    for (int pass = 0; pass < 4; ++pass) {
      const auto before = result.x;
      minimise(within, result.x, maturity, true);
      minimise(problem, result.x, others, false);
      double moved = 0;
      for (std::size_t j = 0; j < n; ++j)
        moved = std::max(moved, std::abs(result.x[j] - before[j]));
      if (moved < 1e-6)
        break;
    }
  problem.evaluations += within.evaluations;
  result.evaluations = problem.evaluations;
  result.parameters.resize(n);
  for (std::size_t j = 0; j < n; ++j)
    result.parameters[j].value = space.value_of(j, result.x);
  if (uncertainties) {
    add_uncertainties(problem, result);
    if (!maturity.empty())
      maturity_uncertainties(within, result, maturity);
  }
  return result;
}

} // namespace gpuscale::analysis
