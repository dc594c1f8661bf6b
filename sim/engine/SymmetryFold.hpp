#pragma once
/// Folding a symmetric step: when shifting every GPU by a block of whole nodes maps the step onto
/// itself, the SimGrid run simulates the first block only, on a quotient platform, and every other
/// GPU takes the trace of its counterpart in that block.
///
///   nodes:  [ 0  1 .. k-1 ][ k .. 2k-1 ] ... [ N-k .. N-1 ]      sigma: node n -> n + k (mod N)
///            simulated       copies of the first block (N/k blocks in all)
///
/// Why it is exact. sigma is checked to be an automorphism of everything the simulation reads:
/// the topology graph (every edge onto an edge with the same line rate, usable fraction and
/// latency), the GPUs' programs and speeds, and every communicator (groups onto groups of the same
/// shape, each ring's successor commuting with sigma on every channel). The routes are the graph's
/// shortest ones, checked unique from the block's GPUs, so sigma maps routes onto routes. SimGrid's
/// run is deterministic, so its state is sigma-invariant at every event: a GPU and its image do the
/// same things at the same times. On the quotient, each link stands for one orbit of links; sigma
/// acts freely on every crossed link (orbits of N/k links) and no route crosses two links of one
/// orbit, so each quotient link carries exactly one flow of each orbit of flows that cross the links
/// it stands for: the same flows, with the same route latencies and bandwidth bounds, as each of
/// them. The max-min sharing of each link is therefore the full run's, and a rank's flows start and
/// end when its counterpart's do (tests/engine/SymmetryFold_test.cpp: folded against full to 1e-9).
///
/// Refused (the whole step simulated) when any check fails: partial nodes or leaves, GPUs of
/// different speeds or programs, groups that the shift does not map onto groups (tensor or context
/// parallel layouts are folded only where it does), halving-doubling across nodes (its partners are
/// not rings; inside a node, groups must map member by member, so partners map onto partners),
/// a route that a tie-break chose, a link that the shift leaves in place, a folded route back to
/// its own GPU, or SimGrid's cross-traffic (it loads each flow's reverse route, which the quotient
/// does not hold).

#include "sim/engine/TopologyGraph.hpp"

#include <string>
#include <vector>

namespace gpuscale::engine {

struct StepSetup;

/// A route of the quotient platform: from a simulated GPU to one, over orbit-representative links.
struct FoldedRoute {
  int src_rank = 0;
  int dst_rank = 0;
  std::vector<RouteHop> hops;
};

struct SymmetryFold {
  int block_ranks = 0;  ///< GPUs simulated: ranks 0 .. block_ranks - 1 (whole nodes)
  int copies = 1;       ///< blocks in the step (1: not folded)
  std::string refusal;  ///< why the step is not folded ("" when it is)
  std::vector<FoldedRoute> routes; ///< every route the simulated GPUs' collectives send on

  bool folded() const { return copies > 1; }
  /// The simulated GPU whose trace `rank` takes.
  int representative(int rank) const { return folded() ? rank % block_ranks : rank; }
  /// "folded: 8 copies of 128 GPUs" or "not folded: <reason>".
  std::string describe() const;
};

/// The smallest block of whole nodes whose shift is a proven symmetry of `setup`'s step, with the
/// quotient's routes; or a refusal (also when the scenario says `symmetry: simulate`).
SymmetryFold find_symmetry_fold(const StepSetup& setup);

/// A fold that was not tried (`reason`).
SymmetryFold refused_fold(std::string reason);

} // namespace gpuscale::engine
