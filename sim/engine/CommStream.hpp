#pragma once
/// A GPU's communication stream: collectives run one after another, in submission order, on their
/// own actor, while the GPU's compute actor goes on (as NCCL kernels on a separate CUDA stream).

#include "sim/engine/collectives/CollectiveDispatch.hpp"

#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Mutex.hpp>

#include <deque>

namespace gpuscale::engine {

class CommStream {
public:
  /// Runs on `comm` as communicator rank `rank`, with `algorithm` (auto resolved per collective).
  CommStream(const Communicator& comm, int rank, model::CollectiveAlgorithm algorithm);

  /// From the compute actor: queue a collective; returns at once.
  void submit(CollectiveOp op, double bytes);
  /// From the compute actor: block until `count` collectives of this stream have completed.
  void wait_completed(std::size_t count);
  /// From the compute actor: no more work; the communication actor exits once the queue is drained.
  void close();

  /// Body of the communication actor.
  void operator()();

  double busy_s() const { return busy_s_; }
  const CollectiveCounters& counters() const { return counters_; }

private:
  struct Pending {
    CollectiveOp op;
    double bytes;
  };

  const Communicator& comm_;
  int rank_;
  model::CollectiveAlgorithm algorithm_;
  simgrid::s4u::MutexPtr mutex_;
  simgrid::s4u::ConditionVariablePtr changed_;
  std::deque<Pending> pending_;
  std::size_t completed_ = 0;
  bool closed_ = false;
  double busy_s_ = 0;
  CollectiveCounters counters_;
};

} // namespace gpuscale::engine
