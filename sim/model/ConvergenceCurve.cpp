#include "sim/model/ConvergenceCurve.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace gpuscale::model {

ConvergenceCurve::ConvergenceCurve(std::vector<ConvergencePoint> points_in_samples)
    : points_(std::move(points_in_samples))
{
  if (points_.empty())
    throw std::invalid_argument("ConvergenceCurve: no reference points");
  for (std::size_t i = 0; i < points_.size(); ++i) {
    const auto& point = points_[i];
    if (point.global_batch_size <= 0 || !(point.value > 0) || !std::isfinite(point.value))
      throw std::invalid_argument("ConvergenceCurve: point " + std::to_string(i) +
                                  " needs a positive batch size and a positive, finite sample count");
    if (i > 0 && point.global_batch_size <= points_[i - 1].global_batch_size)
      throw std::invalid_argument("ConvergenceCurve: batch sizes must be strictly increasing (point " +
                                  std::to_string(i) + ")");
  }
}

ConvergenceEstimate ConvergenceCurve::samples_to_converge(int global_batch_size) const
{
  if (global_batch_size < min_global_batch_size())
    return {points_.front().value, true, points_.front().value, points_.front().value};
  if (global_batch_size > max_global_batch_size())
    return {points_.back().value, true, points_.back().value, points_.back().value};

  std::size_t upper = 0;
  while (points_[upper].global_batch_size < global_batch_size)
    ++upper;
  const ConvergencePoint& high = points_[upper];
  if (high.global_batch_size == global_batch_size)
    return {high.value, false, high.value, high.value}; // exact at the points, no rounding through log/exp
  const ConvergencePoint& low = points_[upper - 1];

  const double t = (std::log(global_batch_size) - std::log(low.global_batch_size)) /
                   (std::log(high.global_batch_size) - std::log(low.global_batch_size));
  const double log_samples = std::log(low.value) + t * (std::log(high.value) - std::log(low.value));
  const double samples = std::exp(log_samples);
  return {samples, false, samples, samples};
}

} // namespace gpuscale::model
