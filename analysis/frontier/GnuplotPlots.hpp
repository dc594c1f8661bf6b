#pragma once
/// Plots of the analysis with gnuplot, each as PNG (pngcairo) and SVG: time vs GPUs and efficiency vs
/// GPUs as small multiples (one panel per workload, or per workload and platform past 8 series; at
/// most 8 series a panel, each with its own colour, point type and dash pattern; balance points
/// circled), per workload the Pareto frontiers of time against GPU-hours, cost and energy (front
/// points numbered as in the report's tables, balance points and the deadline choice marked), and the
/// clusters (in their two most separating features, and throughput per GPU vs GPUs). Input-bound configurations and those with extrapolated convergence are marked on the
/// scaling and frontier plots. Data files (.dat) and scripts (.gp) are kept beside the images so a
/// plot can be restyled by editing its script.

#include "analysis/frontier/FrontierAnalysis.hpp"
#include "analysis/frontier/MarkdownReport.hpp"

#include <string>
#include <vector>

namespace gpuscale::analysis {

struct PlotOutcome {
  std::vector<PlotFile> plots; ///< rendered
  std::string problem;         ///< empty if every plot rendered; else why not (gnuplot missing, its error)
};

/// Writes data and scripts into `directory` (which must exist). If `render`, runs `gnuplot` on each
/// script there (its messages go to plots.log).
PlotOutcome write_plots(const FrontierAnalysis& analysis, const std::string& directory, bool render = true);

} // namespace gpuscale::analysis
