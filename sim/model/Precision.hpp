#pragma once
/// Numeric formats a workload trains in; they select the accelerator's peak rate and element size.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuscale::model {

/// Nvfp4 and Mxfp4 are the two block-scaled 4-bit formats (E2M1 values): NVIDIA's NVFP4 (one FP8 E4M3
/// scale per 16 values, plus a per-tensor FP32 scale) and the OCP Microscaling MXFP4 (one E8M0
/// power-of-two scale per 32 values). Blackwell tensor cores run both; AMD CDNA4 runs MXFP4 only.
enum class Precision { Fp32, Tf32, Fp16, Bf16, Fp8, Nvfp4, Mxfp4 };

std::string to_string(Precision precision);
std::optional<Precision> parse_precision(std::string_view name);

/// Bytes of one parameter/gradient/activation element in this format as training frameworks store
/// them (tf32 is computed on fp32 storage; fp8 training keeps bf16 weights and activations outside
/// the GEMMs, as Transformer Engine does). FP4 training does the same: Transformer Engine's NVFP4
/// recipe and AMD's MXFP4 recipes quantise GEMM operands on the fly from bf16 tensors (with fp32
/// master weights and optimizer state, and some layers left in bf16), so nvfp4 and mxfp4 store 2
/// bytes per element here too. The size of the quantised operand itself is format_bytes().
double element_bytes(Precision precision);

/// Bytes of one element in the format itself, block scales included: what a GEMM operand occupies
/// once quantised. fp8: 1; nvfp4: 4 bits + one 1-byte E4M3 scale per 16 values = 0.5 + 1/16;
/// mxfp4: 4 bits + one 1-byte E8M0 scale per 32 values = 0.5 + 1/32 (per-tensor scales neglected).
double format_bytes(Precision precision);

/// Formats with their own tensor-core units: a device without that peak cannot stand in for them
/// with a wider format (an fp8 or fp4 request on it would silently run as bf16).
bool needs_own_units(Precision precision);

/// Every precision, in the order names are listed (the catalog's peak keys, error messages).
const std::vector<Precision>& all_precisions();

/// Known names, for error messages.
std::string known_precisions();

} // namespace gpuscale::model
