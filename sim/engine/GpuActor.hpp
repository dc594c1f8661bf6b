#pragma once
/// The compute side of one GPU: executes its StepProgram on its host, handing collectives to its
/// communication streams. Records its timeline; it never writes files.

#include "sim/engine/CommStream.hpp"
#include "sim/engine/StepProgram.hpp"
#include "sim/engine/StepTrace.hpp"

#include <array>
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

  void operator()();

private:
  CommStream& stream(Stream s) const;

  const StepProgram& program_;
  std::array<CommStream*, kStreamCount> streams_;
  GpuTimeline& timeline_;
  std::vector<double>* instruction_start_s_;
};

} // namespace gpuscale::engine
