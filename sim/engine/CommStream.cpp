#include "sim/engine/CommStream.hpp"

#include <simgrid/s4u/Engine.hpp>

#include <mutex>

namespace sg4 = simgrid::s4u;

namespace gpuscale::engine {

CommStream::CommStream(Collective collective)
    : collective_(std::move(collective)), mutex_(sg4::Mutex::create()), changed_(sg4::ConditionVariable::create())
{
}

void CommStream::submit(double bytes)
{
  std::unique_lock lock(*mutex_);
  pending_bytes_.push_back(bytes);
  changed_->notify_all();
}

void CommStream::wait_idle()
{
  std::unique_lock lock(*mutex_);
  changed_->wait(lock, [this] { return pending_bytes_.empty() && !running_; });
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
    changed_->wait(lock, [this] { return !pending_bytes_.empty() || closed_; });
    if (pending_bytes_.empty())
      return; // closed and drained
    const double bytes = pending_bytes_.front();
    pending_bytes_.pop_front();
    running_ = true;
    lock.unlock();
    const double start = sg4::Engine::get_clock();
    collective_(bytes, counters_);
    busy_s_ += sg4::Engine::get_clock() - start;
    lock.lock();
    running_ = false;
    changed_->notify_all();
  }
}

} // namespace gpuscale::engine
