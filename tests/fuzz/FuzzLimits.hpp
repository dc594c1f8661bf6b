#pragma once
/// What the fuzz targets leave unexpanded. A sweep's cost grows with the product of its lists: every
/// point is a scenario read and resolved (measured on a ResNet-50 sweep: 0.015 ms in a release build,
/// 0.4 ms under ASan, UBSan and coverage), so a few lists the fuzzer writes in a hundred bytes would
/// take minutes, which libFuzzer reports as a hang though it is legitimate work. Such inputs are measured
/// (config::measure_sweep, which reads only the file itself) and not expanded; the sweep size limits
/// are tested in tests/robustness/ and by tests/data/invalid/sweeps/too_many_points.yaml.

#include "sim/config/SweepSize.hpp"

#include <string>

namespace gpuscale::fuzz {

inline constexpr long double kMaxFuzzedSweepPoints = 256;

/// True when `path` is a sweep whose lists multiply to more than kMaxFuzzedSweepPoints.
inline bool sweep_too_large_to_fuzz(const std::string& path)
{
  const auto measured = config::measure_sweep(path);
  return measured && measured->points > kMaxFuzzedSweepPoints;
}

} // namespace gpuscale::fuzz
