#pragma once
/// The kernels a layer runs and their shapes (workloads/SCHEMA.md, "Kernels"): one sample's forward
/// kernels before any parallelism, in launch order. Their FLOPs are the layer's FLOPs (the reader
/// checks it), so a kernel time model can price each product by its shape, and tensor / context
/// parallelism can be checked against the heads and the sequence they split.
///
/// FLOP per kernel, with 1 multiply-accumulate = 2 FLOP:
///   gemm         2 m n k batch
///   conv         2 out_h out_w k (c / groups) r s,  out = (in + 2 pad - kernel) / stride + 1
///   attention    heads x pairs x (4 head_dim + 5): QK^T and AV, plus softmax at 5 FLOP per score;
///                pairs = q kv, or q (q + 1) / 2 when causal
///   elementwise  elements x flop_per_element

#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace gpuscale::model {

/// (m x k) by (k x n), `batch` independent products of that shape per sample. m: rows per sample
/// (its tokens, masked positions, or 1).
struct GemmShape {
  long long m = 0, n = 0, k = 0, batch = 1;
};

/// A 2-D convolution of one sample: input h x w with c channels, k output channels, r x s filter.
struct ConvShape {
  long long h = 0, w = 0, c = 0, k = 0, r = 0, s = 0, stride = 1, pad = 0, groups = 1;
  long long out_h() const { return (h + 2 * pad - r) / stride + 1; }
  long long out_w() const { return (w + 2 * pad - s) / stride + 1; }
};

/// One fused attention kernel (FlashAttention-style): softmax(Q K^T / sqrt(d)) V over `heads` query
/// heads sharing `kv_heads` key/value heads (grouped-query attention).
struct AttentionShape {
  long long heads = 0, kv_heads = 0, q = 0, kv = 0, head_dim = 0;
  bool causal = false;
  /// Query-key scores computed: causal kernels skip the masked half (FlashAttention-2, Dao 2023).
  double pairs() const;
};

/// A memory-bound op over `elements` values: it reads and writes `bytes_per_element` bytes per
/// element when it runs as its own kernel. A fused one runs inside the kernel before it (an
/// epilogue or prologue, or inside a fused attention): its FLOPs count, its traffic and launch do not.
struct ElementwiseShape {
  long long elements = 0;
  double flop_per_element = 0;
  double bytes_per_element = 0;
  bool fused = false;
};

struct Kernel {
  std::variant<GemmShape, ConvShape, AttentionShape, ElementwiseShape> shape;
  /// Backward FLOPs as a multiple of the forward's: 2 (input and weight gradients, or both operands
  /// of a weight-free product), 1 (input gradient only), 0 (no backward).
  int backward_factor = 0;

  double forward_flop() const;
  double backward_flop() const { return backward_factor * forward_flop(); }
  std::string op_name() const;
};

/// The names the schema's `op:` key takes.
inline constexpr std::string_view kKernelOps = "gemm, conv, attention, elementwise";

} // namespace gpuscale::model
