#include "sim/engine/collectives/HalvingDoublingAllReduce.hpp"

#include "sim/engine/collectives/CommunicatorLayout.hpp"
#include "sim/engine/collectives/RingAllReduce.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>

#include <cmath>

namespace gpuscale::engine {
namespace {

/// Sends `bytes` to `partner` and receives as much from it. Each step has its own mailbox, so a fast
/// partner's next-step message is never taken for this step's.
void exchange(const Communicator& comm, int rank, int partner, int step, double bytes, CollectiveCounters& counters)
{
  const auto size = static_cast<uint64_t>(std::llround(bytes));
  auto send = comm.step_inbox(partner, step)->put_async(&counters, size);
  comm.step_inbox(rank, step)->get<CollectiveCounters>();
  send->wait();
  counters.bytes_sent += static_cast<double>(size);
  counters.bytes_received += static_cast<double>(size);
}

} // namespace

void halving_doubling_all_reduce(const Communicator& comm, int rank, double bytes, const RingExecution& execution,
                                 CollectiveCounters& counters)
{
  const int p = comm.size();
  if (p < 2 || bytes <= 0)
    return;
  if (!is_power_of_two(p)) {
    run_ring_plan(ring_all_reduce_plan(bytes), execution, comm, rank, counters);
    return;
  }
  int step = 0;
  double chunk = bytes * execution.wire_factor;
  for (int distance = p / 2; distance >= 1; distance /= 2) { // recursive halving
    chunk /= 2;
    exchange(comm, rank, rank ^ distance, step++, chunk, counters);
  }
  for (int distance = 1; distance < p; distance *= 2) { // recursive doubling
    exchange(comm, rank, rank ^ distance, step++, chunk, counters);
    chunk *= 2;
  }
  const double unpaid_s = execution.fixed_s + step * execution.step_s;
  if (unpaid_s > 0)
    simgrid::s4u::this_actor::sleep_for(unpaid_s);
}

} // namespace gpuscale::engine
