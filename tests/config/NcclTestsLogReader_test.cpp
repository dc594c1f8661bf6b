// config::NcclTestsLogReader on logs in nccl-tests' real format (tests/data/nccl-tests/, hand-written,
// see its README) and on bad lines, each with its full located message.

#include "sim/config/ConfigError.hpp"
#include "sim/config/NcclTestsLogReader.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

using namespace gpuscale;
using model::NcclTestsCollective;

namespace {

std::string fixture_path(const std::string& name)
{
  return std::string(GPUSCALE_SOURCE_DIR) + "/tests/data/nccl-tests/" + name;
}

std::string fixture_text(const std::string& name)
{
  std::ifstream in(fixture_path(name));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// `text` with its line `number` (1-based) replaced by `line`.
std::string with_line(const std::string& text, int number, const std::string& line)
{
  std::istringstream in(text);
  std::string out;
  std::string current;
  for (int n = 1; std::getline(in, current); ++n)
    out += (n == number ? line : current) + "\n";
  return out;
}

/// The message parse_nccl_tests_log throws for `text`, or "" when it throws nothing.
std::string error_of(const std::string& text, std::optional<NcclTestsCollective> op = std::nullopt)
{
  try {
    config::parse_nccl_tests_log(text, "log.txt", op);
  } catch (const config::ConfigError& e) {
    return e.what();
  }
  return "";
}

const std::string kAllReduce1Node = "all_reduce_1node_8xh100.txt";

} // namespace

TEST_CASE("config::read_nccl_tests_log reads a one-node all_reduce_perf log", "[config][nccl-tests]")
{
  const auto log = config::read_nccl_tests_log(fixture_path(kAllReduce1Node));
  CHECK(log.op == NcclTestsCollective::AllReduce);
  CHECK(log.op_source == "program all_reduce_perf named at line 1");
  CHECK(log.ranks == 8);
  CHECK(log.hosts == 1);
  CHECK(log.ranks_per_host == 8);
  CHECK(log.device == "NVIDIA H100 80GB HBM3");
  CHECK_FALSE(log.devices_differ);
  CHECK(log.data_type == "float");
  CHECK(log.redop == "sum");
  CHECK(log.root == -1);
  REQUIRE(log.setup.has_value());
  CHECK(log.setup->threads == 1);
  CHECK(log.setup->gpus_per_thread == 8);
  CHECK(log.setup->min_bytes == 8);
  CHECK(log.setup->max_bytes == 8589934592);
  CHECK(log.setup->step_factor == 2);
  CHECK(log.setup->step_bytes == 0);
  CHECK(log.setup->warmup_iters == 5);
  CHECK(log.setup->iters == 20);
  CHECK(log.setup->agg_iters == 1);
  CHECK(log.setup->validation);
  CHECK(log.setup->graph == 0);
  REQUIRE(log.rows.size() == 31); // 8 B to 8 GiB by 2
  CHECK(log.rows.front().size_bytes == 8);
  CHECK(log.rows.front().count == 2);
  CHECK(log.rows.front().time_s == Approx(13.00e-6));
  CHECK(log.rows.front().line == 17);
  const auto& last = log.rows.back();
  CHECK(last.size_bytes == 8589934592);
  CHECK(last.count == 2147483648);
  CHECK(last.time_s == Approx(31480e-6));
  CHECK(last.algbw_Bps == Approx(272.87e9));
  CHECK(last.busbw_Bps == Approx(477.52e9));
  CHECK(last.wrong == 0);
  CHECK(last.in_place_time_s == Approx(31606e-6));
  CHECK(log.out_of_bounds_values == 0);
  CHECK(log.avg_busbw_Bps == Approx(144.652e9));
}

TEST_CASE("config::read_nccl_tests_log reads a two-node MPI all_reduce_perf log among launcher and NCCL lines",
          "[config][nccl-tests]")
{
  const auto log = config::read_nccl_tests_log(fixture_path("all_reduce_2node_16xh100.txt"));
  CHECK(log.op == NcclTestsCollective::AllReduce);
  CHECK(log.op_source == "program all_reduce_perf named at line 1");
  CHECK(log.ranks == 16);
  CHECK(log.hosts == 2);
  CHECK(log.ranks_per_host == 8);
  CHECK(log.device == "NVIDIA H100 80GB HBM3");
  REQUIRE(log.setup.has_value());
  CHECK(log.setup->gpus_per_thread == 1);
  REQUIRE(log.rows.size() == 31);
  CHECK(log.rows.back().size_bytes == 8589934592);
  CHECK(log.rows.back().time_s == Approx(45199e-6));
  CHECK(log.rows.back().algbw_Bps == Approx(190.05e9));
  CHECK(log.rows.back().busbw_Bps == Approx(356.34e9));
  CHECK(log.avg_busbw_Bps == Approx(99.6079e9));
}

TEST_CASE("config::read_nccl_tests_log reads an all_gather_perf log that names no program when told the op",
          "[config][nccl-tests]")
{
  const std::string path = fixture_path("all_gather_1node_8xh100.txt");
  const auto log = config::read_nccl_tests_log(path, NcclTestsCollective::AllGather);
  CHECK(log.op == NcclTestsCollective::AllGather);
  CHECK(log.op_source == "given");
  CHECK(log.redop == "none");
  CHECK(log.ranks == 8);
  REQUIRE(log.rows.size() == 30); // 8 B to 4 GiB by 2
  CHECK(log.rows[0].size_bytes == 0); // 2 elements do not make one per rank of 8
  CHECK(log.rows[0].count == 0);
  CHECK(log.rows[2].size_bytes == 32);
  CHECK(log.rows[2].count == 1);
  CHECK(log.rows.back().size_bytes == 4294967296);
  CHECK(log.rows.back().count == 134217728);
  CHECK(log.rows.back().busbw_Bps == Approx(364.38e9));
  CHECK(log.rows.back().in_place_time_s == Approx(10283e-6));

  CHECK_THROWS_WITH(config::read_nccl_tests_log(path),
                    path + ": error: the log names no program (all_reduce_perf, ...) and its columns (redop none, "
                           "root -1) fit all_gather and alltoall: name the collective");
  CHECK_THROWS_WITH(config::read_nccl_tests_log(path, NcclTestsCollective::AllReduce),
                    path + ":16:41: error: /rows/0/redop: all_reduce prints a reduction operator, got 'none'");
  CHECK_THROWS_WITH(config::read_nccl_tests_log(path, NcclTestsCollective::Broadcast),
                    path + ":16:51: error: /rows/0/root: broadcast prints a root rank, got -1");
}

TEST_CASE("config::parse_nccl_tests_log tells broadcast from its root column and reads older and out-of-place-only logs",
          "[config][nccl-tests]")
{
  const std::string text =
      "#  Rank  0 Group  0 Pid   1001 on      hostA device  0 [0x18] NVIDIA H100 80GB HBM3\n"
      "#   Rank  1 Pid   2002 on      hostB device  0 [0x2a] NVIDIA H100 PCIe\n" // older versions: no Group
      "#       size         count      type   redop    root     time   algbw   busbw #wrong\n"
      "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)\n"
      "     1048576        262144     float    none       0    12.50   83.89   83.89    N/A\n";
  const auto log = config::parse_nccl_tests_log(text, "log.txt");
  CHECK(log.op == NcclTestsCollective::Broadcast);
  CHECK(log.op_source == "root column 0 with redop none");
  CHECK(log.ranks == 2);
  CHECK(log.hosts == 2);
  CHECK(log.ranks_per_host == 1);
  CHECK(log.device == "NVIDIA H100 80GB HBM3");
  CHECK(log.devices_differ);
  CHECK(log.root == 0);
  CHECK_FALSE(log.setup.has_value());
  REQUIRE(log.rows.size() == 1);
  CHECK(log.rows[0].busbw_Bps == Approx(83.89e9));
  CHECK_FALSE(log.rows[0].wrong.has_value());
  CHECK_FALSE(log.rows[0].in_place_time_s.has_value());
}

TEST_CASE("config::parse_nccl_tests_log reports a malformed data line at the column it names", "[config][nccl-tests]")
{
  const std::string text = fixture_text(kAllReduce1Node);
  // Line 18 is the 16-byte row (rows/1):
  //            16             4     float     sum      -1    13.00    0.00    0.00      0    13.05    0.00    0.00      0
  // columns:   11            26    32        42        51    57       66      74        84   89       98      106       116
  // (a 14th column after four spaces starts at 121)
  const std::string good = "          16             4     float     sum      -1    13.00    0.00    0.00      0    13.05    0.00    0.00      0";
  auto replaced = [&](const std::string& from, const std::string& to, std::size_t at) {
    std::string line = good;
    REQUIRE(line.compare(at - 1, from.size(), from) == 0);
    line.replace(at - 1, from.size(), to);
    return with_line(text, 18, line);
  };
  CHECK(error_of(replaced("13.00", "1x.50", 57)) ==
        "log.txt:18:57: error: /rows/1/time: expected a time in microseconds, got '1x.50'");
  CHECK(error_of(replaced("0.00", "fast", 66)) ==
        "log.txt:18:66: error: /rows/1/algbw: expected an algorithm bandwidth in GB/s, got 'fast'");
  CHECK(error_of(replaced("0.00", "-1.0", 106)) ==
        "log.txt:18:106: error: /rows/1/in_place_busbw: expected a bus bandwidth in GB/s, got '-1.0'");
  CHECK(error_of(replaced("0", "x", 84)) ==
        "log.txt:18:84: error: /rows/1/wrong: expected a count of wrong elements or N/A, got 'x'");
  CHECK(error_of(replaced("4", "4.5", 26)) ==
        "log.txt:18:26: error: /rows/1/count: expected a count of elements (a non-negative integer), got '4.5'");
  CHECK(error_of(replaced("float", "floot", 32)) ==
        "log.txt:18:32: error: /rows/1/type: expected a data type (int8, uint8, int32, uint32, int64, uint64, half, "
        "float, double, bfloat16, f8e4m3, f8e5m2), got 'floot'");
  CHECK(error_of(replaced("sum", "max", 42)) ==
        "log.txt:18:42: error: /rows/1/redop: expected 'sum' as in the rows above (one reduction operator per file), got 'max'");
  CHECK(error_of(with_line(text, 18, good.substr(0, 75))) ==
        "log.txt:18:76: error: /rows/1: expected 13 columns (size count type redop root, then time algbw busbw #wrong "
        "out-of-place and in-place), got 8");
  CHECK(error_of(with_line(text, 18, good + "    17")) ==
        "log.txt:18:121: error: /rows/1: expected 13 columns (size count type redop root, then time algbw busbw #wrong "
        "out-of-place and in-place), got 14");
  // Every problem of the file at once.
  const std::string two = with_line(replaced("13.00", "1x.50", 57), 19,
                                    "          32             8     float     sum      -1    13.00    0.00    0.00      0    13.05    0.00    zero      0");
  CHECK(error_of(two) == "log.txt:18:57: error: /rows/1/time: expected a time in microseconds, got '1x.50'\n"
                         "log.txt:19:106: error: /rows/1/in_place_busbw: expected a bus bandwidth in GB/s, got 'zero'");
}

TEST_CASE("config::parse_nccl_tests_log refuses logs whose header, devices or program do not fit", "[config][nccl-tests]")
{
  const std::string text = fixture_text(kAllReduce1Node);
  CHECK(error_of(text, NcclTestsCollective::Broadcast) ==
        "log.txt:1:1: error: the log is of all_reduce_perf, not of broadcast as given");
  CHECK(error_of(with_line(text, 3, "# mpirun -np 8 ./build/all_gather_perf")) ==
        "log.txt:3:16: error: the log names two programs, all_reduce_perf (line 1) and all_gather_perf: one nccl-tests "
        "run per file");
  CHECK(error_of(with_line(text, 1, "$ ./build/sendrecv_perf -b 8 -e 8G")) ==
        "log.txt:1:3: error: sendrecv_perf logs are not read (known: all_reduce_perf, reduce_scatter_perf, "
        "all_gather_perf, broadcast_perf, alltoall_perf)");
  CHECK(error_of(with_line(text, 7, "#  Rank  2 Group  0 Pid  40213 on dgx-h100-01 device  2 NVIDIA H100 80GB HBM3")) ==
        "log.txt:7:1: error: /devices/2: a device line reads '#  Rank R Group G Pid P on HOST device D [0xBUS] NAME'");
  CHECK(error_of(with_line(text, 7, "#  Rank  5 Group  0 Pid  40213 on dgx-h100-01 device  2 [0x3a] NVIDIA H100 80GB HBM3")) ==
        "log.txt:7:10: error: /devices/2: expected rank 2 (ranks are listed 0, 1, 2, ...), got 5");
  CHECK(error_of(with_line(text, 12, "#  Rank  7 Group  0 Pid  40213 on dgx-h100-02 device  0 [0x18] NVIDIA H100 80GB HBM3")) ==
        "log.txt:12:1: error: /devices/7: host dgx-h100-02 runs 1 ranks and dgx-h100-01 7: the ranks per host must be "
        "the same on every host");
  CHECK(error_of(with_line(text, 2, "# nThread 1 nGpus eight minBytes 8 maxBytes 8589934592 step: 2(factor)")) ==
        "log.txt:2:1: error: /setup: the nThread line does not read as nccl-tests prints it ('# nThread T nGpus G "
        "minBytes B maxBytes E step: F(factor) warmup iters: W iters: I [agg iters: A] validation: V [graph: G]')");
  CHECK(error_of(with_line(text, 49, "# Avg bus bandwidth    : lots")) ==
        "log.txt:49:26: error: /avg_bus_bandwidth: expected a bandwidth in GB/s, got 'lots'");
  CHECK(error_of(with_line(text, 15, "# the table header was lost")) ==
        "log.txt: error: no nccl-tests table: the column header line ('#       size         count      type   redop ...') "
        "is missing");
  // A corrupt file's megabyte-long header line is refused before the regular expression sees it.
  const std::string long_name(100000, 'A');
  CHECK(error_of(with_line(text, 5, "#  Rank  0 Group  0 Pid  40213 on dgx-h100-01 device  0 [0x18] " + long_name))
            .rfind("log.txt:5:1: error: a header line of 100063 characters (nccl-tests prints under 200)\n", 0) == 0);
  std::string no_devices;
  {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line))
      if (line.rfind("#  Rank", 0) != 0)
        no_devices += line + "\n";
  }
  CHECK(error_of(no_devices) == "log.txt: error: /devices: no '#  Rank ... on HOST device ...' lines under '# Using "
                                "devices': the number of ranks and of hosts cannot be known");
  CHECK_THROWS_WITH(config::read_nccl_tests_log(fixture_path("no-such-log.txt")),
                    Catch::Contains(fixture_path("no-such-log.txt")));
}
