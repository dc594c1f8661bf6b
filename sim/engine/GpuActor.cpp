#include "sim/engine/GpuActor.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Mailbox.hpp>

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

namespace {

/// The mailbox of transfers from `src` to `dst`.
sg4::Mailbox* transfer_mailbox(int src, int dst)
{
  return sg4::Mailbox::by_name("p2p/" + std::to_string(src) + "/" + std::to_string(dst));
}

char payload = 0; ///< what every send carries: only the simulated size matters

} // namespace

void GpuActor::post_transfer(const Instruction& instruction)
{
  if (rank_ < 0 || transfers_ == nullptr)
    throw std::logic_error("step program sends between pipeline stages but the GPU has no pipeline neighbours");
  const int peer = peer_rank(instruction.peer);
  transfers_->used = true;
  if (instruction.kind == Instruction::Kind::Send) {
    posted_.push_back(transfer_mailbox(rank_, peer)->put_async(&payload, static_cast<std::uint64_t>(instruction.amount)));
    transfers_->bytes_sent += instruction.amount;
  } else {
    received_.push_back(nullptr);
    posted_.push_back(transfer_mailbox(peer, rank_)->get_async<void>(&received_.back()));
  }
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
      case Instruction::Kind::Send:
      case Instruction::Kind::Receive: post_transfer(instruction); break;
      case Instruction::Kind::WaitTransfers: {
        const double start_s = sg4::Engine::get_clock();
        sg4::Comm::wait_all(posted_);
        posted_.clear();
        received_.clear();
        transfers_->busy_s += sg4::Engine::get_clock() - start_s;
        break;
      }
    }
  }
  for (CommStream* s : streams_)
    if (s != nullptr)
      s->close();
  timeline_.end_s = sg4::Engine::get_clock();
}

} // namespace gpuscale::engine
