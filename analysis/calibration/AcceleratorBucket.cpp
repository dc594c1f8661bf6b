#include "analysis/calibration/AcceleratorBucket.hpp"

namespace gpuscale::analysis {

std::string bucket_label(int accelerators)
{
  if (accelerators <= 8)
    return "<=8";
  if (accelerators <= 64)
    return "9-64";
  if (accelerators <= 512)
    return "65-512";
  return ">512";
}

} // namespace gpuscale::analysis
