#pragma once
/// The compute side of one GPU: runs a StepSchedule on its host and hands gradient buckets to its
/// CommStream. Records its timeline; it never writes files.

#include "sim/engine/CommStream.hpp"
#include "sim/engine/TrainingSchedule.hpp"

namespace gpuscale::engine {

/// When things happened on one GPU during the simulated step (simulated seconds from 0).
struct GpuTimeline {
  double compute_s = 0;       ///< time spent executing kernels (forward, backward, optimizer)
  double backward_end_s = 0;  ///< end of the last backward kernel
  double comm_done_s = 0;     ///< all of the step's collectives finished
  double end_s = 0;           ///< optimizer step finished
};

class GpuActor {
public:
  GpuActor(const StepSchedule& schedule, CommStream& stream, GpuTimeline& timeline)
      : schedule_(schedule), stream_(stream), timeline_(timeline)
  {
  }

  void operator()();

private:
  void compute(double flop);

  const StepSchedule& schedule_;
  CommStream& stream_;
  GpuTimeline& timeline_;
};

} // namespace gpuscale::engine
