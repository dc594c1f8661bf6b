// libFuzzer target: config::check_input (gpuscale check) on a file of any kind, told apart by its top-level keys.
// Any exception other than ConfigError, any crash, leak, hang or undefined behaviour is a finding.
// Large sweeps are measured, not expanded (FuzzLimits.hpp): checking one reads every point.

#include "tests/fuzz/FuzzLimits.hpp"
#include "tests/fuzz/FuzzWorkspace.hpp"
#include "sim/config/ConfigError.hpp"
#include "sim/config/InputCheck.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  const std::string path = gpuscale::fuzz::write_input(data, size, "scenarios", "fuzz-check.yaml");
  if (gpuscale::fuzz::sweep_too_large_to_fuzz(path))
    return 0;
  try {
    gpuscale::config::check_input(path);
  } catch (const gpuscale::config::ConfigError&) {
  }
  return 0;
}
