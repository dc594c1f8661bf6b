#include "analysis/planner/MicroBatchCurve.hpp"

#include <algorithm>
#include <stdexcept>

namespace gpuscale::analysis {

MicroBatchCurve::MicroBatchCurve(std::vector<MicroBatchPoint> points) : points_(std::move(points))
{
  if (points_.empty())
    throw std::invalid_argument("MicroBatchCurve: no measured points");
  std::sort(points_.begin(), points_.end(),
            [](const MicroBatchPoint& a, const MicroBatchPoint& b) { return a.micro_batch < b.micro_batch; });
  for (std::size_t i = 0; i < points_.size(); ++i) {
    if (points_[i].micro_batch < 1 || points_[i].time_s < 0)
      throw std::invalid_argument("MicroBatchCurve: micro-batch sizes must be >= 1 and times >= 0");
    if (i > 0 && points_[i].micro_batch == points_[i - 1].micro_batch)
      throw std::invalid_argument("MicroBatchCurve: micro-batch size measured twice");
    if (i > 0)
      points_[i].time_s = std::max(points_[i].time_s, points_[i - 1].time_s); // monotone envelope
  }
}

double MicroBatchCurve::time_s(int micro_batch) const
{
  if (points_.size() == 1) // one point: time proportional to the micro-batch
    return points_.front().time_s * micro_batch / points_.front().micro_batch;
  if (micro_batch <= points_.front().micro_batch) // below the first point: towards 0 along the first segment
    return points_.front().time_s * micro_batch / points_.front().micro_batch;
  auto upper = std::lower_bound(points_.begin(), points_.end(), micro_batch,
                                [](const MicroBatchPoint& p, int m) { return p.micro_batch < m; });
  if (upper == points_.end())
    upper = points_.end() - 1;
  const auto& b = *upper;
  const auto& a = *(upper - 1);
  const double slope = (b.time_s - a.time_s) / (b.micro_batch - a.micro_batch);
  return a.time_s + slope * (micro_batch - a.micro_batch);
}

std::vector<double> MicroBatchCurve::tabulate(int max_micro_batch) const
{
  std::vector<double> table;
  for (int m = 1; m <= max_micro_batch; ++m)
    table.push_back(time_s(m));
  return table;
}

} // namespace gpuscale::analysis
