#include "sim/model/SweepSpec.hpp"

#include <cstdio>

namespace gpuscale::model {

std::string to_string(SkipReason reason)
{
  switch (reason) {
    case SkipReason::GpuCount: return "GPU count does not fit the platform";
    case SkipReason::BatchSize: return "batch sizes do not divide";
    case SkipReason::Layout: return "the values do not fit together";
  }
  return "?";
}

std::vector<std::int64_t> SweepSpec::runnable_indices() const
{
  std::vector<std::int64_t> indices;
  indices.reserve(points.size());
  for (const auto& point : points)
    indices.push_back(point.index);
  return indices;
}

std::string sweep_id_of(std::string_view text)
{
  // FNV-1a, 64-bit (offset basis 14695981039346656037, prime 1099511628211).
  std::uint64_t hash = 14695981039346656037ULL;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ULL;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return hex;
}

int shard_of_position(std::size_t runnable_position, int shard_count)
{
  return static_cast<int>(runnable_position % static_cast<std::size_t>(shard_count));
}

} // namespace gpuscale::model
