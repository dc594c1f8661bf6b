#pragma once
/// Progress of a sweep on stdout: on a terminal, one line redrawn in place
///   [##########..........]  53/110  48%  12.3 sim/s  ETA 0:00:05  failed 0
/// otherwise (a log file, a Slurm output) a plain line every 10% of the points or every 30 s.
/// The ETA comes from each point's estimated cost, not from the count of points: a sweep's points
/// differ by orders of magnitude (8 against 512 GPUs), and the large ones often come last.

#include "sim/model/Scenario.hpp"

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <string>

namespace gpuscale::app {


class SweepProgress {
public:
  /// `total` points of `total_cost` units together.
  SweepProgress(std::size_t total, double total_cost, bool interactive, std::FILE* out = stdout);

  /// Reports `done` points finished (of which `failed` failed), together `cost_done` units; draws
  /// only when due.
  void update(std::size_t done, std::size_t failed, double cost_done);
  /// Draws the final state and ends the line.
  void finish(std::size_t done, std::size_t failed, double cost_done);
  /// Takes `cost` units out of the total: a point that finished without costing its estimate (an
  /// infeasible one is a memory check, not a simulation).
  void discount(double cost);

  /// Simulations per second since construction.
  double rate(std::size_t done) const;
  double elapsed_s() const;

  /// The line drawn for a state (exposed for tests). `cost_fraction_done` in [0, 1]: the ETA assumes
  /// the remaining cost goes at the seconds per unit seen so far, elapsed x (1 - f) / f.
  static std::string format_line(std::size_t done, std::size_t total, std::size_t failed, double elapsed_s,
                                 double cost_fraction_done);

private:
  void draw(std::size_t done, std::size_t failed, double cost_done);

  std::size_t total_;
  double total_cost_;
  bool interactive_;
  std::FILE* out_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
  std::size_t last_drawn_done_ = 0;
  bool drawn_ = false;
};

} // namespace gpuscale::app
