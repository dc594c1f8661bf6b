#pragma once
/// Progress of a sweep on stdout: on a terminal, one line redrawn in place
///   [##########..........]  53/110  48%  12.3 sim/s  ETA 0:00:05  failed 0
/// otherwise (a log file, a Slurm output) a plain line every 10% of the points or every 30 s.

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <string>

namespace gpuscale::app {

class SweepProgress {
public:
  SweepProgress(std::size_t total, bool interactive, std::FILE* out = stdout);

  /// Reports `done` points finished (of which `failed` failed); draws only when due.
  void update(std::size_t done, std::size_t failed);
  /// Draws the final state and ends the line.
  void finish(std::size_t done, std::size_t failed);

  /// Simulations per second since construction.
  double rate(std::size_t done) const;
  double elapsed_s() const;

  /// The line drawn for a state (exposed for tests).
  static std::string format_line(std::size_t done, std::size_t total, std::size_t failed, double elapsed_s);

private:
  void draw(std::size_t done, std::size_t failed);

  std::size_t total_;
  bool interactive_;
  std::FILE* out_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
  std::size_t last_drawn_done_ = 0;
  bool drawn_ = false;
};

} // namespace gpuscale::app
