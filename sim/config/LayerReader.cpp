#include "sim/config/LayerReader.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace gpuscale::config {
namespace {

using units::Dimension;

/// Parameter counts are integers but may exceed 2^53 only in absurd inputs; 10^15 is a generous bound.
constexpr long long kMaxParams = 1'000'000'000'000'000LL;

/// Bounds of a kernel's dimensions (tokens, channels, heads) and element counts: far beyond any model,
/// small enough that their products stay exact in a double.
constexpr long long kMaxDimension = 1'000'000'000LL;
constexpr long long kMaxElements = 1'000'000'000'000'000LL;

/// One dimension of a kernel shape: an integer in [1, kMaxDimension] (0 in the shape when absent).
long long dimension(MappingReader& kernel, const std::string& key, Presence presence = Presence::Required,
                    long long fallback = 0)
{
  return kernel.integer(key, 1, kMaxDimension, presence).value_or(fallback);
}

model::GemmShape read_gemm(MappingReader& kernel)
{
  model::GemmShape gemm;
  gemm.m = dimension(kernel, "m");
  gemm.n = dimension(kernel, "n");
  gemm.k = dimension(kernel, "k");
  gemm.batch = dimension(kernel, "batch", Presence::Optional, 1);
  return gemm;
}

model::ConvShape read_conv(MappingReader& kernel)
{
  model::ConvShape conv;
  conv.h = dimension(kernel, "h");
  conv.w = dimension(kernel, "w");
  conv.c = dimension(kernel, "c");
  conv.k = dimension(kernel, "k");
  conv.r = dimension(kernel, "r");
  conv.s = dimension(kernel, "s");
  conv.stride = dimension(kernel, "stride", Presence::Optional, 1);
  conv.pad = kernel.integer("pad", 0, kMaxDimension, Presence::Optional).value_or(0);
  conv.groups = dimension(kernel, "groups", Presence::Optional, 1);
  if (conv.c % conv.groups != 0 || conv.k % conv.groups != 0)
    kernel.error("groups", "groups = " + std::to_string(conv.groups) + " must divide the input channels c = " +
                               std::to_string(conv.c) + " and the output channels k = " + std::to_string(conv.k));
  if (conv.h + 2 * conv.pad < conv.r || conv.w + 2 * conv.pad < conv.s)
    kernel.error("r", "the " + std::to_string(conv.r) + "x" + std::to_string(conv.s) + " filter is larger than the padded " +
                          std::to_string(conv.h) + "x" + std::to_string(conv.w) + " input");
  return conv;
}

model::AttentionShape read_attention(MappingReader& kernel)
{
  model::AttentionShape attention;
  attention.heads = dimension(kernel, "heads");
  attention.kv_heads = dimension(kernel, "kv_heads", Presence::Optional, attention.heads);
  attention.q = dimension(kernel, "q");
  attention.kv = dimension(kernel, "kv");
  attention.head_dim = dimension(kernel, "head_dim");
  attention.causal = kernel.boolean("causal", Presence::Optional).value_or(false);
  // Grouped-query attention: each key/value head serves the same number of query heads.
  if (attention.kv_heads > 0 && attention.heads % attention.kv_heads != 0)
    kernel.error("kv_heads", "kv_heads = " + std::to_string(attention.kv_heads) + " must divide heads = " +
                                 std::to_string(attention.heads));
  if (attention.causal && attention.q != attention.kv)
    kernel.error("causal", "causal attention needs q = kv (q = " + std::to_string(attention.q) +
                               ", kv = " + std::to_string(attention.kv) + ")");
  return attention;
}

model::ElementwiseShape read_elementwise(MappingReader& kernel)
{
  model::ElementwiseShape elementwise;
  elementwise.elements = kernel.integer("elements", 1, kMaxElements, Presence::Required).value_or(0);
  elementwise.flop_per_element = kernel.number("flop_per_element", 0, 1e4, Presence::Required).value_or(0);
  elementwise.bytes_per_element = kernel.number("bytes_per_element", 0, 1e4, Presence::Required).value_or(0);
  elementwise.fused = kernel.boolean("fused", Presence::Optional).value_or(false);
  return elementwise;
}

bool fused(const model::Kernel& kernel)
{
  const auto* elementwise = std::get_if<model::ElementwiseShape>(&kernel.shape);
  return elementwise && elementwise->fused;
}

/// A FLOP count as the traces write it (an integer, exactly).
std::string flop_text(double flop)
{
  char text[64];
  std::snprintf(text, sizeof text, "%.17g FLOP", flop);
  return text;
}

bool same_flop(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max({1.0, std::abs(a), std::abs(b)}); }

/// The layer's `kernels:` list: shapes whose FLOPs are the layer's, forward and backward.
void read_kernels(MappingReader& layer, model::Layer& out)
{
  const auto list = layer.child("kernels", Presence::Optional);
  if (!list || !expect_sequence(*list, layer.file(), layer.path_of("kernels"), layer.diagnostics()))
    return;
  double forward = 0, backward = 0;
  bool complete = true;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const std::string path = layer.path_of("kernels") + "/" + std::to_string(i);
    auto kernel = read_kernel(MappingReader((*list)[i], layer.file(), path, layer.diagnostics()));
    if (!kernel) {
      complete = false;
      continue;
    }
    if (fused(*kernel) && out.kernels.empty())
      report(layer.diagnostics(), layer.file(), (*list)[i], path + "/fused",
             "a fused elementwise op runs inside the kernel before it, and this is the layer's first kernel");
    forward += kernel->forward_flop();
    backward += kernel->backward_flop();
    out.kernels.push_back(*kernel);
  }
  if (!complete)
    return;
  if (!same_flop(forward, out.forward_flop_per_sample))
    layer.error("kernels", "the kernels' forward FLOPs add up to " + flop_text(forward) +
                               " but forward_flops_per_sample is " +
                               flop_text(out.forward_flop_per_sample));
  if (!same_flop(backward, out.backward_flop_per_sample))
    layer.error("kernels", "the kernels' backward FLOPs (backward_factor x forward) add up to " +
                               flop_text(backward) + " but backward_flops_per_sample is " +
                               flop_text(out.backward_flop_per_sample));
}

} // namespace

std::optional<model::Kernel> read_kernel(MappingReader kernel)
{
  model::Kernel out;
  const auto op = kernel.text("op", Presence::Required);
  if (op == "gemm")
    out.shape = read_gemm(kernel);
  else if (op == "conv")
    out.shape = read_conv(kernel);
  else if (op == "attention")
    out.shape = read_attention(kernel);
  else if (op == "elementwise")
    out.shape = read_elementwise(kernel);
  else {
    // An unknown op's other keys cannot be judged: report the op alone.
    if (op)
      kernel.error("op", "unknown kernel op '" + *op + "' (known: " + std::string(model::kKernelOps) + ")");
    return std::nullopt;
  }
  out.backward_factor = static_cast<int>(kernel.integer("backward_factor", 0, 2, Presence::Required).value_or(0));
  kernel.finish();
  return out;
}

model::Layer read_layer(MappingReader layer)
{
  model::Layer out;
  out.name = layer.text("name", Presence::Required).value_or("");
  if (auto kind = layer.text("kind", Presence::Required)) {
    if (auto parsed = model::parse_layer_kind(*kind))
      out.kind = *parsed;
    else
      layer.error("kind", "unknown layer kind '" + *kind + "' (known: " + model::known_layer_kinds() + ")");
  }
  out.trainable_params = static_cast<double>(layer.integer("trainable_params", 0, kMaxParams, Presence::Required).value_or(0));
  out.frozen_params = static_cast<double>(layer.integer("frozen_params", 0, kMaxParams, Presence::Required).value_or(0));
  out.forward_flop_per_sample = layer.quantity("forward_flops_per_sample", Dimension::Flop, Presence::Required).value_or(0);
  out.backward_flop_per_sample = layer.quantity("backward_flops_per_sample", Dimension::Flop, Presence::Required).value_or(0);
  out.activation_bytes_per_sample =
      layer.quantity("activation_bytes_per_sample", Dimension::Bytes, Presence::Required).value_or(0);
  out.recomputed = layer.boolean("recomputed", Presence::Required).value_or(false);
  if (auto mode = layer.text("tensor_parallel", Presence::Optional)) {
    if (*mode == "column")
      out.tensor_parallel = model::TensorParallelMode::Column;
    else if (*mode == "row")
      out.tensor_parallel = model::TensorParallelMode::Row;
    else
      layer.error("tensor_parallel", "unknown tensor-parallel mode '" + *mode + "' (known: column, row)");
  }
  out.tp_comm_bytes_per_sample =
      layer.quantity("tp_comm_bytes_per_sample", Dimension::Bytes, Presence::Optional).value_or(0);
  out.cp_comm_bytes_per_sample =
      layer.quantity("cp_comm_bytes_per_sample", Dimension::Bytes, Presence::Optional).value_or(0);
  if (out.tp_comm_bytes_per_sample > 0 && !out.tp_sharded())
    layer.error("tp_comm_bytes_per_sample", "only meaningful on a column or row tensor-parallel layer");
  // A row layer's output is all-reduced across the tensor-parallel group in forward (Megatron-LM's g):
  // without its size that all-reduce would silently move 0 bytes.
  if (out.tensor_parallel == model::TensorParallelMode::Row && !layer.has("tp_comm_bytes_per_sample"))
    layer.error("tensor_parallel", "a row tensor-parallel layer needs 'tp_comm_bytes_per_sample' (the bytes of the "
                                   "forward all-reduce of its output, per sample)");
  read_kernels(layer, out);
  layer.finish();
  return out;
}

} // namespace gpuscale::config
