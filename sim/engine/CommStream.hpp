#pragma once
/// A GPU's communication stream: collectives run one after another, in submission order, on their
/// own actor, while the GPU's compute actor goes on (as NCCL kernels on a separate CUDA stream).

#include "sim/engine/collectives/Communicator.hpp"

#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Mutex.hpp>

#include <deque>
#include <functional>

namespace gpuscale::engine {

class CommStream {
public:
  /// `collective(bytes, counters)` runs one collective of `bytes` for this stream's rank.
  using Collective = std::function<void(double bytes, CollectiveCounters& counters)>;

  explicit CommStream(Collective collective);

  /// From the compute actor: queue a collective; returns at once.
  void submit(double bytes);
  /// From the compute actor: block until everything submitted so far has completed.
  void wait_idle();
  /// From the compute actor: no more work; the communication actor exits once the queue is drained.
  void close();

  /// Body of the communication actor.
  void operator()();

  double busy_s() const { return busy_s_; }
  const CollectiveCounters& counters() const { return counters_; }

private:
  Collective collective_;
  simgrid::s4u::MutexPtr mutex_;
  simgrid::s4u::ConditionVariablePtr changed_;
  std::deque<double> pending_bytes_;
  bool running_ = false;
  bool closed_ = false;
  double busy_s_ = 0;
  CollectiveCounters counters_;
};

} // namespace gpuscale::engine
