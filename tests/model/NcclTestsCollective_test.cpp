// nccl-tests' bookkeeping: sizes as -b/-e take them, counts and sizes per collective, bus factors.

#include "sim/model/NcclTestsCollective.hpp"

#include <catch2/catch.hpp>

using namespace gpuscale::model;

TEST_CASE("model::parse_nccl_tests_bytes reads integers with K M G suffixes as powers of 1024", "[model][nccl-tests]")
{
  CHECK(parse_nccl_tests_bytes("8") == 8);
  CHECK(parse_nccl_tests_bytes("0") == 0);
  CHECK(parse_nccl_tests_bytes("32K") == 32 * 1024);
  CHECK(parse_nccl_tests_bytes("1m") == 1024 * 1024);
  CHECK(parse_nccl_tests_bytes("16G") == 16LL * 1024 * 1024 * 1024);
  for (const char* bad : {"", "8X", "K", "1.5M", "-8", "8 K", "1GB", "99999999999999999999", "9000000000G"}) {
    INFO("'" << bad << "'");
    CHECK_FALSE(parse_nccl_tests_bytes(bad).has_value());
  }
}

TEST_CASE("model::nccl_tests_size rounds as nccl-tests GetCollByteCount does", "[model][nccl-tests]")
{
  // all_reduce and broadcast: whole float elements.
  CHECK(nccl_tests_size(NcclTestsCollective::AllReduce, 1030, 8).count == 257);
  CHECK(nccl_tests_size(NcclTestsCollective::AllReduce, 1030, 8).bytes == 1028);
  CHECK(nccl_tests_size(NcclTestsCollective::Broadcast, 8, 8).bytes == 8);
  // all_gather, reduce_scatter, alltoall: count is per rank, size is ranks times that.
  for (auto op : {NcclTestsCollective::AllGather, NcclTestsCollective::ReduceScatter, NcclTestsCollective::AllToAll}) {
    CHECK(nccl_tests_size(op, 8, 8).count == 0);
    CHECK(nccl_tests_size(op, 8, 8).bytes == 0);
    CHECK(nccl_tests_size(op, 32, 8).count == 1);
    CHECK(nccl_tests_size(op, 32, 8).bytes == 32);
    CHECK(nccl_tests_size(op, 1000, 3).count == 83);
    CHECK(nccl_tests_size(op, 1000, 3).bytes == 996);
  }
}

TEST_CASE("model::bus_bandwidth_factor follows nccl-tests PERFORMANCE.md", "[model][nccl-tests]")
{
  CHECK(bus_bandwidth_factor(NcclTestsCollective::AllReduce, 8) == Approx(14.0 / 8));
  CHECK(bus_bandwidth_factor(NcclTestsCollective::ReduceScatter, 8) == Approx(7.0 / 8));
  CHECK(bus_bandwidth_factor(NcclTestsCollective::AllGather, 16) == Approx(15.0 / 16));
  CHECK(bus_bandwidth_factor(NcclTestsCollective::AllToAll, 4) == Approx(3.0 / 4));
  CHECK(bus_bandwidth_factor(NcclTestsCollective::Broadcast, 8) == 1.0);
  CHECK(nccl_tests_redop(NcclTestsCollective::ReduceScatter) == "sum");
  CHECK(nccl_tests_redop(NcclTestsCollective::AllToAll) == "none");
  CHECK(nccl_tests_root(NcclTestsCollective::Broadcast) == 0);
  CHECK(nccl_tests_root(NcclTestsCollective::AllGather) == -1);
  CHECK(parse_nccl_tests_collective("alltoall") == NcclTestsCollective::AllToAll);
  CHECK_FALSE(parse_nccl_tests_collective("all-reduce").has_value());
  CHECK(known_nccl_tests_collectives() == "all_reduce, reduce_scatter, all_gather, broadcast, alltoall");
}
