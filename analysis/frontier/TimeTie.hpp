#pragma once
/// Whether two configurations' times can be told apart at the calibration's interval level: the
/// interval of their ratio holds 1 (a tie). Rows carry their regime (interval_regime) but not the
/// parameter sensitivities `gpuscale compare` uses, so the ratio's bounds here are the left-out pair
/// bounds of the two rows' regimes (model::ratio_log_bounds, same family when both run on the same
/// accelerators) with no further parameter widening, or, without pair bounds or regimes, the two
/// rows' own intervals combined as independent (wider: a tie more often, never a false "faster").

#include "analysis/frontier/Configuration.hpp"
#include "sim/model/PredictionInterval.hpp"

namespace gpuscale::analysis {

/// The 80 % bounds of time_s(a) / time_s(b), as above. `intervals`: the calibration's (nullptr: none,
/// so the rows' own intervals are combined).
std::pair<double, double> time_ratio_bounds(const Configuration& a, const Configuration& b,
                                            const model::IntervalModel* intervals);

/// The ratio's bounds hold 1.
bool time_tie(const Configuration& a, const Configuration& b, const model::IntervalModel* intervals);

} // namespace gpuscale::analysis
