#include "sim/engine/GpuActor.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

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
  for (const Instruction& instruction : program_.instructions) {
    switch (instruction.kind) {
      case Instruction::Kind::Compute: {
        const double start = sg4::Engine::get_clock();
        sg4::this_actor::execute(instruction.amount); // on this actor's own host (SIMGRID-NOTES: Host::execute trap)
        timeline_.compute_s += sg4::Engine::get_clock() - start;
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
