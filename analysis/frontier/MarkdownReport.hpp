#pragma once
/// The efficiency report in Markdown: a header naming the inputs and the models, every table of the
/// analysis, and links to the plots.

#include "analysis/frontier/FrontierAnalysis.hpp"

#include <ostream>
#include <string>
#include <vector>

namespace gpuscale::analysis {

/// A rendered plot: `stem`.png and `stem`.svg in the report directory.
struct PlotFile {
  std::string stem;
  std::string title;
};

struct ReportContext {
  std::string source;                 ///< results file name, as shown
  std::vector<PlotFile> plots;
  std::string plot_problem;           ///< why plots are missing, if they are
};

/// Every table of the report (deterministic: the golden-file test compares it).
void write_report_tables(const FrontierAnalysis& analysis, std::ostream& out);

/// The whole report: title, inputs and models, tables, plots.
void write_markdown_report(const FrontierAnalysis& analysis, const ReportContext& context, std::ostream& out);

/// Top rows of each workload's TOPSIS ranking as a plain-text table (what `gpuscale frontier` prints).
std::string format_ranking_text(const FrontierAnalysis& analysis, std::size_t rows_per_workload);

/// Number formatting used in the tables: 4 significant digits, "n/a" for NaN.
std::string format_number(double value);
/// Seconds with a unit chosen for readability, 4 significant digits ("41.19 ms").
std::string format_time(double seconds);

} // namespace gpuscale::analysis
