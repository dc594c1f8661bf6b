#include "sim/app/RunProgress.hpp"

#include <fmt/format.h>

#include <chrono>
#include <unistd.h>

namespace gpuscale::app {
namespace {

constexpr auto kFirstDraw = std::chrono::seconds(1); // a short run shows nothing
constexpr auto kPeriod = std::chrono::milliseconds(500);

} // namespace

RunProgress::RunProgress(std::string what, std::FILE* out) : what_(std::move(what)), out_(out)
{
  if (::isatty(::fileno(out_)) == 1)
    drawer_ = std::thread([this] { draw_until_stopped(); });
}

RunProgress::~RunProgress()
{
  if (!drawer_.joinable())
    return;
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  stop_requested_.notify_all();
  drawer_.join();
}

std::string RunProgress::format_line(const std::string& what, double elapsed_s)
{
  const long long s = static_cast<long long>(elapsed_s);
  return fmt::format("{} ... {}:{:02}:{:02}", what, s / 3600, (s / 60) % 60, s % 60);
}

void RunProgress::draw_until_stopped()
{
  const auto start = std::chrono::steady_clock::now();
  std::unique_lock lock(mutex_);
  if (stop_requested_.wait_for(lock, kFirstDraw, [this] { return stop_; }))
    return;
  do {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    fmt::print(out_, "\r{}\x1b[K", format_line(what_, elapsed));
    std::fflush(out_);
  } while (!stop_requested_.wait_for(lock, kPeriod, [this] { return stop_; }));
  fmt::print(out_, "\r\x1b[K"); // erase: the summary follows on stdout
  std::fflush(out_);
}

} // namespace gpuscale::app
