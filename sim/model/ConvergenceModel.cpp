#include "sim/model/ConvergenceModel.hpp"

#include <boost/math/distributions/students_t.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace gpuscale::model {
namespace {

std::optional<ConvergenceFit> fit_if_possible(const ConvergenceCurve& curve)
{
  if (curve.points().size() < ConvergenceFit::kMinPoints)
    return std::nullopt;
  return ConvergenceFit(curve.points());
}

} // namespace

ConvergenceModel::ConvergenceModel(ConvergenceCurve curve) : curve_(std::move(curve)), fit_(fit_if_possible(curve_)) {}

ConvergenceEstimate ConvergenceModel::samples_to_converge(int global_batch_size) const
{
  ConvergenceEstimate estimate = curve_.samples_to_converge(global_batch_size);
  if (!estimate.extrapolated) {
    estimate.samples_low = estimate.samples_high = estimate.samples;
    return estimate;
  }
  if (!fit_) {
    estimate.samples_low = estimate.samples_high = std::numeric_limits<double>::quiet_NaN();
    return estimate;
  }
  const bool above = global_batch_size > curve_.max_global_batch_size();
  const ConvergencePoint& end = above ? curve_.points().back() : curve_.points().front();
  const double growth = fit_->log_growth(end.global_batch_size, global_batch_size);
  const double scatter = fit_->relative_scatter();
  const double sigma =
      std::sqrt(fit_->log_growth_variance(end.global_batch_size, global_batch_size) + 2 * scatter * scatter);
  const boost::math::students_t t_distribution(fit_->degrees_of_freedom());
  const double t = boost::math::quantile(t_distribution, 0.5 + kConvergenceIntervalLevel / 2);
  if (above) {
    estimate.samples = end.value * std::exp(growth);
    estimate.samples_low = end.value * std::exp(growth - t * sigma);
    estimate.samples_high = end.value * std::exp(growth + t * sigma);
    return estimate;
  }
  // Below: the smallest point's samples (estimate.samples already), with an interval that holds both
  // that reading and the fit's.
  const double point_sigma = std::sqrt(2.0) * scatter;
  estimate.samples_low = end.value * std::exp(std::min(growth - t * sigma, -t * point_sigma));
  estimate.samples_high = end.value * std::exp(std::max(growth + t * sigma, t * point_sigma));
  return estimate;
}

std::optional<HeldOutPrediction> predict_largest_held_out(const ConvergenceCurve& curve)
{
  const auto& points = curve.points();
  if (points.size() < ConvergenceFit::kMinPoints + 1)
    return std::nullopt;
  const ConvergenceModel rest(ConvergenceCurve({points.begin(), points.end() - 1}));
  HeldOutPrediction held_out;
  held_out.global_batch_size = points.back().global_batch_size;
  held_out.measured_samples = points.back().value;
  held_out.predicted = rest.samples_to_converge(held_out.global_batch_size);
  return held_out;
}

} // namespace gpuscale::model
