#include "sim/engine/GpuActor.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

namespace sg4 = simgrid::s4u;

namespace gpuscale::engine {

void GpuActor::compute(double flop)
{
  if (flop <= 0)
    return;
  const double start = sg4::Engine::get_clock();
  sg4::this_actor::execute(flop); // on this actor's own host (see SIMGRID-NOTES: Host::execute trap)
  timeline_.compute_s += sg4::Engine::get_clock() - start;
}

void GpuActor::operator()()
{
  for (int micro = 0; micro < schedule_.micro_batches; ++micro) {
    compute(schedule_.forward_flop);
    if (micro + 1 < schedule_.micro_batches) {
      compute(schedule_.backward_flop); // DDP no_sync(): gradients accumulate locally
      continue;
    }
    for (const BackwardSegment& segment : schedule_.last_backward) {
      compute(segment.flop);
      if (segment.bucket_bytes > 0)
        stream_.submit(segment.bucket_bytes);
    }
  }
  timeline_.backward_end_s = sg4::Engine::get_clock();
  stream_.wait_idle();
  stream_.close();
  timeline_.comm_done_s = sg4::Engine::get_clock();
  if (schedule_.optimizer_s > 0) {
    sg4::this_actor::sleep_for(schedule_.optimizer_s);
    timeline_.compute_s += schedule_.optimizer_s;
  }
  timeline_.end_s = sg4::Engine::get_clock();
}

} // namespace gpuscale::engine
