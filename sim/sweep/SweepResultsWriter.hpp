#pragma once
/// Buffers a sweep's rows and appends them to the results file in batches: each append rewrites the
/// file (temporary copy, then rename), so one append per row would make a long sweep quadratic. Every
/// row goes to the journal first, so rows waiting in the buffer survive a crash.

#include "sim/sweep/SweepJournal.hpp"
#include "sim/results/ResultsFile.hpp"

#include <chrono>
#include <string>
#include <vector>

namespace gpuscale::sweep {

class SweepResultsWriter {
public:
  struct Policy {
    std::size_t max_rows = 32;                    ///< append once this many rows are waiting
    std::chrono::milliseconds max_delay{2000};    ///< or once the oldest has waited this long
  };

  SweepResultsWriter(std::string results_path, SweepJournal& journal, Policy policy, std::string gpuscale_version);

  /// Records one finished point: journal now, results file at the next flush.
  void add(results::RunToWrite run);
  /// Appends if the policy says it is time.
  void flush_if_due();
  /// Appends everything waiting, then empties the journal.
  void flush();

  std::size_t rows_written() const { return rows_written_; }
  std::size_t appends() const { return appends_; }

private:
  std::string results_path_;
  SweepJournal& journal_;
  Policy policy_;
  std::string gpuscale_version_;
  std::vector<results::RunToWrite> waiting_;
  std::chrono::steady_clock::time_point oldest_;
  std::size_t rows_written_ = 0;
  std::size_t appends_ = 0;
};

} // namespace gpuscale::sweep
