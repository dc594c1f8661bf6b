#pragma once
/// What one GPU does in one optimizer step, as a flat list of instructions its actor executes in
/// order. Collectives are submitted to per-purpose communication streams (like CUDA streams: in order
/// within a stream, concurrent across streams) and waited for by ticket, which is how overlap,
/// prefetch and blocking tensor-parallel all-reduces are all expressed.

#include "sim/engine/collectives/CollectiveDispatch.hpp"

#include <array>
#include <cstddef>
#include <vector>

namespace gpuscale::engine {

/// The pipeline neighbours a point-to-point transfer goes to or comes from (Instruction::peer).
inline constexpr int kNextStage = 1;
inline constexpr int kPreviousStage = -1;

/// Communication streams of a GPU and the group each talks to.
enum class Stream {
  Gradients,       ///< DP: gradient all-reduce / reduce-scatter
  Parameters,      ///< DP: ZeRO parameter all-gathers (prefetch, post-optimizer)
  TensorParallel,  ///< TP group: activation all-reduces
  ContextParallel, ///< CP group: K/V all-gathers
};
inline constexpr std::size_t kStreamCount = 4;

struct Instruction {
  enum class Kind {
    Compute, ///< run `amount` FLOP on this GPU
    Sleep,   ///< memory-bound work taking `amount` seconds (optimizer step)
    Submit,  ///< queue collective `op` of `amount` bytes on `stream`
    Wait,    ///< block until `stream` has completed `ticket` collectives
    Send,    ///< post a point-to-point send of `amount` bytes to the pipeline neighbour `peer`
    Receive, ///< post a point-to-point receive of `amount` bytes from the pipeline neighbour `peer`
    WaitTransfers, ///< block until every send and receive posted so far has completed
  };
  Kind kind = Kind::Compute;
  double amount = 0;
  Stream stream = Stream::Gradients;
  CollectiveOp op = CollectiveOp::AllReduce;
  std::size_t ticket = 0;
  /// Send, Receive: the neighbour, relative to this GPU's pipeline stage (+1 next, -1 previous), so
  /// that every replica's GPU at the same stage runs the same program.
  int peer = 0;

  bool operator==(const Instruction&) const = default;
};

struct StepProgram {
  std::vector<Instruction> instructions;
  std::array<std::size_t, kStreamCount> submitted{}; ///< collectives per stream in the whole step
  /// Total FLOP the program executes at the GPU's effective rate (memory-bound kernels count as the
  /// FLOPs that rate executes in their duration).
  double compute_flop = 0;
  double sleep_s = 0;                               ///< total memory-bound time (host time included)
  double host_s = 0;                                ///< of sleep_s, host time on the critical path (hooks)
  std::size_t transfers = 0;                        ///< point-to-point sends and receives posted

  void compute(double flop);
  void sleep(double seconds);
  /// Host work the GPU waits for (DeepSpeed's Python hooks): a sleep, counted in host_s too.
  void host(double seconds);
  /// Queues a collective; returns its ticket (wait for it with wait(stream, ticket)).
  std::size_t submit(Stream stream, CollectiveOp op, double bytes);
  void wait(Stream stream, std::size_t ticket);
  /// Submit and wait at once: a collective on the critical path.
  void run_blocking(Stream stream, CollectiveOp op, double bytes);
  void wait_all(Stream stream) { wait(stream, submitted[static_cast<std::size_t>(stream)]); }
  /// Posts a send of `bytes` to pipeline neighbour `peer` (kNextStage, kPreviousStage): an NCCL
  /// isend, which completes once the neighbour's matching receive has taken the bytes.
  void send(int peer, double bytes);
  /// Posts the receive of `bytes` from `peer`, matched in order with that neighbour's sends to this GPU.
  void receive(int peer, double bytes);
  /// Blocks until every posted send and receive is done (Megatron's p2p_communicate waits on all).
  void wait_transfers();
};

} // namespace gpuscale::engine
