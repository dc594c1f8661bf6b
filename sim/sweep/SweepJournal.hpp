#pragma once
/// The journal of a running sweep, `<results>.journal`: every finished point is appended to it at once
/// (one write), and it is emptied each time the buffered rows reach the results file. A sweep killed
/// between two batched appends (kill -9, power cut after the kernel wrote the page) loses nothing:
/// `--resume` moves the journal's rows into the results file before running anything.
///
/// Layout: a header line "gpuscale-sweep-journal 1 <sweep_id>\n", then records
///   u32 magic 0x4a535047 | u32 payload bytes | u64 FNV-1a of payload | payload
/// with payload = u32 row bytes | encoded RunRecord | scenario text. A torn last record (the process
/// died inside write()) fails its length or checksum and is ignored.
///
/// While a SweepJournal is open it holds an exclusive flock() on the file, so two sweeps cannot write
/// the same results file at once.

#include "sim/results/ResultsFile.hpp"

#include <string>
#include <vector>

namespace gpuscale::sweep {

class SweepJournal {
public:
  /// The journal that belongs to a results file.
  static std::string path_for(const std::string& results_path);

  /// Opens (creating if needed) and locks the journal of `results_path` for sweep `sweep_id`.
  /// Throws std::runtime_error if another process holds it, or if it belongs to another sweep.
  SweepJournal(const std::string& results_path, const std::string& sweep_id);
  SweepJournal(const SweepJournal&) = delete;
  SweepJournal& operator=(const SweepJournal&) = delete;
  ~SweepJournal();

  /// The complete records found when the journal was opened (left by an interrupted sweep).
  const std::vector<results::RunToWrite>& recovered() const { return recovered_; }

  /// Appends one record; throws if the write fails.
  void append(const results::RunToWrite& run);
  /// Drops every record (they are in the results file now).
  void clear();
  /// Deletes the journal file (the sweep is over); the lock goes with the descriptor.
  void remove();

  const std::string& path() const { return path_; }

private:
  std::string header() const;

  std::string path_;
  std::string sweep_id_;
  int fd_ = -1;
  std::vector<results::RunToWrite> recovered_;
};

} // namespace gpuscale::sweep
