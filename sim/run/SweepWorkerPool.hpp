#pragma once
/// A pool of forked worker processes, at most N at a time: SimGrid's engine is one per process, so
/// every simulation of a sweep runs in a fresh child (SIMGRID-NOTES.md "One simulation per process").
/// The child runs a function and sends back its string through a pipe, like engine::run_isolated,
/// but the parent does not block on one child: it polls all of them.
///
/// Children ignore SIGINT (a Ctrl-C lets running simulations finish and be recorded), get SIGKILL if
/// the parent dies (prctl PR_SET_PDEATHSIG), keep no inherited descriptor but stdio and their pipe,
/// and have their stdout sent to /dev/null.

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace gpuscale::run {

class SweepWorkerPool {
public:
  struct Finished {
    std::int64_t job = 0;
    bool ok = false;     ///< the function returned; payload is its result
    std::string payload; ///< the result, or what went wrong (exception message, signal, exit status)
    bool killed_by_pool = false; ///< ended by kill_all(), not by itself
  };

  explicit SweepWorkerPool(int workers);
  SweepWorkerPool(const SweepWorkerPool&) = delete;
  SweepWorkerPool& operator=(const SweepWorkerPool&) = delete;
  /// Kills and reaps any child still running.
  ~SweepWorkerPool();

  bool has_free_slot() const { return static_cast<int>(children_.size()) < workers_; }
  std::size_t running() const { return children_.size(); }

  /// Forks a child that runs `work`; `job` identifies it in the Finished record. Throws if fork fails.
  void start(std::int64_t job, const std::function<std::string()>& work);

  /// Waits up to `timeout` for output from the children and returns those that ended (possibly none,
  /// on timeout or when a signal interrupts the wait).
  std::vector<Finished> wait(std::chrono::milliseconds timeout);

  /// Sends SIGKILL to every running child and reaps them; they are returned as killed_by_pool.
  std::vector<Finished> kill_all();

private:
  struct Child {
    std::int64_t job = 0;
    pid_t pid = -1;
    int fd = -1;
    std::string received;
    bool killed = false;
  };

  Finished reap(Child& child);

  int workers_;
  std::vector<Child> children_;
};

} // namespace gpuscale::run
