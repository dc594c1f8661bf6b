#include "sim/model/NcclTestsCollective.hpp"

#include <array>
#include <charconv>
#include <limits>

namespace gpuscale::model {
namespace {

constexpr std::array kCollectives{NcclTestsCollective::AllReduce, NcclTestsCollective::ReduceScatter,
                                  NcclTestsCollective::AllGather, NcclTestsCollective::Broadcast,
                                  NcclTestsCollective::AllToAll};

} // namespace

std::string to_string(NcclTestsCollective op)
{
  switch (op) {
    case NcclTestsCollective::AllReduce: return "all_reduce";
    case NcclTestsCollective::ReduceScatter: return "reduce_scatter";
    case NcclTestsCollective::AllGather: return "all_gather";
    case NcclTestsCollective::Broadcast: return "broadcast";
    case NcclTestsCollective::AllToAll: return "alltoall";
  }
  return "?";
}

std::optional<NcclTestsCollective> parse_nccl_tests_collective(std::string_view name)
{
  for (NcclTestsCollective op : kCollectives)
    if (name == to_string(op))
      return op;
  return std::nullopt;
}

std::string known_nccl_tests_collectives()
{
  std::string names;
  for (NcclTestsCollective op : kCollectives)
    names += (names.empty() ? "" : ", ") + to_string(op);
  return names;
}

NcclTestsSize nccl_tests_size(NcclTestsCollective op, std::int64_t requested_bytes, int ranks)
{
  const std::int64_t count = requested_bytes / kNcclTestsElementBytes;
  switch (op) {
    case NcclTestsCollective::AllReduce:
    case NcclTestsCollective::Broadcast:
      return {count, count * kNcclTestsElementBytes};
    case NcclTestsCollective::ReduceScatter:
    case NcclTestsCollective::AllGather:
    case NcclTestsCollective::AllToAll: {
      const std::int64_t per_rank = count / ranks;
      return {per_rank, per_rank * ranks * kNcclTestsElementBytes};
    }
  }
  return {};
}

double bus_bandwidth_factor(NcclTestsCollective op, int ranks)
{
  const double n = ranks;
  switch (op) {
    case NcclTestsCollective::AllReduce: return 2.0 * (n - 1) / n;
    case NcclTestsCollective::ReduceScatter:
    case NcclTestsCollective::AllGather:
    case NcclTestsCollective::AllToAll: return (n - 1) / n;
    case NcclTestsCollective::Broadcast: return 1.0;
  }
  return 1.0;
}

std::string nccl_tests_redop(NcclTestsCollective op)
{
  return op == NcclTestsCollective::AllReduce || op == NcclTestsCollective::ReduceScatter ? "sum" : "none";
}

int nccl_tests_root(NcclTestsCollective op)
{
  return op == NcclTestsCollective::Broadcast ? 0 : -1;
}

std::optional<std::int64_t> parse_nccl_tests_bytes(std::string_view text)
{
  std::int64_t unit = 1;
  if (!text.empty()) {
    switch (text.back()) {
      case 'K': case 'k': unit = std::int64_t{1} << 10; break;
      case 'M': case 'm': unit = std::int64_t{1} << 20; break;
      case 'G': case 'g': unit = std::int64_t{1} << 30; break;
      default: break;
    }
    if (unit != 1)
      text.remove_suffix(1);
  }
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || value < 0 ||
      value > std::numeric_limits<std::int64_t>::max() / unit)
    return std::nullopt;
  return value * unit;
}

} // namespace gpuscale::model
