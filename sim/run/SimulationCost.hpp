#pragma once
/// What a simulation is expected to cost, before it runs: for progress estimates and limits.

#include "sim/model/Scenario.hpp"
#include "sim/model/WorkloadTrace.hpp"

namespace gpuscale::run {

/// What simulating one step of `scenario` costs, in cost units: GPU actors x layers x micro-batches per
/// step (every GPU runs each layer forward and backward once per micro-batch, and the engine's events
/// and the collectives between them grow alike). Only ratios matter: SweepProgress learns the seconds
/// per unit from the points done.
double simulation_cost_units(const model::Scenario& scenario, const model::WorkloadTrace& workload);

} // namespace gpuscale::run
