// libFuzzer target: config::read_sweep on a sweep file (scenario: and sweep: blocks), with the shipped
// platforms and workloads. Any exception other than ConfigError, any crash, leak, hang or undefined
// behaviour is a finding.
//
// Sweeps whose lists multiply to more than kMaxFuzzedPoints are measured (config::measure_sweep) but
// not expanded: expanding up to a million valid points is legitimate work that takes seconds to
// minutes, which the fuzzer would report as a hang. Their size limits are tested in
// tests/robustness/ instead.

#include "tests/fuzz/FuzzWorkspace.hpp"
#include "sim/config/ConfigError.hpp"
#include "sim/config/SweepReader.hpp"
#include "sim/config/SweepSize.hpp"

namespace {
constexpr long double kMaxFuzzedPoints = 256; // every point is a scenario read: ~0.1 ms, far more under the sanitizers
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  const std::string path = gpuscale::fuzz::write_input(data, size, "scenarios", "fuzz-sweep.yaml");
  const auto measured = gpuscale::config::measure_sweep(path);
  if (measured && measured->points > kMaxFuzzedPoints)
    return 0;
  try {
    gpuscale::config::read_sweep(path);
  } catch (const gpuscale::config::ConfigError&) {
  }
  return 0;
}
