#include "sim/sweep/SweepResultsWriter.hpp"

namespace gpuscale::sweep {

SweepResultsWriter::SweepResultsWriter(std::string results_path, SweepJournal& journal, Policy policy,
                                       std::string gpuscale_version)
    : results_path_(std::move(results_path)), journal_(journal), policy_(policy),
      gpuscale_version_(std::move(gpuscale_version))
{
}

void SweepResultsWriter::add(results::RunToWrite run)
{
  journal_.append(run);
  if (waiting_.empty())
    oldest_ = std::chrono::steady_clock::now();
  waiting_.push_back(std::move(run));
  flush_if_due();
}

void SweepResultsWriter::flush_if_due()
{
  if (!waiting_.empty() && (waiting_.size() >= policy_.max_rows ||
                            std::chrono::steady_clock::now() - oldest_ >= policy_.max_delay))
    flush();
}

void SweepResultsWriter::flush()
{
  if (waiting_.empty())
    return;
  results::append_runs(results_path_, waiting_, gpuscale_version_);
  // A crash here leaves rows both in the file and in the journal; resume skips the duplicates.
  journal_.clear();
  rows_written_ += waiting_.size();
  ++appends_;
  waiting_.clear();
}

} // namespace gpuscale::sweep
