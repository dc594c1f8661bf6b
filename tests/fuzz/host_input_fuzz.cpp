// libFuzzer target: config::read_host_input on a host input-pipeline table.
// Any exception other than ConfigError, any crash, leak, hang or undefined behaviour is a finding.

#include "tests/fuzz/FuzzWorkspace.hpp"
#include "sim/config/ConfigError.hpp"
#include "sim/config/HostInputReader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  const std::string path = gpuscale::fuzz::write_input(data, size, "workloads", "fuzz-host-input.yaml");
  try {
    gpuscale::config::read_host_input(path);
  } catch (const gpuscale::config::ConfigError&) {
  }
  return 0;
}
