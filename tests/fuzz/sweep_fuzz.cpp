// libFuzzer target: config::read_sweep on a sweep file (scenario: and sweep: blocks), with the shipped
// platforms and workloads. Any exception other than ConfigError, any crash, leak, hang or undefined
// behaviour is a finding.
// Large sweeps are measured, not expanded (FuzzLimits.hpp).

#include "tests/fuzz/FuzzLimits.hpp"
#include "tests/fuzz/FuzzWorkspace.hpp"
#include "sim/config/ConfigError.hpp"
#include "sim/config/SweepReader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  const std::string path = gpuscale::fuzz::write_input(data, size, "scenarios", "fuzz-sweep.yaml");
  if (gpuscale::fuzz::sweep_too_large_to_fuzz(path))
    return 0;
  try {
    gpuscale::config::read_sweep(path);
  } catch (const gpuscale::config::ConfigError&) {
  }
  return 0;
}
