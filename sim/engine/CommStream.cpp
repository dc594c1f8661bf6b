#include "sim/engine/CommStream.hpp"

#include <simgrid/s4u/Engine.hpp>

namespace sg4 = simgrid::s4u;

namespace gpuscale::engine {

CommStream::CommStream(const Communicator& comm, int rank, model::CollectiveAlgorithm algorithm)
    : comm_(comm), rank_(rank), algorithm_(algorithm), queued_(sg4::Semaphore::create(0)),
      reached_(sg4::Semaphore::create(0))
{
}

void CommStream::submit(CollectiveOp op, double bytes)
{
  pending_.push_back({op, bytes, false});
  queued_->release();
}

void CommStream::wait_completed(std::size_t count)
{
  if (completed_ >= count)
    return;
  waiting_for_ = count;
  reached_->acquire();
}

void CommStream::close()
{
  pending_.push_back({CollectiveOp::AllReduce, 0, true});
  queued_->release();
}

void CommStream::operator()()
{
  while (true) {
    queued_->acquire();
    const Pending next = pending_.front();
    pending_.pop_front();
    if (next.close)
      return;
    const double start = sg4::Engine::get_clock();
    const double sent_before = counters_.bytes_sent;
    run_collective(next.op, algorithm_, comm_, rank_, next.bytes, counters_);
    const double end = sg4::Engine::get_clock();
    busy_s_ += end - start;
    if (events_ != nullptr)
      events_->push_back({start, end, counters_.bytes_sent - sent_before});
    ++completed_;
    if (waiting_for_ != 0 && completed_ >= waiting_for_) {
      waiting_for_ = 0;
      reached_->release();
    }
  }
}

} // namespace gpuscale::engine
