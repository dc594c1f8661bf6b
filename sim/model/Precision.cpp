#include "sim/model/Precision.hpp"

namespace gpuscale::model {

std::string to_string(Precision precision)
{
  switch (precision) {
    case Precision::Fp32: return "fp32";
    case Precision::Tf32: return "tf32";
    case Precision::Fp16: return "fp16";
    case Precision::Bf16: return "bf16";
    case Precision::Fp8: return "fp8";
  }
  return "?";
}

std::optional<Precision> parse_precision(std::string_view name)
{
  for (Precision p : {Precision::Fp32, Precision::Tf32, Precision::Fp16, Precision::Bf16, Precision::Fp8})
    if (to_string(p) == name)
      return p;
  return std::nullopt;
}

double element_bytes(Precision precision)
{
  switch (precision) {
    case Precision::Fp32:
    case Precision::Tf32: return 4.0;
    case Precision::Fp16:
    case Precision::Bf16:
    case Precision::Fp8: return 2.0;
  }
  return 4.0;
}

std::string known_precisions()
{
  return "fp32, tf32, fp16, bf16, fp8";
}

} // namespace gpuscale::model
