// libFuzzer target: config::read_calibration_text on a calibration file (calibration/mlperf.yaml).
// Any exception other than ConfigError, any crash, leak, hang or undefined behaviour is a finding.

#include "tests/fuzz/FuzzWorkspace.hpp"
#include "sim/config/CalibrationReader.hpp"
#include "sim/config/ConfigError.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  try {
    gpuscale::config::read_calibration_text(std::string(reinterpret_cast<const char*>(data), size), "fuzz-calibration.yaml");
  } catch (const gpuscale::config::ConfigError&) {
  }
  return 0;
}
