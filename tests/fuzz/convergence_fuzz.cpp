// libFuzzer target: config::read_convergence_text on a convergence table.
// Any exception other than ConfigError, any crash, leak, hang or undefined behaviour is a finding.

#include "tests/fuzz/FuzzWorkspace.hpp"
#include "sim/config/ConfigError.hpp"
#include "sim/config/ConvergenceReader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  try {
    gpuscale::config::read_convergence_text(std::string(reinterpret_cast<const char*>(data), size), "fuzz-input.yaml");
  } catch (const gpuscale::config::ConfigError&) {
  }
  return 0;
}
