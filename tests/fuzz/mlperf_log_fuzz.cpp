// libFuzzer target: config::parse_mlperf_log on an MLLOG result log.
// Any exception other than ConfigError, any crash, leak, hang or undefined behaviour is a finding.

#include "tests/fuzz/FuzzWorkspace.hpp"
#include "sim/config/ConfigError.hpp"
#include "sim/config/MlperfLogReader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  // Content problems are a run status, never an exception: nothing may escape here. The last byte picks
  // the benchmark whose convergence rule applies (each counts samples differently).
  static const char* const benchmarks[] = {"bert", "llama2_70b_lora", "resnet", "retinanet", "stable_diffusion"};
  const std::string text(reinterpret_cast<const char*>(data), size);
  gpuscale::config::parse_mlperf_log(text, "fuzz-log.txt", benchmarks[size > 0 ? data[size - 1] % 5 : 0]);
  return 0;
}
