#include "sim/engine/ComputeCostModel.hpp"

#include "sim/engine/ScheduleBuilder.hpp"

#include <algorithm>
#include <cmath>
#include <variant>

namespace gpuscale::engine {
namespace {

constexpr double kFlopPerElement = 4.0; ///< the shape-less model's elements per FLOP (header)
constexpr double kTileEdge = 128.0;     ///< largest output tile edge of a GEMM
constexpr double kMmaEdge = 16.0;       ///< tensor-core instruction granularity (m16n8k16)
constexpr double kSplitKChunk = 4.0 * kTileEdge; ///< smallest inner-dimension chunk of a split-K product

template <class... Visitor>
struct Overloaded : Visitor... {
  using Visitor::operator()...;
};
template <class... Visitor>
Overloaded(Visitor...) -> Overloaded<Visitor...>;

double round_up(double value, double step) { return std::ceil(value / step) * step; }

/// How one layer's kernels are cut on this rank: the micro-batch multiplies rows, and each
/// parallelism divides the dimension it splits (header).
struct Split {
  double micro = 1;      ///< samples in the micro-batch
  double rows = 1;       ///< divides tokens / rows / images (sequence and context parallelism)
  double columns = 1;    ///< divides a column-parallel GEMM's n and attention heads
  double inner = 1;      ///< divides a row-parallel GEMM's k
  double elements = 1;   ///< divides an elementwise op's elements (every split of the layer)
  double flop_scale = 1; ///< micro / compute_split: the layer's FLOPs on this rank per sample's
  int gemm_row_chunks = 1; ///< products a forward / input-gradient GEMM is cut into along its rows
};

Split split_of(const model::Layer& layer, const model::Scenario& scenario, int micro_batch)
{
  const LayerShare share = share_of(layer, scenario, micro_batch);
  const double tp = scenario.tensor_parallel;
  Split split;
  split.micro = micro_batch;
  split.flop_scale = micro_batch / share.compute_split;
  split.elements = share.compute_split;
  split.rows = scenario.context_parallel;
  if (layer.tensor_parallel == model::TensorParallelMode::Column)
    split.columns = tp;
  else if (layer.tensor_parallel == model::TensorParallelMode::Row)
    split.inner = tp;
  else if (scenario.sequence_parallel)
    split.rows *= tp;
  return split;
}

/// A product's cost on this rank: FLOPs (scaled as share_of scales the layer's), occupied FLOPs from
/// the product's own shape, bytes of its operands and output.
KernelCost product(double flop, double m, double n, double k, double batch, double element_bytes, int units)
{
  KernelCost kernel;
  kernel.flop = flop;
  kernel.occupied_flop = flop / tile_efficiency(m, n, k, batch, units);
  kernel.bytes = (m * k + k * n + m * n) * batch * element_bytes;
  return kernel;
}

/// A product of `m` rows run as `chunks` products of m / chunks rows (Split::gemm_row_chunks).
void add_row_chunked_product(LayerKernels& out, double flop, double m, double n, double k, double batch,
                             double element_bytes, int units, int chunks)
{
  for (int c = 0; c < chunks; ++c)
    out.kernels.push_back(product(flop / chunks, m / chunks, n, k, batch, element_bytes, units));
}

void add_gemm(LayerKernels& out, const model::GemmShape& g, double flop, int backward_factor, const Split& split,
              double element_bytes, int units, bool backward)
{
  const double m = g.m * split.micro / split.rows;
  const double n = g.n / split.columns;
  const double k = g.k / split.inner;
  if (!backward) {
    add_row_chunked_product(out, flop, m, n, k, g.batch, element_bytes, units, split.gemm_row_chunks);
    return;
  }
  add_row_chunked_product(out, flop, m, k, n, g.batch, element_bytes, units, split.gemm_row_chunks); // dY W
  if (backward_factor == 2) {                                                  // weight gradient: dY^T X
    out.kernels.push_back(product(flop, n, k, m, g.batch, element_bytes, units));
    out.kernels.back().weight_gradient = true;
  }
}

void add_conv(LayerKernels& out, const model::ConvShape& c, double flop, int backward_factor, const Split& split,
              double element_bytes, int units, bool backward)
{
  // Implicit GEMM per group: rows = output pixels, columns = output channels, inner = C R S.
  const double images = split.micro / split.rows;
  const double groups = c.groups;
  const double in_pixels = double(c.h) * c.w * images, out_pixels = double(c.out_h()) * c.out_w() * images;
  const double c_group = double(c.c) / groups, k_group = double(c.k) / groups, rs = double(c.r) * c.s;
  const double bytes = (in_pixels * c.c + double(c.k) * c_group * rs + out_pixels * c.k) * element_bytes;
  auto implicit = [&](double m, double n, double k) {
    KernelCost kernel;
    kernel.flop = flop;
    kernel.occupied_flop = flop / tile_efficiency(m, n, k, groups, units);
    kernel.bytes = bytes;
    return kernel;
  };
  if (!backward) {
    out.kernels.push_back(implicit(out_pixels, k_group, c_group * rs));
    return;
  }
  out.kernels.push_back(implicit(in_pixels, c_group, k_group * rs)); // input gradient
  if (backward_factor == 2) {
    out.kernels.push_back(implicit(k_group, c_group * rs, out_pixels)); // weight gradient
    out.kernels.back().weight_gradient = true;
  }
}

void add_attention(LayerKernels& out, const model::AttentionShape& a, double flop, int backward_factor,
                   const Split& split, double element_bytes, int units, bool backward)
{
  // FlashAttention: one thread block per 128 queries of a head (per 128 keys in backward), each
  // sweeping the other side in blocks of 128.
  const double heads = a.heads / split.columns * split.micro;
  const double kv_heads = a.kv_heads / split.columns * split.micro;
  const double q = a.q / split.rows;
  const double kv = a.kv;
  const double blocks = (backward ? std::ceil(kv / kTileEdge) : std::ceil(q / kTileEdge)) * heads;
  const double swept = backward ? round_up(q, kTileEdge) : round_up(kv, kTileEdge);
  const double useful = q * kv * heads;
  double occupied = blocks * kTileEdge * swept;
  if (units > 0)
    occupied = std::ceil(blocks / units) * units * kTileEdge * swept;
  KernelCost kernel;
  kernel.flop = backward ? backward_factor * flop : flop;
  kernel.occupied_flop = kernel.flop * occupied / useful;
  kernel.bytes = (2.0 * heads * q + 2.0 * kv_heads * kv) * a.head_dim * element_bytes * (backward ? 2.0 : 1.0);
  out.kernels.push_back(kernel);
}

void add_elementwise(LayerKernels& out, const model::ElementwiseShape& e, double flop, double factor,
                     const Split& split, bool backward)
{
  KernelCost kernel;
  kernel.flop = factor * flop;
  kernel.occupied_flop = kernel.flop;
  kernel.launched = !e.fused;
  if (!e.fused)
    kernel.bytes = double(e.elements) * split.micro / split.elements * e.bytes_per_element * (backward ? 1.5 : 1.0);
  out.kernels.push_back(kernel);
}

LayerKernels kernels_of(const model::Layer& layer, const model::Scenario& scenario, const model::GpuType& gpu,
                        model::Precision precision, int micro_batch, bool backward, int gemm_row_chunks)
{
  LayerKernels out;
  Split split = split_of(layer, scenario, micro_batch);
  split.gemm_row_chunks = std::max(1, gemm_row_chunks);
  const double element_bytes = model::element_bytes(precision);
  const int units = gpu.compute_units;
  for (const auto& kernel : layer.kernels) {
    if (backward && kernel.backward_factor == 0)
      continue;
    const double flop = kernel.forward_flop() * split.flop_scale; // this rank's share of one product
    std::visit(Overloaded{
                   [&](const model::GemmShape& g) {
                     add_gemm(out, g, flop, kernel.backward_factor, split, element_bytes, units, backward);
                   },
                   [&](const model::ConvShape& c) {
                     add_conv(out, c, flop, kernel.backward_factor, split, element_bytes, units, backward);
                   },
                   [&](const model::AttentionShape& a) {
                     add_attention(out, a, flop, kernel.backward_factor, split, element_bytes, units, backward);
                   },
                   [&](const model::ElementwiseShape& e) {
                     add_elementwise(out, e, flop, backward ? kernel.backward_factor : 1.0, split, backward);
                   },
               },
               kernel.shape);
  }
  return out;
}

// ---- the shape-less model (a trace without kernels) -------------------------------------------------

double tensor_bytes_per_sample(const model::Layer& layer, model::Precision precision)
{
  if (layer.activation_bytes_per_sample > 0)
    return layer.activation_bytes_per_sample;
  return model::element_bytes(precision) * layer.forward_flop_per_sample / kFlopPerElement;
}

LayerKernels streamed_kernel(const model::Layer& layer, const model::Scenario& scenario, model::Precision precision,
                             int micro_batch, bool backward)
{
  const LayerShare share = share_of(layer, scenario, micro_batch);
  LayerKernels out;
  const double flop = backward ? share.backward_flop : share.forward_flop;
  if (flop <= 0 && !(is_memory_bound_kind(layer.kind) && !backward))
    return out;
  double bytes = 0;
  if (is_memory_bound_kind(layer.kind) && (!backward || layer.backward_flop_per_sample > 0))
    bytes = (backward ? 3.0 : 2.0) * tensor_bytes_per_sample(layer, precision) * micro_batch / share.compute_split;
  // A trainable linear's backward is its input-gradient and weight-gradient GEMMs, each the forward's FLOPs.
  const bool two_gemms = backward && layer.kind == model::LayerKind::Linear && layer.trainable_params > 0 &&
                         layer.frozen_params <= 0;
  if (two_gemms) {
    out.kernels.push_back({flop - share.forward_flop, flop - share.forward_flop, 0.0, false, false});
    out.kernels.push_back({share.forward_flop, share.forward_flop, 0.0, false, true});
    return out;
  }
  out.kernels.push_back({flop, flop, bytes, false, false});
  return out;
}

} // namespace

double LayerKernels::flop() const
{
  double total = 0;
  for (const auto& kernel : kernels)
    total += kernel.flop;
  return total;
}

bool is_memory_bound_kind(model::LayerKind kind)
{
  using K = model::LayerKind;
  return kind == K::Norm || kind == K::Activation || kind == K::Elementwise || kind == K::Pool || kind == K::Embedding;
}

double tile_efficiency(double m, double n, double k, double batch, int compute_units)
{
  if (compute_units <= 0 || m <= 0 || n <= 0 || k <= 0 || batch <= 0)
    return 1.0;
  const double units = compute_units;
  const double tile_m = std::min(kTileEdge, round_up(m, kMmaEdge));
  const double tile_n = std::min(kTileEdge, round_up(n, kMmaEdge));
  const double inner = round_up(k, kMmaEdge);
  const double tiles = std::ceil(m / tile_m) * std::ceil(n / tile_n) * batch;
  double split_k = 1.0;
  if (tiles < units)
    split_k = std::max(1.0, std::min(std::floor(units / tiles), std::floor(inner / kSplitKChunk)));
  const double waves = std::ceil(tiles * split_k / units);
  const double occupied = waves * units * tile_m * tile_n * std::ceil(inner / split_k);
  return std::min(1.0, m * n * k * batch / occupied);
}

LayerKernels forward_kernels(const model::Layer& layer, const model::Scenario& scenario, const model::GpuType& gpu,
                             model::Precision precision, int micro_batch, int gemm_row_chunks)
{
  if (layer.kernels.empty())
    return streamed_kernel(layer, scenario, precision, micro_batch, false);
  return kernels_of(layer, scenario, gpu, precision, micro_batch, false, gemm_row_chunks);
}

LayerKernels backward_kernels(const model::Layer& layer, const model::Scenario& scenario, const model::GpuType& gpu,
                              model::Precision precision, int micro_batch, int gemm_row_chunks)
{
  if (layer.kernels.empty())
    return streamed_kernel(layer, scenario, precision, micro_batch, true);
  return kernels_of(layer, scenario, gpu, precision, micro_batch, true, gemm_row_chunks);
}

double kernel_time_s(const KernelCost& kernel, const model::Roofline& roofline)
{
  return roofline.time_s({kernel.occupied_flop, kernel.bytes});
}

double launch_time_s(const model::Scenario& scenario) { return scenario.cuda_graph ? kGraphLaunch_s : kEagerLaunch_s; }

double kernels_time_s(const LayerKernels& kernels, const model::Roofline& roofline, double launch_s, KernelPart part)
{
  double seconds = 0;
  for (const auto& kernel : kernels.kernels) {
    if ((part == KernelPart::WeightGradient && !kernel.weight_gradient) ||
        (part == KernelPart::Other && kernel.weight_gradient))
      continue;
    seconds += kernel_time_s(kernel, roofline) + (kernel.launched ? launch_s : 0.0);
  }
  return seconds;
}

} // namespace gpuscale::engine
