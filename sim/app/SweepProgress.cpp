#include "sim/app/SweepProgress.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace gpuscale::app {
namespace {

constexpr int kBarWidth = 24;
constexpr auto kInteractivePeriod = std::chrono::milliseconds(100);
constexpr auto kPlainPeriod = std::chrono::seconds(30);

std::string format_duration(double seconds)
{
  const long long s = static_cast<long long>(seconds + 0.5);
  return fmt::format("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60);
}

} // namespace

SweepProgress::SweepProgress(std::size_t total, double total_cost, bool interactive, std::FILE* out)
    : total_(total), total_cost_(total_cost), interactive_(interactive), out_(out),
      start_(std::chrono::steady_clock::now()), last_draw_(start_)
{
}

double SweepProgress::elapsed_s() const
{
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

double SweepProgress::rate(std::size_t done) const
{
  const double elapsed = elapsed_s();
  return elapsed > 0 ? static_cast<double>(done) / elapsed : 0.0;
}

std::string SweepProgress::format_line(std::size_t done, std::size_t total, std::size_t failed, double elapsed_s,
                                       double cost_fraction_done)
{
  const double fraction = total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
  const int filled = std::clamp(static_cast<int>(fraction * kBarWidth), 0, kBarWidth);
  const double rate = elapsed_s > 0 ? static_cast<double>(done) / elapsed_s : 0.0;
  const double cost_done = std::clamp(cost_fraction_done, 0.0, 1.0);
  const std::string eta = done >= total ? "done"
                          : cost_done > 0 && elapsed_s > 0 ? format_duration(elapsed_s * (1 - cost_done) / cost_done)
                                                           : "?";
  const int width = static_cast<int>(std::to_string(total).size());
  return fmt::format("[{}{}] {:>{}}/{} {:>3.0f}%  {:.1f} sim/s  elapsed {}  ETA {}{}", std::string(filled, '#'),
                     std::string(kBarWidth - filled, '.'), done, width, total, 100 * fraction, rate,
                     format_duration(elapsed_s), eta, failed > 0 ? fmt::format("  failed {}", failed) : "");
}

void SweepProgress::draw(std::size_t done, std::size_t failed, double cost_done)
{
  const std::string line =
      format_line(done, total_, failed, elapsed_s(), total_cost_ > 0 ? cost_done / total_cost_ : 0.0);
  if (interactive_)
    fmt::print(out_, "\r{}\x1b[K", line);
  else
    fmt::print(out_, "{}\n", line);
  std::fflush(out_);
  last_draw_ = std::chrono::steady_clock::now();
  last_drawn_done_ = done;
  drawn_ = true;
}

void SweepProgress::discount(double cost)
{
  total_cost_ = std::max(0.0, total_cost_ - cost);
}

void SweepProgress::update(std::size_t done, std::size_t failed, double cost_done)
{
  const auto now = std::chrono::steady_clock::now();
  if (interactive_) {
    if (!drawn_ || now - last_draw_ >= kInteractivePeriod)
      draw(done, failed, cost_done);
    return;
  }
  const std::size_t step = std::max<std::size_t>(1, total_ / 10);
  if (done / step > last_drawn_done_ / step || now - last_draw_ >= kPlainPeriod)
    draw(done, failed, cost_done);
}

void SweepProgress::finish(std::size_t done, std::size_t failed, double cost_done)
{
  if (!interactive_ && drawn_ && last_drawn_done_ == done)
    return;
  draw(done, failed, cost_done);
  if (interactive_)
    fmt::print(out_, "\n");
}

} // namespace gpuscale::app
