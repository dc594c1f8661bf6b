#pragma once
/// What gpuscale calibrate-network prints and stores besides the fitted values: the parameter
/// table, per log and size class the measured against the fitted bus bandwidth, the warnings, and
/// the `network_fit:` summary of the file.

#include "analysis/calibration/NetworkFit.hpp"
#include "sim/config/NcclTestsLogReader.hpp"
#include "sim/model/Calibration.hpp"

#include <string>
#include <vector>

namespace gpuscale::app {

/// A log as the fit uses it: the log, and its rows that are fitted (in the fit's series order).
struct NetworkCalibrationLog {
  config::NcclTestsLog log;
  std::vector<config::NcclTestsLogRow> rows;
};

/// Rows of every series.
int series_rows(const std::vector<analysis::NetworkFitSeries>& series);

/// The summary stored with the fitted values: per log its rows and median |fitted/measured - 1|.
model::NetworkFitSummary network_fit_summary(const std::string& platform_path,
                                             const std::vector<NetworkCalibrationLog>& logs,
                                             const analysis::NetworkFitResult& fit);

/// The parameter table (start, fitted, 1-sigma, rows, note), the parameters not fitted, and per log
/// and size class the median measured and fitted busbw and the median time error.
std::string format_network_fit_report(const std::vector<NetworkCalibrationLog>& logs,
                                      const analysis::NetworkFitResult& fit);

/// One line per parameter at a bound: the model cannot reach the measured times there.
std::vector<std::string> network_fit_warnings(const analysis::NetworkFitResult& fit);

} // namespace gpuscale::app
