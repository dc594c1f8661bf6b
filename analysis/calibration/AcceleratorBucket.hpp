#pragma once
/// The accelerator-count buckets that calibration's batch-size rules and validation's error tables
/// group results by: one node of 8, small clusters, large clusters, the largest systems.

#include <string>

namespace gpuscale::analysis {

/// Upper bounds of the buckets (the last one open-ended in practice).
inline constexpr int kAcceleratorBuckets[] = {8, 64, 512, 1'000'000};

/// The bucket's label: "<=8", "9-64", "65-512", ">512".
std::string bucket_label(int accelerators);

} // namespace gpuscale::analysis
