// libFuzzer target: config::read_mlperf_system_text on an MLPerf system description (JSON).
// Any exception other than ConfigError, any crash, leak, hang or undefined behaviour is a finding.

#include "tests/fuzz/FuzzWorkspace.hpp"
#include "sim/config/ConfigError.hpp"
#include "sim/config/MlperfSystemReader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  try {
    gpuscale::config::read_mlperf_system_text(std::string(reinterpret_cast<const char*>(data), size), "fuzz-system.json");
  } catch (const gpuscale::config::ConfigError&) {
  }
  return 0;
}
