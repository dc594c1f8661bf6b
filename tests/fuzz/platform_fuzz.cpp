// libFuzzer target: config::read_platform and read_platform_catalog on a cluster or catalog file
// (imports resolve to the shipped catalog).
// Any exception other than ConfigError, any crash, leak, hang or undefined behaviour is a finding.

#include "tests/fuzz/FuzzWorkspace.hpp"
#include "sim/config/ConfigError.hpp"
#include "sim/config/PlatformReader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  const std::string path = gpuscale::fuzz::write_input(data, size, "platforms", "fuzz-input.yaml");
  try {
    gpuscale::config::read_platform(path);
  } catch (const gpuscale::config::ConfigError&) {
  }
  try {
    gpuscale::config::read_platform_catalog(path);
  } catch (const gpuscale::config::ConfigError&) {
  }
  return 0;
}
