#pragma once
/// Where a step program repeats itself, and the same program with fewer repeats.
///
/// Identical transformer blocks, identical micro-batches: a step program is mostly runs of one unit
/// of instructions repeated many times (the forward of layer k and k+1 differ only in which
/// collective tickets they wait for, which is the same offset from what has been submitted). A run
/// once warmed up advances by the same time per unit, so simulating a few units of each run and
/// extending the rest by that period gives the full step (SteadyStateRun.hpp checks the period is
/// reached before it does).

#include "sim/engine/StepProgram.hpp"

#include <array>
#include <cstddef>
#include <vector>

namespace gpuscale::engine {

/// `units` consecutive copies of the same `unit_length` instructions, from instruction `begin`.
struct RepeatedRun {
  std::size_t begin = 0;
  std::size_t unit_length = 0;
  std::size_t units = 0;

  std::size_t end() const { return begin + unit_length * units; }
};

/// The non-overlapping repeated runs of `program` with at least `min_units` units, in program order,
/// chosen greedily by the instructions they cover beyond `kept_units` (the most saving first). Two
/// instructions are the same when kind, amount (bit for bit), stream and operation match and a wait
/// waits for the same ticket counted back from what its stream has submitted so far. A unit that
/// submits collectives without computing, sleeping or waiting is no run: its collectives queue on
/// their stream, so its events cannot repeat with one period.
std::vector<RepeatedRun> find_repeated_runs(const StepProgram& program, std::size_t kept_units,
                                            std::size_t min_units);

/// A run as it stands in a shortened program.
struct KeptRun {
  RepeatedRun original;
  std::size_t begin = 0;        ///< first instruction of the run in the shortened program
  std::size_t kept_units = 0;   ///< units left in the shortened program
  std::size_t removed_units = 0;
  /// Per stream: the ticket of the first collective submitted in the run (shortened program) and
  /// how many each unit submits.
  std::array<std::size_t, kStreamCount> first_ticket{};
  std::array<std::size_t, kStreamCount> tickets_per_unit{};

  std::size_t unit_begin(std::size_t unit) const { return begin + unit * original.unit_length; }
};

struct ShortenedProgram {
  StepProgram program;
  std::vector<KeptRun> runs;
};

/// `program` with run i cut to its first `kept_units[i]` units (runs with fewer stay whole). A wait
/// after a run for a collective of a removed unit waits for the same collective of the kept units
/// counted from the run's end, which is what it waits for in steady state. Throws std::logic_error
/// when a wait would then point before the run (the run is not a steady repetition).
ShortenedProgram shorten(const StepProgram& program, const std::vector<RepeatedRun>& runs,
                         const std::vector<std::size_t>& kept_units);

} // namespace gpuscale::engine
