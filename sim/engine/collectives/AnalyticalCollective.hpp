#pragma once
/// Times one collective without a simulator: every member runs the same plan as on SimGrid
/// (plan_collective), and each exchange of the plan is an α–β transfer along its route
/// (RouteCosts). Members are synchronised exactly as SimGrid's rendezvous synchronises them: a
/// transfer starts once its sender and its receiver have both reached it, and a rank goes on once its
/// send and its receive are done. Links are never shared (no contention), so on a platform where no
/// two transfers of the same moment cross one link the result equals the SimGrid execution.

#include "sim/engine/RouteCosts.hpp"
#include "sim/engine/collectives/CollectiveDispatch.hpp"
#include "sim/engine/collectives/CommunicatorLayout.hpp"

#include <vector>

namespace gpuscale::engine {

/// Runs `op` with `requested` on `layout`'s members. `bytes[j]` is member j's buffer (as
/// run_collective's `bytes`); `clock_s[j]` is when member j starts the collective on entry and when
/// it has finished on return; `counters[j]` gets what member j sent and received.
void time_collective(CollectiveOp op, model::CollectiveAlgorithm requested, const CommunicatorLayout& layout,
                     const RouteCosts& routes, const std::vector<double>& bytes, std::vector<double>& clock_s,
                     std::vector<CollectiveCounters>& counters);

} // namespace gpuscale::engine
