#pragma once
/// The compute side of one GPU: executes its StepProgram on its host, handing collectives to its
/// communication streams. Records its timeline; it never writes files.

#include "sim/engine/CommStream.hpp"
#include "sim/engine/StepProgram.hpp"
#include "sim/engine/StepTrace.hpp"

#include <simgrid/s4u/Comm.hpp>

#include <array>
#include <deque>
#include <string>
#include <vector>

namespace gpuscale::engine {

class GpuActor {
public:
  /// `streams[s]` may be null for streams the program never uses. With `instruction_start_s`, the
  /// start time of every instruction is appended to it.
  GpuActor(const StepProgram& program, std::array<CommStream*, kStreamCount> streams, GpuTimeline& timeline,
           std::vector<double>* instruction_start_s = nullptr)
      : program_(program), streams_(streams), timeline_(timeline), instruction_start_s_(instruction_start_s)
  {
  }

  /// The GPU's rank, its previous and next pipeline stage's ranks, and where its point-to-point
  /// transfers are counted: needed by a program that sends (StepProgram::send).
  void set_pipeline(int rank, int previous_rank, int next_rank, StreamTrace* transfers)
  {
    rank_ = rank;
    previous_rank_ = previous_rank;
    next_rank_ = next_rank;
    transfers_ = transfers;
  }

  void operator()();

private:
  CommStream& stream(Stream s) const;
  int peer_rank(int peer) const { return peer == kNextStage ? next_rank_ : previous_rank_; }
  /// Posts a send or receive: SimGrid's mailbox of the (source, destination) pair matches them in
  /// order, and the transfer starts once both are posted, as an NCCL send waits for its receive.
  void post_transfer(const Instruction& instruction);

  const StepProgram& program_;
  std::array<CommStream*, kStreamCount> streams_;
  GpuTimeline& timeline_;
  std::vector<double>* instruction_start_s_;
  int rank_ = -1;
  int previous_rank_ = -1;
  int next_rank_ = -1;
  StreamTrace* transfers_ = nullptr;
  std::vector<simgrid::s4u::CommPtr> posted_;
  std::deque<void*> received_; ///< payload slots of posted receives (stable while they run)
};

} // namespace gpuscale::engine
