#pragma once
/// The collectives as nccl-tests measures them: one SimGrid run on the first `gpus` GPUs of a
/// platform (the GPUs a run of that many uses, built as a run builds them), one actor per GPU that,
/// for each message size in turn, waits at a barrier with the others and then runs the collective.
/// A size's time is that of the slowest rank from the common start (the barrier's release).

#include "sim/model/NcclTestsCollective.hpp"
#include "sim/model/Platform.hpp"
#include "sim/model/Scenario.hpp"

#include <optional>
#include <string>
#include <vector>

namespace gpuscale::engine {

using model::NcclTestsCollective;

/// Why `algorithm` cannot run `op` (broadcast runs a pipelined ring: auto, ring or ring_flow, which
/// all mean the one model of RingBroadcast.hpp; all-to-all its point-to-point exchanges: auto);
/// nullopt when it can.
std::optional<std::string> benchmark_algorithm_problem(NcclTestsCollective op, model::CollectiveAlgorithm algorithm);

/// All-to-all routes every GPU pair and runs p(p-1) flows at once: memory and time grow as p². 512
/// GPUs (one 1 GiB all-to-all on platforms/dgx-h100-64node-fattree.yaml) took 45 s and 0.74 GB.
inline constexpr int kMaxAllToAllGpus = 512;

/// Why `op` cannot be simulated on `gpus` GPUs (an all-to-all beyond kMaxAllToAllGpus); nullopt when it can.
std::optional<std::string> benchmark_size_problem(NcclTestsCollective op, int gpus);

/// What the links of the simulated platform run at: the part of a run's resolved scenario that
/// builds its network.
struct BenchmarkNetwork {
  model::LinkFractions links;            ///< each link's usable fraction, the collectives' fixed costs
  model::SimgridNetworkConfig simgrid;   ///< SimGrid's network model, as a run records it
};

struct CollectiveBenchmarkSpec {
  NcclTestsCollective op = NcclTestsCollective::AllReduce;
  model::CollectiveAlgorithm algorithm = model::CollectiveAlgorithm::Auto;
  int gpus = 0; ///< the platform's first `gpus` GPUs, at least 1
  /// Each size's buffer as run_collective takes it: the all-reduced or broadcast buffer, the
  /// reduce-scatter input, the all-gather output, each rank's all-to-all send buffer.
  std::vector<double> sizes_bytes;
  int root = 0; ///< broadcast root (communicator rank)
};

/// One size of a benchmark.
struct CollectiveBenchmarkRow {
  double bytes = 0;
  double time_s = 0;     ///< slowest rank, from the common start
  double max_rank_sent_bytes = 0; ///< bytes on the wire the busiest rank sent (LL's flags included)
  std::string algorithm; ///< what ran, as results name it ("ring", "nvls", "hierarchical+sharp", ...)
};

/// Simulates `spec` on `platform` with `network`, in a child process (SimGrid's engine is one per
/// process, so this may be called any number of times). Throws std::invalid_argument when `gpus` is
/// out of range (benchmark_size_problem included) or the algorithm does not apply
/// (benchmark_algorithm_problem).
std::vector<CollectiveBenchmarkRow> benchmark_collective(const model::Platform& platform,
                                                         const CollectiveBenchmarkSpec& spec,
                                                         const BenchmarkNetwork& network);

} // namespace gpuscale::engine
