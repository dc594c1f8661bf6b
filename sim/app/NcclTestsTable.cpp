#include "sim/app/NcclTestsTable.hpp"
#include "sim/app/JsonText.hpp"

#include <fmt/format.h>

namespace gpuscale::app {
namespace {

/// nccl-tests' time column: fewer decimals as the time grows (common.cu, BenchTime).
std::string time_column(double time_us)
{
  if (time_us >= 10000.0)
    return fmt::format("{:7.0f}", time_us);
  if (time_us >= 100.0)
    return fmt::format("{:7.1f}", time_us);
  return fmt::format("{:7.2f}", time_us);
}

/// "halving_doubling 8 B - 512 KiB, nvls 1 MiB - 16 GiB": which sizes ran which algorithm.
std::string algorithm_ranges(const std::vector<NcclTestsTableRow>& rows)
{
  std::string text;
  for (std::size_t i = 0; i < rows.size();) {
    std::size_t j = i;
    while (j + 1 < rows.size() && rows[j + 1].algorithm == rows[i].algorithm)
      ++j;
    text += fmt::format("{}{} {} B", text.empty() ? "" : ", ", rows[i].algorithm, rows[i].size_bytes);
    if (j > i)
      text += fmt::format(" - {} B", rows[j].size_bytes);
    i = j + 1;
  }
  return text;
}

} // namespace

double NcclTestsTable::average_busbw_GBps() const
{
  if (rows.empty())
    return 0;
  double sum = 0;
  for (const auto& row : rows)
    sum += row.busbw_GBps;
  return sum / static_cast<double>(rows.size());
}

NcclTestsTableRow make_nccl_tests_row(model::NcclTestsCollective op, int ranks, model::NcclTestsSize size,
                                      double time_s, std::string algorithm)
{
  NcclTestsTableRow row;
  row.size_bytes = size.bytes;
  row.count = size.count;
  row.time_us = time_s * 1e6;
  row.algbw_GBps = time_s > 0 ? static_cast<double>(size.bytes) / time_s / 1e9 : 0.0;
  row.busbw_GBps = row.algbw_GBps * model::bus_bandwidth_factor(op, ranks);
  row.algorithm = std::move(algorithm);
  return row;
}

std::string format_nccl_tests_text(const NcclTestsTable& table)
{
  const std::string redop = model::nccl_tests_redop(table.op);
  const int root = model::nccl_tests_root(table.op);
  std::string out;
  out += fmt::format("# gpuscale nccl-tests: {}_perf simulated on SimGrid, {} GPUs of {}, collective {}\n",
                     model::to_string(table.op), table.ranks(), table.platform_path, table.collective);
  out += fmt::format("# links: {} ({}); {}\n", table.links, table.network_source, table.simgrid);
  out += fmt::format("# algorithm per size: {}\n", algorithm_ranges(table.rows));
  out += "# in-place columns repeat the out-of-place ones (the simulation does not tell them apart); "
         "#wrong is N/A (no data is checked)\n";
  out += fmt::format("# nThread 1 nGpus {} minBytes {} maxBytes {} step: {}(factor) warmup iters: 0 iters: 1 "
                     "agg iters: 1 validation: 0 graph: 0\n",
                     table.ranks(), table.min_bytes, table.max_bytes, table.step_factor);
  out += "#\n# Using devices\n";
  for (std::size_t rank = 0; rank < table.devices.size(); ++rank) {
    const auto& device = table.devices[rank];
    out += fmt::format("#  Rank {:2d} Group  0 Pid {:6d} on {:>10} device {:2d} [0x00] {}\n", rank, 0, device.host,
                       device.device, device.name);
  }
  out += "#\n";
  out += fmt::format("# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}           out-of-place                       in-place          \n",
                     "", "", "", "", "");
  out += fmt::format("# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}", "size", "count", "type", "redop", "root");
  for (int i = 0; i < 2; ++i)
    out += fmt::format("  {:>7}  {:>6}  {:>6} {:>6}", "time", "algbw", "busbw", "#wrong");
  out += "\n";
  out += fmt::format("# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}", "(B)", "(elements)", "", "", "");
  for (int i = 0; i < 2; ++i)
    out += fmt::format("  {:>7}  {:>6}  {:>6}  {:>5}", "(us)", "(GB/s)", "(GB/s)", "");
  out += "\n";
  for (const auto& row : table.rows) {
    out += fmt::format("{:12d}  {:12d}  {:>8}  {:>6}  {:6d}", row.size_bytes, row.count, "float", redop, root);
    for (int i = 0; i < 2; ++i)
      out += fmt::format("  {:>7}  {:6.2f}  {:6.2f}  {:>5}", time_column(row.time_us), row.algbw_GBps,
                         row.busbw_GBps, "N/A");
    out += "\n";
  }
  out += fmt::format("# Avg bus bandwidth    : {:g} \n#\n", table.average_busbw_GBps());
  return out;
}

std::string format_nccl_tests_json(const NcclTestsTable& table)
{
  const std::string redop = json_string(model::nccl_tests_redop(table.op));
  const int root = model::nccl_tests_root(table.op);
  std::string out = "{\n";
  out += fmt::format("  \"op\": {},\n  \"program\": {},\n  \"platform\": {},\n  \"gpus\": {},\n",
                     json_string(model::to_string(table.op)), json_string(model::to_string(table.op) + "_perf"),
                     json_string(table.platform_path), table.ranks());
  out += fmt::format("  \"collective\": {},\n  \"links\": {},\n  \"network_source\": {},\n"
                     "  \"simgrid\": {},\n",
                     json_string(table.collective), json_string(table.links), json_string(table.network_source),
                     json_string(table.simgrid));
  out += fmt::format("  \"min_bytes\": {},\n  \"max_bytes\": {},\n  \"step_factor\": {},\n", table.min_bytes,
                     table.max_bytes, table.step_factor);
  out += "  \"in_place\": \"equal to out-of-place\",\n  \"devices\": [";
  for (std::size_t rank = 0; rank < table.devices.size(); ++rank)
    out += fmt::format("{}\n    {{\"rank\": {}, \"host\": {}, \"device\": {}, \"name\": {}}}", rank ? "," : "", rank,
                       json_string(table.devices[rank].host), table.devices[rank].device,
                       json_string(table.devices[rank].name));
  out += "\n  ],\n  \"rows\": [";
  for (std::size_t i = 0; i < table.rows.size(); ++i) {
    const auto& row = table.rows[i];
    out += fmt::format("{}\n    {{\"size_bytes\": {}, \"count\": {}, \"type\": \"float\", \"redop\": {}, \"root\": {}, "
                       "\"time_us\": {}, \"algbw_GBps\": {}, \"busbw_GBps\": {}, \"algorithm\": {}}}",
                       i ? "," : "", row.size_bytes, row.count, redop, root, row.time_us, row.algbw_GBps,
                       row.busbw_GBps, json_string(row.algorithm));
  }
  out += fmt::format("\n  ],\n  \"avg_busbw_GBps\": {}\n}}\n", table.average_busbw_GBps());
  return out;
}

} // namespace gpuscale::app
