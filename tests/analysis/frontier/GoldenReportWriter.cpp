// Writes the golden report tables (target update_analysis_golden); see ReportGolden_test.cpp.

#include "analysis/frontier/FrontierAnalysis.hpp"
#include "analysis/frontier/MarkdownReport.hpp"
#include "tests/analysis/frontier/SyntheticRuns.hpp"

#include <cstdio>
#include <fstream>

int main(int argc, char** argv)
{
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s GOLDEN_FILE\n", argv[0]);
    return 2;
  }
  std::ofstream out(argv[1]);
  gpuscale::analysis::write_report_tables(
      gpuscale::analysis::analyse_frontier(gpuscale::testing::synthetic_runs(), gpuscale::analysis::FrontierOptions{}),
      out);
  if (!out) {
    std::fprintf(stderr, "cannot write %s\n", argv[1]);
    return 1;
  }
  std::printf("wrote %s\n", argv[1]);
  return 0;
}
