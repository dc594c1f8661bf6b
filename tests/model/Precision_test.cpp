// The training formats: names, element sizes, and which ones need their own tensor-core units.

#include "sim/model/Platform.hpp"
#include "sim/model/Precision.hpp"

#include <catch2/catch.hpp>

using namespace gpuscale;
using model::Precision;

TEST_CASE("every precision round-trips through its name, and fp4 alone names no format", "[model][precision]")
{
  for (Precision p : model::all_precisions())
    CHECK(model::parse_precision(model::to_string(p)) == p);
  CHECK(model::parse_precision("nvfp4") == Precision::Nvfp4);
  CHECK(model::parse_precision("mxfp4") == Precision::Mxfp4);
  CHECK_FALSE(model::parse_precision("fp4")); // which of the two block-scaled formats would be ambiguous
  CHECK(model::known_precisions() == "fp32, tf32, fp16, bf16, fp8, nvfp4, mxfp4");
}

TEST_CASE("fp8 and fp4 training store 16-bit tensors, and the formats themselves count their block scales",
          "[model][precision]")
{
  for (Precision p : {Precision::Fp8, Precision::Nvfp4, Precision::Mxfp4})
    CHECK(model::element_bytes(p) == 2.0);
  CHECK(model::format_bytes(Precision::Fp8) == 1.0);
  CHECK(model::format_bytes(Precision::Nvfp4) == 0.5 + 1.0 / 16.0); // 0.5625 B: E4M3 scale per 16 values
  CHECK(model::format_bytes(Precision::Mxfp4) == 0.5 + 1.0 / 32.0); // 0.53125 B: E8M0 scale per 32 values
  CHECK(model::format_bytes(Precision::Bf16) == 2.0);
  CHECK(model::needs_own_units(Precision::Nvfp4));
  CHECK(model::needs_own_units(Precision::Mxfp4));
  CHECK_FALSE(model::needs_own_units(Precision::Bf16));
}

TEST_CASE("an fp4 peak falls back to fp8, never to the other 4-bit format", "[model][precision]")
{
  model::GpuType gpu;
  gpu.peak_flop_per_s = {{Precision::Bf16, 1e15}, {Precision::Fp8, 2e15}, {Precision::Mxfp4, 4e15}};
  CHECK(gpu.peak_for(Precision::Mxfp4) == 4e15);
  CHECK(gpu.peak_for(Precision::Nvfp4) == 2e15);
  gpu.peak_flop_per_s.erase(Precision::Fp8);
  CHECK(gpu.peak_for(Precision::Nvfp4) == 1e15);
}
