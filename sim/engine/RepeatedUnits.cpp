#include "sim/engine/RepeatedUnits.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <stdexcept>
#include <unordered_map>

namespace gpuscale::engine {
namespace {

/// An instruction with its wait ticket counted back from what its stream had submitted: equal keys
/// do the same thing wherever they stand in a repetition.
struct InstructionKey {
  Instruction::Kind kind;
  std::uint64_t amount_bits;
  Stream stream;
  CollectiveOp op;
  std::int64_t relative_ticket;

  bool operator==(const InstructionKey&) const = default;
};

std::vector<InstructionKey> keys_of(const StepProgram& program)
{
  std::array<std::size_t, kStreamCount> submitted{};
  std::vector<InstructionKey> keys;
  keys.reserve(program.instructions.size());
  for (const Instruction& in : program.instructions) {
    const auto s = static_cast<std::size_t>(in.stream);
    const bool uses_stream = in.kind == Instruction::Kind::Submit || in.kind == Instruction::Kind::Wait;
    InstructionKey key{in.kind, std::bit_cast<std::uint64_t>(in.amount), uses_stream ? in.stream : Stream::Gradients,
                       in.kind == Instruction::Kind::Submit ? in.op : CollectiveOp::AllReduce, 0};
    if (in.kind == Instruction::Kind::Wait)
      key.relative_ticket = static_cast<std::int64_t>(in.ticket) - static_cast<std::int64_t>(submitted[s]);
    if (in.kind == Instruction::Kind::Send || in.kind == Instruction::Kind::Receive)
      key.relative_ticket = in.peer;
    if (in.kind == Instruction::Kind::Submit)
      ++submitted[s];
    keys.push_back(key);
  }
  return keys;
}

std::uint64_t hash_of(const InstructionKey& k)
{
  std::uint64_t h = k.amount_bits * 0x9E3779B97F4A7C15ULL;
  for (std::uint64_t part : {static_cast<std::uint64_t>(k.kind), static_cast<std::uint64_t>(k.stream),
                             static_cast<std::uint64_t>(k.op), static_cast<std::uint64_t>(k.relative_ticket)})
    h = (h ^ part) * 0x100000001B3ULL;
  return h;
}

/// The periods worth trying: distances between consecutive occurrences of the same instruction, the
/// most frequent first. A run of u units of period L contributes u - 1 occurrences of L per
/// instruction of its unit.
std::vector<std::size_t> candidate_periods(const std::vector<InstructionKey>& keys, std::size_t min_units)
{
  std::unordered_map<std::uint64_t, std::size_t> last_seen;
  std::unordered_map<std::size_t, std::size_t> count_of_distance;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const std::uint64_t h = hash_of(keys[i]);
    auto [it, inserted] = last_seen.try_emplace(h, i);
    if (!inserted) {
      ++count_of_distance[i - it->second];
      it->second = i;
    }
  }
  std::vector<std::pair<std::size_t, std::size_t>> by_count; // (count, distance)
  for (const auto& [distance, count] : count_of_distance)
    if (count + 1 >= min_units)
      by_count.emplace_back(count, distance);
  std::sort(by_count.begin(), by_count.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  constexpr std::size_t kMaxCandidates = 48;
  std::vector<std::size_t> periods;
  for (std::size_t i = 0; i < by_count.size() && i < kMaxCandidates; ++i)
    periods.push_back(by_count[i].second);
  return periods;
}

/// Whether a unit of keys[begin, begin + length) can repeat with one period. A unit that submits
/// collectives but neither computes, sleeps nor waits cannot: its instructions take no time (period
/// 0) while its collectives queue behind each other on their stream, each starting when the one
/// before has ended (period > 0). Such runs (ZeRO-1's reduce-scatters submitted together after the
/// backward) would only cost a shortened try that the check refuses.
bool can_have_one_period(const std::vector<InstructionKey>& keys, std::size_t begin, std::size_t length)
{
  bool submits = false;
  for (std::size_t j = begin; j < begin + length; ++j) {
    switch (keys[j].kind) {
      case Instruction::Kind::Submit: submits = true; break;
      case Instruction::Kind::Compute:
      case Instruction::Kind::Sleep:
        if (keys[j].amount_bits != 0) // +0.0: takes no time
          return true;
        break;
      case Instruction::Kind::Wait:
      case Instruction::Kind::Send:
      case Instruction::Kind::Receive:
      case Instruction::Kind::WaitTransfers: return true;
    }
  }
  return !submits;
}

/// Maximal runs of period `period` with at least `min_units` whole units that can have one period.
void add_runs_of_period(const std::vector<InstructionKey>& keys, std::size_t period, std::size_t min_units,
                        std::vector<RepeatedRun>& runs)
{
  const std::size_t n = keys.size();
  std::size_t i = 0;
  while (i + period < n) {
    if (!(keys[i] == keys[i + period])) {
      ++i;
      continue;
    }
    std::size_t matched = 0; // keys[i .. i+matched) equal keys[i+period .. i+period+matched)
    while (i + period + matched < n && keys[i + matched] == keys[i + period + matched])
      ++matched;
    const std::size_t units = (matched + period) / period;
    if (units >= min_units && can_have_one_period(keys, i, period))
      runs.push_back({i, period, units});
    i += matched;
  }
}

std::size_t saving(const RepeatedRun& run, std::size_t kept_units)
{
  return run.units > kept_units ? (run.units - kept_units) * run.unit_length : 0;
}

/// `run` with the units that overlap [begin, end) cut off its ends (whole units only).
RepeatedRun trimmed_against(RepeatedRun run, std::size_t begin, std::size_t end)
{
  if (run.end() <= begin || run.begin >= end)
    return run;
  const std::size_t L = run.unit_length;
  if (run.begin >= begin) { // overlaps at its start: drop leading units
    const std::size_t drop = (end - run.begin + L - 1) / L;
    run.units = drop >= run.units ? 0 : run.units - drop;
    run.begin += drop * L;
  } else { // starts before: keep the units that end by `begin`
    run.units = std::min(run.units, (begin - run.begin) / L);
  }
  return run;
}

} // namespace

std::vector<RepeatedRun> find_repeated_runs(const StepProgram& program, std::size_t kept_units, std::size_t min_units)
{
  const std::vector<InstructionKey> keys = keys_of(program);
  std::vector<RepeatedRun> candidates;
  for (std::size_t period : candidate_periods(keys, min_units))
    add_runs_of_period(keys, period, min_units, candidates);

  std::vector<RepeatedRun> chosen;
  while (true) {
    auto best = std::max_element(candidates.begin(), candidates.end(), [&](const auto& a, const auto& b) {
      return saving(a, kept_units) < saving(b, kept_units);
    });
    if (best == candidates.end() || saving(*best, kept_units) == 0)
      break;
    const RepeatedRun pick = *best;
    chosen.push_back(pick);
    for (RepeatedRun& c : candidates) {
      c = trimmed_against(c, pick.begin, pick.end());
      if (c.units < min_units)
        c.units = 0;
    }
  }
  std::sort(chosen.begin(), chosen.end(), [](const auto& a, const auto& b) { return a.begin < b.begin; });
  return chosen;
}

ShortenedProgram shorten(const StepProgram& program, const std::vector<RepeatedRun>& runs,
                         const std::vector<std::size_t>& kept_units)
{
  if (kept_units.size() != runs.size())
    throw std::logic_error("shorten: one kept count per run expected");
  ShortenedProgram out;
  StepProgram& shortened = out.program;
  // new_ticket[s][t]: the ticket in the shortened program that original ticket t of stream s maps to.
  std::array<std::vector<std::size_t>, kStreamCount> new_ticket;
  for (std::size_t s = 0; s < kStreamCount; ++s)
    new_ticket[s].assign(program.submitted[s] + 1, 0);
  std::array<std::size_t, kStreamCount> submitted{}; // original tickets seen so far

  std::size_t next_run = 0;
  std::size_t i = 0;
  const auto& instructions = program.instructions;
  while (i < instructions.size()) {
    if (next_run < runs.size() && runs[next_run].begin == i) {
      const std::size_t run_index = next_run++;
      const RepeatedRun& run = runs[run_index];
      KeptRun kept;
      kept.original = run;
      kept.begin = shortened.instructions.size();
      kept.kept_units = std::min(run.units, kept_units[run_index]);
      kept.removed_units = run.units - kept.kept_units;
      for (std::size_t s = 0; s < kStreamCount; ++s)
        kept.first_ticket[s] = shortened.submitted[s] + 1;
      for (std::size_t u = 0; u < run.units; ++u) {
        const bool keep = u < kept.kept_units;
        for (std::size_t j = 0; j < run.unit_length; ++j) {
          const Instruction& in = instructions[i++];
          const auto s = static_cast<std::size_t>(in.stream);
          if (in.kind == Instruction::Kind::Submit) {
            const std::size_t t = ++submitted[s];
            if (u == 0)
              ++kept.tickets_per_unit[s];
            if (keep) {
              new_ticket[s][t] = ++shortened.submitted[s];
            } else if (u >= kept.removed_units) { // the same collective of the kept unit removed_units earlier
              new_ticket[s][t] = new_ticket[s][t - kept.removed_units * kept.tickets_per_unit[s]];
            } // else: no kept unit stands for it (0); a wait for it is refused below

          }
          if (!keep)
            continue;
          Instruction copy = in;
          if (in.kind == Instruction::Kind::Wait) {
            copy.ticket = new_ticket[s][in.ticket];
            if (copy.ticket == 0 && in.ticket != 0)
              throw std::logic_error("shorten: a wait points into removed units of its run");
          }
          shortened.instructions.push_back(copy);
        }
      }
      out.runs.push_back(kept);
      continue;
    }
    const Instruction& in = instructions[i++];
    const auto s = static_cast<std::size_t>(in.stream);
    Instruction copy = in;
    if (in.kind == Instruction::Kind::Submit)
      new_ticket[s][++submitted[s]] = ++shortened.submitted[s];
    if (in.kind == Instruction::Kind::Wait) {
      copy.ticket = new_ticket[s][in.ticket];
      if (copy.ticket == 0)
        throw std::logic_error("shorten: a wait points before the repeated run it follows");
    }
    shortened.instructions.push_back(copy);
  }
  for (const Instruction& in : shortened.instructions) {
    if (in.kind == Instruction::Kind::Compute)
      shortened.compute_flop += in.amount;
    if (in.kind == Instruction::Kind::Sleep)
      shortened.sleep_s += in.amount;
  }
  return out;
}

} // namespace gpuscale::engine
