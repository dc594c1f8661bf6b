#pragma once
/// A GPU's communication stream: collectives run one after another, in submission order, on their
/// own actor, while the GPU's compute actor goes on (as NCCL kernels on a separate CUDA stream).
///
/// SimGrid runs actors cooperatively, one at a time, switching only inside simcalls, so the queue and
/// counters need no mutex; two semaphores carry the only blocking: "work queued" towards the stream
/// actor and "what you waited for is done" back to the compute actor. That keeps the synchronisation
/// to about two simcalls per collective, which matters at thousands of GPUs.

#include "sim/engine/StepTrace.hpp"
#include "sim/engine/collectives/CollectiveDispatch.hpp"

#include <simgrid/s4u/Semaphore.hpp>

#include <deque>
#include <vector>

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

  /// Appends every collective this stream runs to `events` (null: records nothing).
  void record_events(std::vector<CollectiveEvent>* events) { events_ = events; }

  double busy_s() const { return busy_s_; }
  const CollectiveCounters& counters() const { return counters_; }

private:
  struct Pending {
    CollectiveOp op;
    double bytes;
    bool close;
  };

  const Communicator& comm_;
  int rank_;
  model::CollectiveAlgorithm algorithm_;
  simgrid::s4u::SemaphorePtr queued_; ///< one token per queued item
  simgrid::s4u::SemaphorePtr reached_; ///< released once when completed_ reaches waiting_for_
  std::deque<Pending> pending_;
  std::size_t completed_ = 0;
  std::size_t waiting_for_ = 0; ///< 0: the compute actor is not waiting
  double busy_s_ = 0;
  CollectiveCounters counters_;
  std::vector<CollectiveEvent>* events_ = nullptr;
};

} // namespace gpuscale::engine
