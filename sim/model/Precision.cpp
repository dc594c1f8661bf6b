#include "sim/model/Precision.hpp"

namespace gpuscale::model {
const std::vector<Precision>& all_precisions()
{
  static const std::vector<Precision> all{Precision::Fp32, Precision::Tf32,  Precision::Fp16, Precision::Bf16,
                                          Precision::Fp8,  Precision::Nvfp4, Precision::Mxfp4};
  return all;
}

std::string to_string(Precision precision)
{
  switch (precision) {
    case Precision::Fp32: return "fp32";
    case Precision::Tf32: return "tf32";
    case Precision::Fp16: return "fp16";
    case Precision::Bf16: return "bf16";
    case Precision::Fp8: return "fp8";
    case Precision::Nvfp4: return "nvfp4";
    case Precision::Mxfp4: return "mxfp4";
  }
  return "?";
}

std::optional<Precision> parse_precision(std::string_view name)
{
  for (Precision p : all_precisions())
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
    case Precision::Fp8:
    case Precision::Nvfp4:
    case Precision::Mxfp4: return 2.0;
  }
  return 4.0;
}

double format_bytes(Precision precision)
{
  switch (precision) {
    case Precision::Fp32:
    case Precision::Tf32: return 4.0;
    case Precision::Fp16:
    case Precision::Bf16: return 2.0;
    case Precision::Fp8: return 1.0;
    case Precision::Nvfp4: return 0.5 + 1.0 / 16.0; // E2M1 nibble + E4M3 scale per 16-value block
    case Precision::Mxfp4: return 0.5 + 1.0 / 32.0; // E2M1 nibble + E8M0 scale per 32-value block
  }
  return 4.0;
}

bool needs_own_units(Precision precision)
{
  return precision == Precision::Fp8 || precision == Precision::Nvfp4 || precision == Precision::Mxfp4;
}

std::string known_precisions()
{
  std::string names;
  for (Precision p : all_precisions())
    names += (names.empty() ? "" : ", ") + to_string(p);
  return names;
}

} // namespace gpuscale::model
