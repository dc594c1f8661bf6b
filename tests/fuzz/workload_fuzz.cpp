// libFuzzer target: config::read_workload on a workload trace.
// Any exception other than ConfigError, any crash, leak, hang or undefined behaviour is a finding.

#include "tests/fuzz/FuzzWorkspace.hpp"
#include "sim/config/ConfigError.hpp"
#include "sim/config/WorkloadReader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  const std::string path = gpuscale::fuzz::write_input(data, size, "workloads", "fuzz-input.yaml");
  try {
    gpuscale::config::read_workload(path);
  } catch (const gpuscale::config::ConfigError&) {
  }
  return 0;
}
