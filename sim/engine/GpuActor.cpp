#include "sim/engine/GpuActor.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include <stdexcept>

namespace sg4 = simgrid::s4u;

namespace gpuscale::engine {

CommStream& GpuActor::stream(Stream s) const
{
  CommStream* stream = streams_[static_cast<std::size_t>(s)];
  if (stream == nullptr)
    throw std::logic_error("step program uses a communication stream that was not created");
  return *stream;
}

void GpuActor::operator()()
{
  // This actor is the only one computing on its GPU's host (communication actors never compute), so
  // a kernel always has the whole GPU: its duration is FLOP / speed, exactly what an Exec activity
  // would take. A sleep gives that time at a third of the simulation cost (an Exec also enters the
  // CPU model's sharing solver), which matters at 1000 GPUs x 800 kernels (docs/BENCHMARKS_COLLECTIVES.md,
  // "What bounds an unfolded step: SimGrid's cost per flow").
  const double speed_flop_per_s = sg4::this_actor::get_host()->get_speed();
  for (const Instruction& instruction : program_.instructions) {
    if (instruction_start_s_ != nullptr)
      instruction_start_s_->push_back(sg4::Engine::get_clock());
    switch (instruction.kind) {
      case Instruction::Kind::Compute: {
        const double duration_s = instruction.amount / speed_flop_per_s;
        sg4::this_actor::sleep_for(duration_s);
        timeline_.compute_s += duration_s;
        break;
      }
      case Instruction::Kind::Sleep:
        sg4::this_actor::sleep_for(instruction.amount);
        timeline_.compute_s += instruction.amount;
        break;
      case Instruction::Kind::Submit:
        stream(instruction.stream).submit(instruction.op, instruction.amount);
        break;
      case Instruction::Kind::Wait:
        stream(instruction.stream).wait_completed(instruction.ticket);
        break;
    }
  }
  for (CommStream* s : streams_)
    if (s != nullptr)
      s->close();
  timeline_.end_s = sg4::Engine::get_clock();
}

} // namespace gpuscale::engine
