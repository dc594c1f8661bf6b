#include "analysis/maths/IsotonicRegression.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gpuscale::analysis {

namespace {

/// The lower middle observation of `values` (sorted here).
double lower_median(std::vector<double>& values)
{
  std::sort(values.begin(), values.end());
  return values[(values.size() - 1) / 2];
}

} // namespace

std::vector<double> fit_isotonic_median(const std::vector<std::vector<double>>& groups)
{
  struct Block {
    std::vector<double> observations;
    double median = 0;
    std::size_t groups = 0;
  };
  std::vector<Block> blocks;
  for (const auto& group : groups) {
    if (group.empty())
      throw std::invalid_argument("fit_isotonic_median: a group has no observation");
    if (!std::all_of(group.begin(), group.end(), [](double v) { return std::isfinite(v); }))
      throw std::invalid_argument("fit_isotonic_median: observations must be finite");
    Block block{group, 0, 1};
    block.median = lower_median(block.observations);
    blocks.push_back(std::move(block));
    // Pool backwards while the last block would decrease: the pooled median can violate again further back.
    while (blocks.size() > 1 && blocks[blocks.size() - 2].median > blocks.back().median) {
      Block last = std::move(blocks.back());
      blocks.pop_back();
      Block& into = blocks.back();
      into.observations.insert(into.observations.end(), last.observations.begin(), last.observations.end());
      into.groups += last.groups;
      into.median = lower_median(into.observations);
    }
  }
  std::vector<double> fitted;
  fitted.reserve(groups.size());
  for (const Block& b : blocks)
    fitted.insert(fitted.end(), b.groups, b.median);
  return fitted;
}

} // namespace gpuscale::analysis
