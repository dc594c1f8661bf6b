#pragma once
/// Pipelined ring broadcast, as NCCL runs it: the root's buffer is cut into chunks that travel the
/// ring root -> root+1 -> ... -> root-1, each rank forwarding chunk c while it receives chunk c+1,
/// with several chunks in flight per hop (NCCL_STEPS = 8 slots of 512 KiB in the Simple protocol),
/// so a hop pays its latency once, not once per chunk.
///
///   time:    ------------------------------>
///   r0->r1:  c0 c1 c2 c3 ... ck
///   r1->r2:     c0 c1 c2 c3 ... ck
///   r2->r3:        c0 c1 c2 c3 ... ck
///
/// In steady state every hop of the ring carries the whole buffer at once, which is how it is
/// simulated: each hop one flow of S, all flows concurrent (so links that hops share are shared),
/// and the route latencies of the p-2 hops after the first slept at the end. Uncontended, with α
/// the route latency and B its bandwidth:
///   S/B + (p-1)·α
/// The pipeline fill, (p-2) chunks of at most 512 KiB at B (a few microseconds on NVLink), is left
/// out: it matters only for buffers of a few chunks.

#include "sim/engine/collectives/Communicator.hpp"

namespace gpuscale::engine {

/// Broadcasts `bytes` from communicator rank `root`, run as communicator rank `rank` from its actor.
void ring_broadcast(const Communicator& comm, int rank, int root, double bytes, CollectiveCounters& counters);

} // namespace gpuscale::engine
