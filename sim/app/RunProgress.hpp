#pragma once
/// A progress line on stderr while one long simulation runs (`gpuscale run` of a large scenario), drawn
/// only when stderr is a terminal and only once the run has taken a second:
///   simulating 4096 GPUs x 80 layers, 5.24e+06 cost units (GPUs x layers x micro-batches) ... 0:00:12
/// It says what is being simulated and for how long; a single simulation reports no fraction done
/// (the engine's event count is not known in advance). Erased when the run ends.

#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

namespace gpuscale::app {

class RunProgress {
public:
  /// `what`: the text before the elapsed time. Draws nothing unless `out` is a terminal.
  explicit RunProgress(std::string what, std::FILE* out = stderr);
  ~RunProgress();
  RunProgress(const RunProgress&) = delete;
  RunProgress& operator=(const RunProgress&) = delete;

  /// The line for `elapsed_s` seconds (exposed for tests).
  static std::string format_line(const std::string& what, double elapsed_s);

private:
  void draw_until_stopped();

  std::string what_;
  std::FILE* out_;
  std::mutex mutex_;
  std::condition_variable stop_requested_;
  bool stop_ = false;
  std::thread drawer_;
};

} // namespace gpuscale::app
