// libFuzzer target: config::read_scenario on a scenario file, with the shipped platforms, workloads,
// convergence and host-input tables it may name.
// Any exception other than ConfigError, any crash, leak, hang or undefined behaviour is a finding.

#include "tests/fuzz/FuzzWorkspace.hpp"
#include "sim/config/ConfigError.hpp"
#include "sim/config/ScenarioReader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  const std::string path = gpuscale::fuzz::write_input(data, size, "scenarios", "fuzz-input.yaml");
  try {
    gpuscale::config::read_scenario(path);
  } catch (const gpuscale::config::ConfigError&) {
  }
  return 0;
}
