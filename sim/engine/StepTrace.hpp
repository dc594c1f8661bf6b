#pragma once
/// What each GPU did in one executed step: the common output of both executors
/// (execute_on_simgrid, execute_analytically), from which IterationResult is summarised.

#include "sim/engine/StepProgram.hpp"

#include <array>
#include <vector>

namespace gpuscale::engine {

struct StepSetup;

/// How a step simulated in full, without a shortened try, is described (IterationResult::step_simulation).
inline constexpr const char* kWholeStepSimulated = "whole step simulated";

/// When things happened on one GPU during the step (simulated seconds from 0).
struct GpuTimeline {
  double compute_s = 0; ///< busy executing kernels (forward, backward, optimizer)
  double end_s = 0;     ///< step finished
};

/// One communication stream of one GPU.
struct StreamTrace {
  bool used = false;     ///< the program submitted to it
  double busy_s = 0;     ///< time running collectives
  double bytes_sent = 0; ///< bytes this GPU sent in them
};

struct RankTrace {
  GpuTimeline timeline;
  std::array<StreamTrace, kStreamCount> streams{};
  /// Point-to-point transfers between pipeline stages: busy_s is the time the GPU waited for them
  /// (they run on the compute stream's critical path, StepProgram::wait_transfers).
  StreamTrace pipeline;
};

/// One collective as a stream ran it.
struct CollectiveEvent {
  double start_s = 0;
  double end_s = 0;
  double bytes_sent = 0;
};

/// Every event of one GPU, recorded when a caller asks for them (the steady-state check,
/// SteadyStateRun.hpp): when each instruction of its program started, and each collective of each
/// stream, by ticket - 1.
struct RankEvents {
  std::vector<double> instruction_start_s;
  std::array<std::vector<CollectiveEvent>, kStreamCount> collectives;
};

/// By GPU rank.
using StepTrace = std::vector<RankTrace>;

/// The interface both executors implement: run every rank's program of `setup`.
using StepExecutor = StepTrace (*)(const StepSetup& setup);

} // namespace gpuscale::engine
