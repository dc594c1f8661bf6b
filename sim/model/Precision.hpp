#pragma once
/// Numeric formats a workload trains in; they select the accelerator's peak rate and element size.

#include <optional>
#include <string>
#include <string_view>

namespace gpuscale::model {

enum class Precision { Fp32, Tf32, Fp16, Bf16, Fp8 };

std::string to_string(Precision precision);
std::optional<Precision> parse_precision(std::string_view name);

/// Bytes of one parameter/gradient/activation element in this format as training frameworks store
/// them (tf32 is computed on fp32 storage; fp8 training keeps bf16 weights and activations outside
/// the GEMMs, as Transformer Engine does).
double element_bytes(Precision precision);

/// Known names, for error messages.
std::string known_precisions();

} // namespace gpuscale::model
