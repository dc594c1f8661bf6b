// libFuzzer target: the RCP scaling factor readers, config::read_mlperf_scaling_json on a scaling.json
// and config::read_scores_table_scaling on a scores table (CSV), given the same bytes.
// Any exception other than ConfigError, any crash, leak, hang or undefined behaviour is a finding.

#include "tests/fuzz/FuzzWorkspace.hpp"
#include "sim/config/ConfigError.hpp"
#include "sim/config/MlperfScalingReader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  const std::string json = gpuscale::fuzz::write_input(data, size, "scenarios", "scaling.json");
  try {
    gpuscale::config::read_mlperf_scaling_json(json);
  } catch (const gpuscale::config::ConfigError&) {
  }
  const std::string table = gpuscale::fuzz::write_input(data, size, "scenarios", "scores_calibration.csv");
  try {
    gpuscale::config::read_scores_table_scaling(table);
  } catch (const gpuscale::config::ConfigError&) {
  }
  return 0;
}
