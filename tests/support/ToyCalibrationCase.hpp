#pragma once
// Synthetic calibration cases for the fit's tests: a step whose compute and memory efficiencies the
// results can tell apart, without a simulation.

#include "analysis/calibration/CalibrationCase.hpp"
#include "sim/model/Benchmark.hpp"

#include <string>

namespace gpuscale::test {

/// A step with a FLOP-bound part, two roofline kernels of different intensity and an optimizer.
inline model::StepWork toy_work(double scale)
{
  model::StepWork w;
  w.peak_flop_per_s = 1e15;
  w.memory_bw_Bps = 3e12;
  w.flop_bound_flop = 4e14 * scale;
  // memory traffic grows unlike the FLOPs from case to case, so compute and memory efficiency separate
  w.memory_kernels = {{1e12 * scale, 1e10 * scale * scale, 10}, {1e9 * scale, 2e10 / scale, 20}};
  w.optimizer_bytes = 5e10;
  return w;
}

/// One result of `benchmark` on `system` (family "<generation>-part"), 100 minutes per second of
/// step plus 3 s; `round` and `software_year` date it (0: undated).
inline analysis::CalibrationCase toy_case(const std::string& benchmark, const std::string& generation, double scale,
                                          const std::string& system, const std::string& round = "v9",
                                          double software_year = 0, int accelerators = 0)
{
  analysis::CalibrationCase c;
  c.round = round;
  c.submitter = "Acme";
  c.system = system;
  c.system_key = "Acme/" + system;
  c.family = generation + "-part";
  c.benchmark = *model::benchmark_of_name(benchmark);
  c.generation = generation;
  c.accelerators = accelerators;
  c.software_year = software_year;
  c.reference = {.compute = 0.5, .memory = 0.8};
  c.work = toy_work(scale);
  c.comm_s = 0.05;
  c.exposed_comm_s = 0.01;
  c.prepare();
  c.iteration_s = c.reference_busy_s + c.exposed_comm_s;
  c.step_equivalents = 6000.0; // 100 minutes per second of step
  c.fixed_s = 3.0;
  return c;
}

} // namespace gpuscale::test
