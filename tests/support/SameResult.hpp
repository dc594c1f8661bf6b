#pragma once
/// One check for "the same simulated step" in the tests of the fast paths (steady-state extension,
/// symmetry fold) against the full simulation: every figure of an iteration's result.

#include "sim/engine/IterationSimulator.hpp"

#include <catch2/catch.hpp>

namespace gpuscale::testing {

/// Every figure of the two results equal to `relative` (exposed communication also to 1e-15 s
/// absolute, since it can be zero), and the same collective.
inline void check_same_result(const engine::IterationResult& a, const engine::IterationResult& b, double relative)
{
  CHECK(a.iteration_time_s == Approx(b.iteration_time_s).epsilon(relative));
  CHECK(a.compute_time_s == Approx(b.compute_time_s).epsilon(relative));
  CHECK(a.comm_time_s == Approx(b.comm_time_s).epsilon(relative));
  CHECK(a.exposed_comm_s == Approx(b.exposed_comm_s).epsilon(relative).margin(1e-15));
  CHECK(a.bytes_sent_per_gpu == Approx(b.bytes_sent_per_gpu).epsilon(relative));
  CHECK(a.dp_bytes_sent_per_gpu == Approx(b.dp_bytes_sent_per_gpu).epsilon(relative));
  CHECK(a.samples_per_s == Approx(b.samples_per_s).epsilon(relative));
  CHECK(a.collective_used == b.collective_used);
}

} // namespace gpuscale::testing
