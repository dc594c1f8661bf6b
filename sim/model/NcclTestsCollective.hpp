#pragma once
/// The collectives nccl-tests measures (all_reduce_perf, reduce_scatter_perf, all_gather_perf,
/// broadcast_perf, alltoall_perf) and its bookkeeping of them: how a requested size becomes the
/// element count and byte size it prints, and the bus-bandwidth factor (nccl-tests
/// doc/PERFORMANCE.md; src/*.cu, GetCollByteCount and GetBw). Shared by the simulated benchmark and
/// the reader of real logs, so both count the same way.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gpuscale::model {

enum class NcclTestsCollective { AllReduce, ReduceScatter, AllGather, Broadcast, AllToAll };

/// "all_reduce", "reduce_scatter", "all_gather", "broadcast", "alltoall": the program names without
/// "_perf".
std::string to_string(NcclTestsCollective op);
std::optional<NcclTestsCollective> parse_nccl_tests_collective(std::string_view name);
std::string known_nccl_tests_collectives();

/// nccl-tests' default element type, `float`.
inline constexpr std::int64_t kNcclTestsElementBytes = 4;

/// What nccl-tests prints and moves for one requested size on `ranks` ranks.
struct NcclTestsSize {
  std::int64_t count = 0; ///< the `count` column: elements per rank of the collective's parameter
  std::int64_t bytes = 0; ///< the `size` column: max(send, receive) bytes of one rank
};

/// nccl-tests' rounding: count = requested / 4 elements; all_reduce and broadcast move count
/// elements (size = 4 count); reduce_scatter, all_gather and alltoall count count / ranks elements
/// per rank and move ranks times that (size = 4 ranks (count / ranks)), integer divisions.
NcclTestsSize nccl_tests_size(NcclTestsCollective op, std::int64_t requested_bytes, int ranks);

/// busbw / algbw (doc/PERFORMANCE.md): all_reduce 2(n-1)/n; reduce_scatter, all_gather and alltoall
/// (n-1)/n; broadcast 1. algbw = size / time in every case.
double bus_bandwidth_factor(NcclTestsCollective op, int ranks);

/// The `redop` column: "sum" for the reductions, "none" otherwise.
std::string nccl_tests_redop(NcclTestsCollective op);
/// The `root` column: 0 for broadcast (nccl-tests' default -r 0), -1 otherwise.
int nccl_tests_root(NcclTestsCollective op);

/// A size as nccl-tests' -b / -e take it: a non-negative integer with an optional K, M or G suffix
/// (either case), powers of 1024. nullopt for anything else (nccl-tests itself would read "8X" as 8;
/// here it is refused).
std::optional<std::int64_t> parse_nccl_tests_bytes(std::string_view text);

} // namespace gpuscale::model
