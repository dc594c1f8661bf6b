// libFuzzer target: config::read_rcp_file on an MLPerf reference-convergence-point JSON file.
// Any exception other than ConfigError, any crash, leak, hang or undefined behaviour is a finding.

#include "tests/fuzz/FuzzWorkspace.hpp"
#include "sim/config/ConfigError.hpp"
#include "sim/config/RcpReader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  const std::string path = gpuscale::fuzz::write_input(data, size, "workloads", "fuzz-rcp.json");
  try {
    gpuscale::config::read_rcp_file(path);
  } catch (const gpuscale::config::ConfigError&) {
  }
  return 0;
}
