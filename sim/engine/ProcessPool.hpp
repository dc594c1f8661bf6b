#pragma once
/// The one way gpuscale runs work in child processes. SimGrid's engine is one per process and keeps
/// global state (clock, signals) for the life of it (SIMGRID-NOTES.md "One simulation per process"),
/// so every simulation runs in a fresh forked child: a single isolated run (run_isolated), the
/// parallel runs of calibrate/validate and the points of a sweep all go through this pool.
///
/// Protocol: the child runs a function and writes one status byte ('o': returned, 'e': threw) then
/// the result (or the exception's message) to its pipe, and exits; end of file ends the frame. The
/// parent polls every child's pipe, so at most `workers` children run at once and none blocks the
/// others. A child that dies without a complete frame (signal, exit status) is reported as a failure
/// with the signal or status, never as a result.
///
/// Every child keeps no inherited descriptor but stdio and its pipe (the sweep journal and its
/// flock, other children's pipes, the results-file lock must not outlive the parent in a child) and
/// gets SIGKILL if the parent dies (prctl PR_SET_PDEATHSIG).

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace gpuscale::engine {

/// How a child is set up before it runs its work.
struct ChildSetup {
  /// Ignore SIGINT: a Ctrl-C lets running simulations finish and be recorded (sweeps, parallel runs);
  /// the parent decides what to abandon.
  bool ignore_interrupt = true;
  /// Send the child's stdout to /dev/null: many children must not interleave on the parent's terminal.
  bool discard_stdout = true;
};

class ProcessPool {
public:
  struct Finished {
    std::int64_t job = 0;
    bool ok = false;     ///< the function returned; payload is its result
    std::string payload; ///< the result, or what went wrong (exception message, signal, exit status)
    bool killed_by_pool = false; ///< ended by kill_all(), not by itself
    double wall_s = 0;           ///< wall-clock seconds from fork to the end of the child
  };

  explicit ProcessPool(int workers, ChildSetup setup = {});
  ProcessPool(const ProcessPool&) = delete;
  ProcessPool& operator=(const ProcessPool&) = delete;
  /// Kills and reaps any child still running.
  ~ProcessPool();

  bool has_free_slot() const { return static_cast<int>(children_.size()) < workers_; }
  std::size_t running() const { return children_.size(); }

  /// Forks a child that runs `work`; `job` identifies it in the Finished record. Throws if fork fails.
  void start(std::int64_t job, const std::function<std::string()>& work);

  /// Waits up to `timeout` (negative: without limit) for output from the children and returns those
  /// that ended (possibly none, on timeout or when a signal interrupts the wait).
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
    std::chrono::steady_clock::time_point started;
  };

  Finished reap(Child& child);

  int workers_;
  ChildSetup setup_;
  std::vector<Child> children_;
};

/// Runs `jobs.size()` functions, `workers` at a time, and returns their Finished records in input
/// order; `on_finished(record, done, total)` is called as each one ends (progress by callback).
std::vector<ProcessPool::Finished>
run_all(const std::vector<std::function<std::string()>>& jobs, int workers,
        const std::function<void(const ProcessPool::Finished&, std::size_t, std::size_t)>& on_finished = {});

} // namespace gpuscale::engine
