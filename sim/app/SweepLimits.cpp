#include "sim/app/SweepLimits.hpp"

#include "sim/app/CommandExit.hpp"
#include "sim/config/SweepReader.hpp"
#include "sim/model/SweepSpec.hpp"
#include "sim/results/ResultsFile.hpp"

#include <fmt/format.h>

#include <sys/statvfs.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <stdexcept>

namespace gpuscale::app {
namespace {

/// Per expanded point, besides its scenario text and the SweepPoint itself: strings, containers and
/// what the reader keeps. Measured: going from 2,000 to 200,000 points of a --dry-run raised the peak
/// RSS by 1.1 KB per point in all (docs/ROBUSTNESS.md); the estimate is about twice that.
constexpr double kPointOverheadBytes = 2 * 1024;
/// Per results row, besides the /runs row and the scenario text: the /scenarios/run_<id> dataset's
/// HDF5 object header, link and attribute. Measured: a 48-row sweep file grew ~1.07 KB per row
/// besides its rows, with 324-byte scenario texts; rounded up.
constexpr double kRowOverheadBytes = 1024;
/// The sweep may take this share of the memory available.
constexpr double kMemoryShare = 0.5;

std::string bytes(double value)
{
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int unit = 0;
  while (value >= 1024 && unit < 6) {
    value /= 1024;
    ++unit;
  }
  return fmt::format("{:.1f} {}", value, units[unit]);
}

std::string count(long double points)
{
  return points < 1e15L ? fmt::format("{}", static_cast<long long>(points)) : fmt::format("{:.3g}", static_cast<double>(points));
}

double available_memory_bytes()
{
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  double kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit)
    if (key == "MemAvailable:")
      return kib * 1024;
  return std::numeric_limits<double>::infinity();
}

double free_disk_bytes(const std::string& output_path)
{
  std::filesystem::path folder = std::filesystem::path(output_path).parent_path();
  if (folder.empty())
    folder = ".";
  struct statvfs stats {};
  if (::statvfs(folder.c_str(), &stats) != 0)
    return std::numeric_limits<double>::infinity();
  return static_cast<double>(stats.f_bavail) * static_cast<double>(stats.f_frsize);
}

} // namespace

SweepEstimate estimate_sweep(const config::SweepSize& size)
{
  const double text = static_cast<double>(size.scenario_bytes) + 200; // plus the point's header comment
  const double row = static_cast<double>(results::encode_run_record(results::RunRecord{}).size());
  SweepEstimate estimate;
  estimate.points = size.points;
  estimate.memory_bytes = static_cast<double>(size.points) * (text + sizeof(model::SweepPoint) + kPointOverheadBytes);
  estimate.results_bytes = static_cast<double>(size.points) * (row + text + kRowOverheadBytes);
  return estimate;
}

MachineRoom machine_room(const std::string& output_path)
{
  return {available_memory_bytes(), free_disk_bytes(output_path)};
}

std::vector<std::string> sweep_size_concerns(const SweepEstimate& estimate, const MachineRoom& room)
{
  std::vector<std::string> concerns;
  if (estimate.points > kConfirmSweepPoints)
    concerns.push_back(fmt::format("it has {} points (more than {})", count(estimate.points),
                                   count(kConfirmSweepPoints)));
  if (estimate.memory_bytes > kMemoryShare * room.available_memory_bytes)
    concerns.push_back(fmt::format("expanding it needs about {} of memory; {} is available", bytes(estimate.memory_bytes),
                                   bytes(room.available_memory_bytes)));
  if (estimate.results_bytes > room.free_disk_bytes)
    concerns.push_back(fmt::format("its results need about {} of disk; {} is free there", bytes(estimate.results_bytes),
                                   bytes(room.free_disk_bytes)));
  return concerns;
}

void confirm_sweep_size(const std::string& sweep_path, const std::string& output_path, bool yes)
{
  const auto size = config::measure_sweep(sweep_path);
  if (!size || size->points > config::kMaxSweepPoints)
    return; // read_sweep reports why, located
  const auto concerns = sweep_size_concerns(estimate_sweep(*size), machine_room(output_path));
  if (concerns.empty() || yes)
    return;
  std::string text;
  for (const auto& concern : concerns)
    text += (text.empty() ? "" : "; ") + concern;
  if (::isatty(STDIN_FILENO) == 1 && ::isatty(STDERR_FILENO) == 1) {
    std::fflush(stdout);
    fmt::print(stderr, "gpuscale: {} is a large sweep: {}.\nRun it anyway? [y/N] ", sweep_path, text);
    std::fflush(stderr);
    std::string answer;
    std::getline(std::cin, answer);
    if (answer == "y" || answer == "Y" || answer == "yes")
      return;
    throw CommandExit(1, "sweep not started");
  }
  throw std::invalid_argument(sweep_path + " is a large sweep: " + text +
                              "; not started (pass --yes to run it anyway, or split it with --shard)");
}

} // namespace gpuscale::app
