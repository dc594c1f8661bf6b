#include "sim/engine/AnalyticalExecutor.hpp"

#include "sim/engine/RouteCosts.hpp"
#include "sim/engine/collectives/AnalyticalCollective.hpp"

#include <algorithm>
#include <map>
#include <string>
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

/// The point-to-point transfers from one GPU to another, matched in the order each side posts them.
struct Channel {
  std::vector<double> send_s;     ///< when each send was posted
  std::vector<double> bytes;
  std::vector<double> receive_s;  ///< when each receive was posted
  std::vector<double> end_s;      ///< per matched pair: when the transfer ended
};

/// Every channel of the step, by (source, destination) rank.
using Channels = std::map<std::pair<int, int>, Channel>;

/// Times every transfer both of whose sides are posted: it starts when the later side is posted and
/// takes the route's α + bytes / rate, as alone on its route; true if any.
bool time_ready_transfers(const RouteCosts& routes, Channels& channels)
{
  bool timed_any = false;
  for (auto& [pair, channel] : channels)
    while (channel.end_s.size() < std::min(channel.send_s.size(), channel.receive_s.size())) {
      const std::size_t k = channel.end_s.size();
      const double start_s = std::max(channel.send_s[k], channel.receive_s[k]);
      channel.end_s.push_back(start_s + routes.transfer_s(pair.first, pair.second, channel.bytes[k]));
      timed_any = true;
    }
  return timed_any;
}

/// A GPU executing its program: runs until it waits for a collective or transfer not yet timed.
class GpuRun {
public:
  GpuRun(const StepProgram& program, double speed_flop_per_s) : program_(program), speed_flop_per_s_(speed_flop_per_s)
  {
  }

  /// The GPU's rank and pipeline neighbours, and the channels its transfers go through.
  void set_pipeline(int rank, int previous_rank, int next_rank, Channels* channels, StreamTrace* transfers)
  {
    rank_ = rank;
    previous_rank_ = previous_rank;
    next_rank_ = next_rank;
    channels_ = channels;
    transfers_ = transfers;
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
        case Instruction::Kind::Send:
        case Instruction::Kind::Receive: post_transfer(instruction); break;
        case Instruction::Kind::WaitTransfers: {
          double end_s = clock_s;
          for (const auto& [channel, k] : posted_) {
            if (channel->end_s.size() <= k)
              return moved;
            end_s = std::max(end_s, channel->end_s[k]);
          }
          transfers_->busy_s += end_s - clock_s;
          clock_s = end_s;
          posted_.clear();
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
  void post_transfer(const Instruction& instruction)
  {
    if (channels_ == nullptr)
      throw std::logic_error("step program sends between pipeline stages but the GPU has no pipeline neighbours");
    const int peer = instruction.peer == kNextStage ? next_rank_ : previous_rank_;
    transfers_->used = true;
    if (instruction.kind == Instruction::Kind::Send) {
      Channel& channel = (*channels_)[{rank_, peer}];
      channel.send_s.push_back(clock_s);
      channel.bytes.push_back(instruction.amount);
      transfers_->bytes_sent += instruction.amount;
      posted_.emplace_back(&channel, channel.send_s.size() - 1);
    } else {
      Channel& channel = (*channels_)[{peer, rank_}];
      channel.receive_s.push_back(clock_s);
      posted_.emplace_back(&channel, channel.receive_s.size() - 1);
    }
  }

  const StepProgram& program_;
  double speed_flop_per_s_;
  int rank_ = -1;
  int previous_rank_ = -1;
  int next_rank_ = -1;
  Channels* channels_ = nullptr;
  StreamTrace* transfers_ = nullptr;
  std::vector<std::pair<const Channel*, std::size_t>> posted_; ///< transfers posted since the last wait
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
  Channels channels;
  for (int rank = 0; rank < p; ++rank) {
    gpus.emplace_back(setup.program_of(rank), setup.gpu_speed_flop_per_s[static_cast<std::size_t>(rank)]);
    if (setup.program_of(rank).transfers > 0)
      gpus.back().set_pipeline(rank, setup.parallel.previous_stage_rank(rank), setup.parallel.next_stage_rank(rank),
                               &channels, &trace[static_cast<std::size_t>(rank)].pipeline);
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
    progress = time_ready_transfers(routes, channels) || progress;
  }
  for (int rank = 0; rank < p; ++rank) {
    if (!gpus[static_cast<std::size_t>(rank)].finished())
      throw std::logic_error("step programs wait for collectives their communicators never complete");
    trace[static_cast<std::size_t>(rank)].timeline = gpus[static_cast<std::size_t>(rank)].timeline;
  }
  for (const auto& [pair, channel] : channels)
    if (channel.send_s.size() != channel.receive_s.size())
      throw std::logic_error("pipeline stages post unequal sends and receives from rank " + std::to_string(pair.first) +
                             " to rank " + std::to_string(pair.second));
  return trace;
}

} // namespace gpuscale::engine
