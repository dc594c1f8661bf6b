#pragma once
/// A step whose repeated runs (RepeatedUnits.hpp) are simulated a few units long and extended by
/// their period, once the simulation shows the period is reached.
///
/// The simulation is deterministic, so if the state of the whole system when a unit starts is the
/// state when the unit before it started, shifted in time by D, every further unit takes D and the
/// rest of the step is the shortened step's, shifted. The state (which flows are in flight, what
/// each link carries, where each actor stands) is what the events before it made it; the check is
/// therefore on events: over the last three kept units of a run, every instruction of every GPU
/// starts, and every collective of every stream starts and ends, exactly D after its counterpart
/// in the unit before, on both pairs of units, the same D for every GPU, and every collective sends
/// the same bytes. Collectives that a unit submits and a later unit waits for are inside the
/// check, so prefetches and overlapped reductions that cross unit boundaries are covered. Where the
/// check fails for a run (warm-up longer than its kept units, or no period at all), that run keeps
/// more units, up to half of it, and is simulated whole past that.

#include "sim/engine/RepeatedUnits.hpp"
#include "sim/engine/StepSetup.hpp"
#include "sim/engine/StepTrace.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace gpuscale::engine {

/// Events of counterpart units may differ by this much, relative to the shortened step's duration,
/// and still count as the same. Measured on the bench scenarios (docs/BENCHMARKS.md, "Steady state, and
/// the platform at thousands of GPUs"): 0-2e-16 s once a run has settled (rounding), ~1e-4 s while it
/// has not.
inline constexpr double kPeriodTolerance = 1e-12;

/// How a step was simulated.
struct SteadyStateReport {
  std::size_t runs = 0;               ///< repeated runs extended (0: the whole step was simulated)
  std::size_t units_simulated = 0;    ///< units of those runs the simulation ran
  std::size_t units_extrapolated = 0; ///< units added by their period
  std::size_t attempts = 0;           ///< shortened simulations run
  std::size_t instructions_whole = 0;     ///< per GPU, in the step program
  std::size_t instructions_simulated = 0; ///< per GPU, in the shortened program that was extended

  /// One line for results and summaries, e.g. "steady state: 152 of 160 repeated units extended".
  std::string describe() const;
};

struct SteadyStateCheck {
  std::vector<bool> steady;          ///< per run of the shortened program: its last kept units are a period
  std::optional<StepTrace> extended; ///< the whole step, when every run is steady
};

/// Checks every run of the shortened step and, when all are steady, extends its trace over their
/// removed units (see above). `events` are the shortened run's, by rank.
SteadyStateCheck extend_steady_runs(const StepSetup& setup, const ShortenedProgram& shortened, const StepTrace& trace,
                                    const std::vector<RankEvents>& events);

/// The step of `setup` on SimGrid, its repeated runs extended where the check allows and simulated
/// whole where not. Every rank must run the same instructions for runs to be extended (GPUs of
/// different speeds may; uneven batch shares are simulated whole). Each shortened simulation runs in a child process; the whole step, if
/// needed, in this one, so the SimGrid rule of one engine per process holds.
StepTrace execute_with_steady_state(StepSetup& setup, SteadyStateReport* report);

} // namespace gpuscale::engine
