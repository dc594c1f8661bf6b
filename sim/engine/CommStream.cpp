#include "sim/engine/CommStream.hpp"

#include <simgrid/s4u/Engine.hpp>

#include <mutex>

namespace sg4 = simgrid::s4u;

namespace gpuscale::engine {

CommStream::CommStream(const Communicator& comm, int rank, model::CollectiveAlgorithm algorithm)
    : comm_(comm), rank_(rank), algorithm_(algorithm), mutex_(sg4::Mutex::create()),
      changed_(sg4::ConditionVariable::create())
{
}

void CommStream::submit(CollectiveOp op, double bytes)
{
  std::unique_lock lock(*mutex_);
  pending_.push_back({op, bytes});
  changed_->notify_all();
}

void CommStream::wait_completed(std::size_t count)
{
  std::unique_lock lock(*mutex_);
  changed_->wait(lock, [this, count] { return completed_ >= count; });
}

void CommStream::close()
{
  std::unique_lock lock(*mutex_);
  closed_ = true;
  changed_->notify_all();
}

void CommStream::operator()()
{
  std::unique_lock lock(*mutex_);
  while (true) {
    changed_->wait(lock, [this] { return !pending_.empty() || closed_; });
    if (pending_.empty())
      return; // closed and drained
    const Pending next = pending_.front();
    pending_.pop_front();
    lock.unlock();
    const double start = sg4::Engine::get_clock();
    run_collective(next.op, algorithm_, comm_, rank_, next.bytes, counters_);
    busy_s_ += sg4::Engine::get_clock() - start;
    lock.lock();
    ++completed_;
    changed_->notify_all();
  }
}

} // namespace gpuscale::engine
