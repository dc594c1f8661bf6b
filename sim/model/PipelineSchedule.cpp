#include "sim/model/PipelineSchedule.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace gpuscale::model {

std::vector<LayerRange> pipeline_units(const WorkloadTrace& workload)
{
  std::vector<LayerRange> units;
  const std::size_t n = workload.layers.size();
  for (std::size_t i = 0; i < n; ++i) {
    const int block = workload.layers[i].block;
    if (block < 0)
      continue;
    if (!units.empty() && workload.layers[units.back().end - 1].block == block && units.back().end == i) {
      units.back().end = i + 1;
      continue;
    }
    // A new block: the layers since the last one (outside any block) belong to the unit before,
    // or, before the first block, to this one.
    const std::size_t begin = units.empty() ? 0 : i;
    if (!units.empty())
      units.back().end = i;
    units.push_back({begin, i + 1});
  }
  if (!units.empty())
    units.back().end = n;
  return units;
}

std::vector<LayerRange> pipeline_chunks(const WorkloadTrace& workload, int chunks)
{
  const std::vector<LayerRange> units = pipeline_units(workload);
  const auto c = static_cast<std::size_t>(std::max(1, chunks));
  if (units.size() < c)
    return {};
  // As many units as the largest chunk holds, then one fewer from the ends inwards.
  const std::size_t per_chunk = (units.size() + c - 1) / c;
  std::vector<std::size_t> count(c, per_chunk);
  std::size_t deficit = per_chunk * c - units.size();
  for (std::size_t k = 0; deficit > 0; ++k) {
    const std::size_t at = k % 2 == 0 ? k / 2 : c - 1 - k / 2;
    --count[at];
    --deficit;
  }
  std::vector<LayerRange> out;
  std::size_t next = 0;
  for (std::size_t k = 0; k < c; ++k) {
    out.push_back({units[next].begin, units[next + count[k] - 1].end});
    next += count[k];
  }
  return out;
}

double pipeline_activation_bytes_per_sample(const WorkloadTrace& workload)
{
  for (const auto& layer : workload.layers)
    if (layer.tensor_parallel == TensorParallelMode::Row && layer.tp_comm_bytes_per_sample > 0)
      return layer.tp_comm_bytes_per_sample;
  return 0;
}

namespace {

PipelineAction pass(PipelineAction::Kind kind, int chunk, int micro_batch)
{
  PipelineAction a;
  a.kind = kind;
  a.chunk = chunk;
  a.micro_batch = micro_batch;
  return a;
}

PipelineAction exchange(bool send_next, bool send_prev, bool recv_prev, bool recv_next)
{
  PipelineAction a;
  a.kind = PipelineAction::Kind::Exchange;
  a.send_next = send_next;
  a.send_prev = send_prev;
  a.recv_prev = recv_prev;
  a.recv_next = recv_next;
  return a;
}

void add_exchange(std::vector<PipelineAction>& out, PipelineAction a)
{
  if (a.send_next || a.send_prev || a.recv_prev || a.recv_next)
    out.push_back(a);
}

/// forward_backward_pipelining_without_interleaving: the p2p calls skip the first stage's previous
/// and the last stage's next neighbour (recv_forward, send_forward, send_forward_recv_backward,
/// send_backward_recv_forward, recv_backward, send_backward).
std::vector<PipelineAction> one_forward_one_backward(int s, int p, int m)
{
  using Kind = PipelineAction::Kind;
  const bool first = s == 0;
  const bool last = s == p - 1;
  const int warmup = std::min(p - s - 1, m);
  const int remaining = m - warmup;
  std::vector<PipelineAction> out;
  for (int i = 0; i < warmup; ++i) {
    add_exchange(out, exchange(false, false, !first, false)); // recv_forward
    out.push_back(pass(Kind::Forward, s, i));
    add_exchange(out, exchange(!last, false, false, false)); // send_forward
  }
  if (remaining > 0)
    add_exchange(out, exchange(false, false, !first, false)); // recv_forward
  for (int i = 0; i < remaining; ++i) {
    out.push_back(pass(Kind::Forward, s, warmup + i));
    add_exchange(out, exchange(!last, false, false, !last)); // send_forward_recv_backward
    out.push_back(pass(Kind::Backward, s, i));
    if (i == remaining - 1)
      add_exchange(out, exchange(false, !first, false, false)); // send_backward
    else
      add_exchange(out, exchange(false, !first, !first, false)); // send_backward_recv_forward
  }
  for (int i = 0; i < warmup; ++i) {
    add_exchange(out, exchange(false, false, false, !last)); // recv_backward
    out.push_back(pass(Kind::Backward, s, remaining + i));
    add_exchange(out, exchange(false, !first, false, false)); // send_backward
  }
  return out;
}

/// forward_backward_pipelining_with_interleaving (overlap_p2p_comm off), transcribed call by call.
std::vector<PipelineAction> interleaved(int s, int p, int v, int m)
{
  using Kind = PipelineAction::Kind;
  const int total = m * v;
  const int group = p * v;
  // get_model_chunk_id, with Python's modulo (the last stage asks for negative k).
  const auto chunk_of = [&](int k, bool forward) {
    const int in_group = ((k % group) + group) % group;
    const int chunk = in_group / p;
    return forward ? chunk : v - chunk - 1;
  };
  const auto micro_batch_of = [&](int k) { return (k / group) * p + k % p; };
  const auto global = [&](int chunk) { return chunk * p + s; };
  const bool all_warmup = m == p;
  const int warmup = all_warmup ? total : std::min((p - s - 1) * 2 + (v - 1) * p, total);
  const int remaining = total - warmup;
  const bool first_rank = s == 0;
  const bool last_rank = s == p - 1;

  std::vector<PipelineAction> out;
  add_exchange(out, exchange(false, false, !first_rank, false)); // recv_forward of chunk 0
  for (int k = 0; k < warmup; ++k) {
    out.push_back(pass(Kind::Forward, global(chunk_of(k, true)), micro_batch_of(k)));
    const bool send_next = !(last_rank && chunk_of(k, true) == v - 1);
    const bool recv_prev = !(first_rank && chunk_of(k + 1, true) == 0) && k != total - 1;
    const bool recv_next = k == warmup - 1 && !all_warmup && !last_rank;
    add_exchange(out, exchange(send_next, false, recv_prev, recv_next));
  }
  for (int k = 0; k < remaining; ++k) {
    const int forward_k = k + warmup;
    out.push_back(pass(Kind::Forward, global(chunk_of(forward_k, true)), micro_batch_of(forward_k)));
    out.push_back(pass(Kind::Backward, global(chunk_of(k, false)), micro_batch_of(k)));
    const bool send_next = !(last_rank && chunk_of(forward_k, true) == v - 1);
    const bool send_prev = !(first_rank && chunk_of(k, false) == 0);
    bool recv_prev = !(first_rank && chunk_of(forward_k - (p - 1), true) == v - 1);
    const bool recv_next = !(last_rank && chunk_of(k - (p - 1), false) == 0);
    if (k == remaining - 1)
      recv_prev = false;
    add_exchange(out, exchange(send_next, send_prev, recv_prev, recv_next));
  }
  if (all_warmup)
    add_exchange(out, exchange(false, false, false, !last_rank)); // recv_backward of chunk v - 1
  for (int k = remaining; k < total; ++k) {
    out.push_back(pass(Kind::Backward, global(chunk_of(k, false)), micro_batch_of(k)));
    const bool send_prev = !(first_rank && chunk_of(k, false) == 0);
    const bool recv_next = !(last_rank && chunk_of(k + 1, false) == v - 1) && k != total - 1;
    add_exchange(out, exchange(false, send_prev, false, recv_next));
  }
  return out;
}

} // namespace

std::vector<PipelineAction> pipeline_schedule(int stage, int stages, int virtual_stages, int micro_batches)
{
  if (stages < 1 || stage < 0 || stage >= stages || virtual_stages < 1 || micro_batches < 1)
    throw std::invalid_argument("pipeline_schedule: stage " + std::to_string(stage) + " of " + std::to_string(stages) +
                                ", " + std::to_string(virtual_stages) + " chunks, " + std::to_string(micro_batches) +
                                " micro-batches");
  if (virtual_stages == 1)
    return one_forward_one_backward(stage, stages, micro_batches);
  if (micro_batches % stages != 0)
    throw std::invalid_argument("the interleaved schedule needs micro-batches (" + std::to_string(micro_batches) +
                                ") to be a multiple of the pipeline stages (" + std::to_string(stages) + ")");
  return interleaved(stage, stages, virtual_stages, micro_batches);
}

std::vector<int> pipeline_passes_in_flight(int stage, int stages, int virtual_stages, int micro_batches)
{
  std::vector<int> passes(static_cast<std::size_t>(virtual_stages), 0);
  for (const PipelineAction& action : pipeline_schedule(stage, stages, virtual_stages, micro_batches)) {
    if (action.kind == PipelineAction::Kind::Backward)
      break;
    if (action.kind == PipelineAction::Kind::Forward)
      ++passes[static_cast<std::size_t>(action.chunk / stages)];
  }
  return passes;
}

} // namespace gpuscale::model
