#include "sim/engine/StepProgram.hpp"

namespace gpuscale::engine {

void StepProgram::compute(double flop)
{
  if (flop <= 0)
    return;
  compute_flop += flop;
  // Consecutive kernels with nothing in between are one activity: same time, fewer simulation events.
  if (!instructions.empty() && instructions.back().kind == Instruction::Kind::Compute) {
    instructions.back().amount += flop;
    return;
  }
  instructions.push_back({Instruction::Kind::Compute, flop});
}

void StepProgram::sleep(double seconds)
{
  if (seconds <= 0)
    return;
  sleep_s += seconds;
  instructions.push_back({Instruction::Kind::Sleep, seconds});
}

void StepProgram::host(double seconds)
{
  if (seconds <= 0)
    return;
  sleep(seconds);
  host_s += seconds;
}

std::size_t StepProgram::submit(Stream stream, CollectiveOp op, double bytes)
{
  if (bytes <= 0)
    return submitted[static_cast<std::size_t>(stream)];
  instructions.push_back({Instruction::Kind::Submit, bytes, stream, op, 0});
  return ++submitted[static_cast<std::size_t>(stream)];
}

void StepProgram::wait(Stream stream, std::size_t ticket)
{
  if (ticket == 0)
    return;
  instructions.push_back({Instruction::Kind::Wait, 0, stream, CollectiveOp::AllReduce, ticket});
}

void StepProgram::send(int peer, double bytes)
{
  Instruction in{Instruction::Kind::Send, bytes};
  in.peer = peer;
  instructions.push_back(in);
  ++transfers;
}

void StepProgram::receive(int peer, double bytes)
{
  Instruction in{Instruction::Kind::Receive, bytes};
  in.peer = peer;
  instructions.push_back(in);
  ++transfers;
}

void StepProgram::wait_transfers()
{
  instructions.push_back({Instruction::Kind::WaitTransfers});
}

void StepProgram::run_blocking(Stream stream, CollectiveOp op, double bytes)
{
  wait(stream, submit(stream, op, bytes));
}

} // namespace gpuscale::engine
