#include "sim/engine/SteadyStateRun.hpp"

#include "sim/engine/IsolatedRun.hpp"
#include "sim/engine/RouteCosts.hpp"
#include "sim/engine/SimgridExecutor.hpp"
#include "sim/engine/collectives/AnalyticalCollective.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <sstream>
#include <stdexcept>

namespace gpuscale::engine {
namespace {

// The first try keeps a quarter of a run and at least 8 units (up to 5 of warm-up, then two pairs to
// compare); a run whose last units are not yet periodic is tried again with 2x as many, while that
// is at most half of it. Warm-up of the 80-layer Llama 2 forward (docs/BENCHMARKS.md, "Steady state,
// and the platform at thousands of GPUs"): 1 unit at 64 and 256 GPUs, 6 at 1024 on the 2:1 fat tree,
// 13 at 2048 on the 512-node tree: a quarter (20 units) settles them in one try.
constexpr std::size_t kFirstKeptUnits = 8;
constexpr std::size_t kFirstKeptShare = 4; // a quarter of the run
constexpr std::size_t kKeptGrowth = 2;
constexpr const char* kNotSteady = "not steady";

/// Whether the unit of `run` waits for a collective.
bool unit_waits(const StepProgram& program, const RepeatedRun& run)
{
  const auto unit = program.instructions.begin() + static_cast<std::ptrdiff_t>(run.begin);
  return std::any_of(unit, unit + static_cast<std::ptrdiff_t>(run.unit_length),
                     [](const Instruction& in) { return in.kind == Instruction::Kind::Wait; });
}

/// Whether `run` falls further behind with every unit, so that no shortened try can pass the check:
/// its unit waits for nothing, and on some stream its collectives take longer, uncontended, than its
/// kernels on the slowest GPU. The kernels then repeat with their own period and the collectives,
/// queued behind each other, with theirs (DDP's bucketed all-reduces on per-step rings at 32 and 64
/// GPUs). Uncontended is the analytical executor's α–β time of the stream's first communicator with
/// its members starting together, which SimGrid's never undercuts (equal where nothing shares a link,
/// tests/engine/Executors_test.cpp); the margin covers their 1e-6 agreement. (Queued collectives
/// start staggered, not together; for rings each member's own chain of sends is the same bound.)
/// This only decides what is tried: a run misjudged is simulated whole, slower but with the same
/// result, and a kept run is still checked.
bool falls_behind(const StepSetup& setup, const RouteCosts& routes, const StepProgram& program, const RepeatedRun& run)
{
  if (unit_waits(program, run))
    return false;
  double flop = 0;
  double sleep_s = 0;
  std::array<std::vector<const Instruction*>, kStreamCount> submits;
  for (std::size_t j = run.begin; j < run.begin + run.unit_length; ++j) {
    const Instruction& in = program.instructions[j];
    switch (in.kind) {
      case Instruction::Kind::Wait:
      case Instruction::Kind::Send:
      case Instruction::Kind::Receive:
      case Instruction::Kind::WaitTransfers: break;
      case Instruction::Kind::Compute: flop += in.amount; break;
      case Instruction::Kind::Sleep: sleep_s += in.amount; break;
      case Instruction::Kind::Submit: submits[static_cast<std::size_t>(in.stream)].push_back(&in); break;
    }
  }
  const double slowest_flop_per_s =
      *std::min_element(setup.gpu_speed_flop_per_s.begin(), setup.gpu_speed_flop_per_s.end());
  const double kernels_s = flop / slowest_flop_per_s + sleep_s;
  for (std::size_t s = 0; s < kStreamCount; ++s) {
    const auto& unit_submits = submits[s];
    const StreamGroups groups = setup.groups_of(static_cast<Stream>(s));
    if (unit_submits.empty() || groups.groups->empty() || groups.layouts->empty())
      continue;
    const std::size_t members = groups.groups->front().size();
    double collectives_s = 0; // on the member whose collectives end first
    for (const Instruction* in : unit_submits) {
      std::vector<double> clock_s(members, 0.0);
      std::vector<CollectiveCounters> counters(members);
      time_collective(in->op, groups.algorithm, groups.layouts->front(), routes, std::vector<double>(members, in->amount),
                      clock_s, counters);
      collectives_s += *std::min_element(clock_s.begin(), clock_s.end());
    }
    if (collectives_s > kernels_s * (1 + 1e-6))
      return true;
  }
  return false;
}

/// `runs` without those that fall behind (see falls_behind). All kept where the network model has no
/// uncontended α–β form (RouteCosts).
std::vector<RepeatedRun> runs_worth_trying(const StepSetup& setup, const StepProgram& program,
                                           std::vector<RepeatedRun> runs)
{
  if (std::all_of(runs.begin(), runs.end(), [&](const RepeatedRun& run) { return unit_waits(program, run); }))
    return runs; // no candidate: the routes' costs are not worth building
  std::unique_ptr<RouteCosts> routes;
  try {
    routes = std::make_unique<RouteCosts>(setup.topology, setup.routes, setup.scenario->simgrid);
  } catch (const std::invalid_argument&) {
    return runs;
  }
  std::erase_if(runs, [&](const RepeatedRun& run) { return falls_behind(setup, *routes, program, run); });
  return runs;
}

/// Whether unit u + 1 of `run` repeats unit u shifted by `shift_s` on every rank (see the header).
bool shifted_copy(const KeptRun& run, std::size_t u, double shift_s, double tolerance_s,
                  const std::vector<RankEvents>& events)
{
  const std::size_t L = run.original.unit_length;
  for (const RankEvents& rank : events) {
    const auto& start = rank.instruction_start_s;
    for (std::size_t j = 0; j < L; ++j) {
      const std::size_t a = run.unit_begin(u) + j;
      if (a + L >= start.size() || std::abs(start[a + L] - start[a] - shift_s) > tolerance_s)
        return false;
    }
    for (std::size_t s = 0; s < kStreamCount; ++s) {
      const std::size_t k = run.tickets_per_unit[s];
      const auto& collectives = rank.collectives[s];
      for (std::size_t j = 0; j < k; ++j) {
        const std::size_t a = run.first_ticket[s] - 1 + u * k + j;
        if (a + k >= collectives.size())
          return false;
        const CollectiveEvent& x = collectives[a];
        const CollectiveEvent& y = collectives[a + k];
        if (std::abs(y.start_s - x.start_s - shift_s) > tolerance_s ||
            std::abs(y.end_s - x.end_s - shift_s) > tolerance_s ||
            std::abs(y.bytes_sent - x.bytes_sent) > 1e-12 * std::max(1.0, x.bytes_sent))
          return false;
      }
    }
  }
  return true;
}

/// A rank's collective streams and its pipeline transfers, in the order they are written.
template <class Rank>
auto streams_of(Rank& rank)
{
  std::vector<decltype(&rank.pipeline)> out;
  for (auto& s : rank.streams)
    out.push_back(&s);
  out.push_back(&rank.pipeline);
  return out;
}

std::string serialize(const StepTrace& trace)
{
  std::string out = std::to_string(trace.size()) + "\n";
  char buffer[128];
  for (const RankTrace& rank : trace) {
    std::snprintf(buffer, sizeof buffer, "%a %a", rank.timeline.compute_s, rank.timeline.end_s);
    out += buffer;
    for (const StreamTrace* s : streams_of(rank)) {
      std::snprintf(buffer, sizeof buffer, " %d %a %a", s->used ? 1 : 0, s->busy_s, s->bytes_sent);
      out += buffer;
    }
    out += "\n";
  }
  return out;
}

StepTrace deserialize(const std::string& text)
{
  std::istringstream in(text);
  std::size_t ranks = 0;
  in >> ranks;
  StepTrace trace(ranks);
  auto read_double = [&in] {
    std::string word;
    in >> word;
    return std::strtod(word.c_str(), nullptr);
  };
  for (RankTrace& rank : trace) {
    rank.timeline.compute_s = read_double();
    rank.timeline.end_s = read_double();
    for (StreamTrace* s : streams_of(rank)) {
      int used = 0;
      in >> used;
      s->used = used != 0;
      s->busy_s = read_double();
      s->bytes_sent = read_double();
    }
  }
  if (!in)
    throw std::runtime_error("malformed step trace from the shortened simulation");
  return trace;
}

} // namespace

std::string SteadyStateReport::describe() const
{
  if (runs == 0 && attempts == 0)
    return kWholeStepSimulated;
  if (runs == 0)
    return std::string(kWholeStepSimulated) + " (" + std::to_string(attempts) + " shortened " + (attempts == 1 ? "try" : "tries") +
           " not periodic)";
  return "steady state: " + std::to_string(units_extrapolated) + " of " +
         std::to_string(units_simulated + units_extrapolated) + " repeated units extended by their period (" +
         std::to_string(runs) + (runs == 1 ? " run" : " runs") + "; " + std::to_string(instructions_simulated) + " of " +
         std::to_string(instructions_whole) + " instructions per GPU simulated, " + std::to_string(attempts) +
         (attempts == 1 ? " try)" : " tries)");
}

SteadyStateCheck extend_steady_runs(const StepSetup& setup, const ShortenedProgram& shortened, const StepTrace& trace,
                                    const std::vector<RankEvents>& events)
{
  double step_s = 0;
  for (const RankTrace& rank : trace)
    step_s = std::max(step_s, rank.timeline.end_s);
  const double tolerance_s = kPeriodTolerance * step_s;

  SteadyStateCheck check;
  std::vector<double> period_s(shortened.runs.size(), 0);
  for (std::size_t i = 0; i < shortened.runs.size(); ++i) {
    const KeptRun& run = shortened.runs[i];
    const std::size_t m = run.kept_units;
    bool steady = run.removed_units == 0;
    if (!steady && m >= 3) {
      const auto& first = events.front().instruction_start_s;
      period_s[i] = first[run.unit_begin(m - 1)] - first[run.unit_begin(m - 2)];
      steady = shifted_copy(run, m - 3, period_s[i], tolerance_s, events) &&
               shifted_copy(run, m - 2, period_s[i], tolerance_s, events);
    }
    check.steady.push_back(steady);
  }
  if (std::find(check.steady.begin(), check.steady.end(), false) != check.steady.end())
    return check;

  StepTrace extended = trace;
  for (std::size_t i = 0; i < shortened.runs.size(); ++i) {
    const KeptRun& run = shortened.runs[i];
    if (run.removed_units == 0)
      continue;
    const std::size_t m = run.kept_units;
    const std::size_t L = run.original.unit_length;
    const auto removed = static_cast<double>(run.removed_units);
    for (std::size_t r = 0; r < extended.size(); ++r) {
      RankTrace& rank = extended[r];
      rank.timeline.end_s += removed * period_s[i];
      double unit_compute_s = 0;
      for (std::size_t j = 0; j < L; ++j) {
        const Instruction& in = shortened.program.instructions[run.unit_begin(m - 1) + j];
        if (in.kind == Instruction::Kind::Compute)
          unit_compute_s += in.amount / setup.gpu_speed_flop_per_s[r];
        else if (in.kind == Instruction::Kind::Sleep)
          unit_compute_s += in.amount;
      }
      rank.timeline.compute_s += removed * unit_compute_s;
      for (std::size_t s = 0; s < kStreamCount; ++s) {
        const std::size_t k = run.tickets_per_unit[s];
        double busy_s = 0;
        double bytes = 0;
        for (std::size_t j = 0; j < k; ++j) {
          const CollectiveEvent& c = events[r].collectives[s][run.first_ticket[s] - 1 + (m - 1) * k + j];
          busy_s += c.end_s - c.start_s;
          bytes += c.bytes_sent;
        }
        rank.streams[s].busy_s += removed * busy_s;
        rank.streams[s].bytes_sent += removed * bytes;
      }
    }
  }
  check.extended = std::move(extended);
  return check;
}

StepTrace execute_with_steady_state(StepSetup& setup, SteadyStateReport* report)
{
  SteadyStateReport local;
  SteadyStateReport& r = report != nullptr ? *report : local;
  r = {};
  const StepProgram whole = setup.programs.front();
  for (const StepProgram& program : setup.programs)
    if (program.instructions != whole.instructions) // uneven batch shares: ranks repeat different runs
      return execute_on_simgrid(setup);
  std::vector<RepeatedRun> runs =
      runs_worth_trying(setup, whole, find_repeated_runs(whole, kFirstKeptUnits, 2 * kFirstKeptUnits));
  std::vector<std::size_t> kept;
  for (const RepeatedRun& run : runs)
    kept.push_back(std::max(kFirstKeptUnits, (run.units + kFirstKeptShare - 1) / kFirstKeptShare));
  // Tries stop once they would have simulated as many instructions as the whole step has: a step
  // that never settles costs at most about twice its simulation. (The warm-up grows with scale: the
  // Llama 2 forward settles after 1 unit at 256 GPUs, 6 at 1024 and 13 at 2048: docs/BENCHMARKS.md,
  // "Steady state, and the platform at thousands of GPUs".)
  std::size_t simulated_instructions = 0;
  while (!runs.empty()) {
    ShortenedProgram shortened;
    try {
      shortened = shorten(whole, runs, kept);
    } catch (const std::logic_error&) {
      break; // a wait reaches deep into a run: not a steady repetition
    }
    simulated_instructions += shortened.program.instructions.size();
    if (simulated_instructions > whole.instructions.size())
      break;
    ++r.attempts;
    const std::string outcome = run_isolated([&] {
      for (StepProgram& program : setup.programs) // in the child's copy of the setup
        program = shortened.program;
      std::vector<RankEvents> events;
      const StepTrace trace = execute_on_simgrid(setup, &events);
      const SteadyStateCheck check = extend_steady_runs(setup, shortened, trace, events);
      if (check.extended)
        return serialize(*check.extended);
      std::string failed = kNotSteady;
      for (bool steady : check.steady)
        failed += steady ? " 1" : " 0";
      return failed;
    });
    if (outcome.rfind(kNotSteady, 0) != 0) {
      r.instructions_whole = whole.instructions.size();
      r.instructions_simulated = shortened.program.instructions.size();
      for (const KeptRun& run : shortened.runs) {
        ++r.runs;
        r.units_simulated += run.kept_units;
        r.units_extrapolated += run.removed_units;
      }
      return deserialize(outcome);
    }
    // Keep more units of the runs that were not yet periodic; a run that would keep more than
    // half of itself is simulated whole.
    std::istringstream flags(outcome.substr(std::string(kNotSteady).size()));
    std::vector<RepeatedRun> next_runs;
    std::vector<std::size_t> next_kept;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      int steady = 0;
      flags >> steady;
      const std::size_t want = steady != 0 ? kept[i] : kept[i] * kKeptGrowth;
      if (2 * want <= runs[i].units) {
        next_runs.push_back(runs[i]);
        next_kept.push_back(want);
      }
    }
    runs = std::move(next_runs);
    kept = std::move(next_kept);
  }
  return execute_on_simgrid(setup);
}

} // namespace gpuscale::engine
