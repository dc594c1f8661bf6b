#include "sim/engine/AnalyticalExecutor.hpp"

#include "sim/engine/RouteCosts.hpp"
#include "sim/engine/collectives/AnalyticalCollective.hpp"

#include <algorithm>
#include <stdexcept>

namespace gpuscale::engine {
namespace {

constexpr Stream kStreams[] = {Stream::Gradients, Stream::Parameters, Stream::TensorParallel, Stream::ContextParallel};

/// One collective a GPU handed to one of its streams.
struct Submission {
  double submitted_s = 0;
  CollectiveOp op = CollectiveOp::AllReduce;
  double bytes = 0;
  double end_s = -1; ///< < 0 until the collective has been timed
};

/// A GPU executing its program: runs until it waits for a collective not yet timed.
class GpuRun {
public:
  GpuRun(const StepProgram& program, double speed_flop_per_s) : program_(program), speed_flop_per_s_(speed_flop_per_s)
  {
  }

  /// Executes instructions until the program ends or blocks; true if it moved on.
  bool advance()
  {
    bool moved = false;
    while (next_ < program_.instructions.size()) {
      const Instruction& instruction = program_.instructions[next_];
      auto& stream = submissions[static_cast<std::size_t>(instruction.stream)];
      switch (instruction.kind) {
        case Instruction::Kind::Compute: { // GpuActor: a kernel is FLOP / host speed
          const double duration_s = instruction.amount / speed_flop_per_s_;
          clock_s += duration_s;
          timeline.compute_s += duration_s;
          break;
        }
        case Instruction::Kind::Sleep:
          clock_s += instruction.amount;
          timeline.compute_s += instruction.amount;
          break;
        case Instruction::Kind::Submit:
          stream.push_back({clock_s, instruction.op, instruction.amount});
          break;
        case Instruction::Kind::Wait: {
          const Submission& awaited = stream.at(instruction.ticket - 1);
          if (awaited.end_s < 0)
            return moved;
          clock_s = std::max(clock_s, awaited.end_s);
          break;
        }
      }
      ++next_;
      moved = true;
    }
    if (!finished()) {
      timeline.end_s = clock_s;
      done_ = true;
    }
    return moved;
  }

  bool finished() const { return done_; }

  std::array<std::vector<Submission>, kStreamCount> submissions;
  std::array<double, kStreamCount> stream_free_s{}; ///< when each stream finished its last collective
  std::array<std::size_t, kStreamCount> timed{};    ///< collectives of each stream timed so far
  double clock_s = 0;
  GpuTimeline timeline;

private:
  const StepProgram& program_;
  double speed_flop_per_s_;
  std::size_t next_ = 0;
  bool done_ = false;
};

/// Times every collective of `stream` in group `g` whose members have all submitted it; true if any.
bool time_ready_collectives(const StepSetup& setup, const RouteCosts& routes, Stream stream, std::size_t g,
                            std::vector<GpuRun>& gpus, StepTrace& trace)
{
  const StreamGroups groups = setup.groups_of(stream);
  const std::vector<int>& members = (*groups.groups)[g];
  const CommunicatorLayout& layout = (*groups.layouts)[g];
  const auto s = static_cast<std::size_t>(stream);
  bool timed_any = false;
  while (true) {
    const std::size_t k = gpus[static_cast<std::size_t>(members.front())].timed[s];
    for (int rank : members)
      if (gpus[static_cast<std::size_t>(rank)].submissions[s].size() <= k)
        return timed_any;
    const CollectiveOp op = gpus[static_cast<std::size_t>(members.front())].submissions[s][k].op;
    std::vector<double> bytes, clock_s;
    std::vector<CollectiveCounters> counters(members.size());
    for (int rank : members) {
      const GpuRun& gpu = gpus[static_cast<std::size_t>(rank)];
      const Submission& submission = gpu.submissions[s][k];
      if (submission.op != op)
        throw std::logic_error("members of a communicator submit different collectives");
      bytes.push_back(submission.bytes);
      // The stream takes the collective when it is submitted and the previous one is done.
      clock_s.push_back(std::max(submission.submitted_s, gpu.stream_free_s[s]));
    }
    const std::vector<double> start_s = clock_s;
    time_collective(op, groups.algorithm, layout, routes, bytes, clock_s, counters);
    for (std::size_t j = 0; j < members.size(); ++j) {
      GpuRun& gpu = gpus[static_cast<std::size_t>(members[j])];
      gpu.submissions[s][k].end_s = clock_s[j];
      gpu.stream_free_s[s] = clock_s[j];
      ++gpu.timed[s];
      StreamTrace& out = trace[static_cast<std::size_t>(members[j])].streams[s];
      out.busy_s += clock_s[j] - start_s[j];
      out.bytes_sent += counters[j].bytes_sent;
    }
    timed_any = true;
  }
}

} // namespace

StepTrace execute_analytically(const StepSetup& setup)
{
  const int p = setup.gpus();
  const RouteCosts routes(setup.topology, setup.routes, setup.scenario->simgrid);
  std::vector<GpuRun> gpus;
  gpus.reserve(static_cast<std::size_t>(p));
  StepTrace trace(static_cast<std::size_t>(p));
  for (int rank = 0; rank < p; ++rank) {
    gpus.emplace_back(setup.program_of(rank), setup.gpu_speed_flop_per_s[static_cast<std::size_t>(rank)]);
    for (Stream stream : kStreams)
      trace[static_cast<std::size_t>(rank)].streams[static_cast<std::size_t>(stream)].used =
          setup.program_of(rank).submitted[static_cast<std::size_t>(stream)] > 0;
  }
  // Alternate: every GPU runs until it blocks, then every collective all of whose members have
  // submitted it is timed. Each round unblocks at least one GPU unless the programs deadlock.
  bool progress = true;
  while (progress) {
    progress = false;
    for (auto& gpu : gpus)
      progress = gpu.advance() || progress;
    for (Stream stream : kStreams) {
      const std::size_t group_count = setup.groups_of(stream).groups->size();
      for (std::size_t g = 0; g < group_count; ++g)
        progress = time_ready_collectives(setup, routes, stream, g, gpus, trace) || progress;
    }
  }
  for (int rank = 0; rank < p; ++rank) {
    if (!gpus[static_cast<std::size_t>(rank)].finished())
      throw std::logic_error("step programs wait for collectives their communicators never complete");
    trace[static_cast<std::size_t>(rank)].timeline = gpus[static_cast<std::size_t>(rank)].timeline;
  }
  return trace;
}

} // namespace gpuscale::engine
