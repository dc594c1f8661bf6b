#pragma once
/// Predicted-vs-actual plot of a validation (gnuplot, PNG): log-log axes, one point style per
/// benchmark, the y = x line and the +-10 % band.

#include <string>
#include <vector>

namespace gpuscale::app {

struct PlotPoint {
  std::string benchmark;
  double actual_s = 0;    ///< the MLPerf score, seconds
  double predicted_s = 0; ///< seconds
};

/// Writes `png` by running gnuplot (axes in minutes) on a script and data written next to it (<png>.gp, <png>.dat).
/// Returns "" on success, else why no plot was made (gnuplot missing or failing).
std::string write_validation_plot(const std::string& png, const std::string& title, const std::vector<PlotPoint>& points);

} // namespace gpuscale::app
