#pragma once
/// One writer at a time for the results files of a folder.
///
/// Every change to a results file is a read-modify-replace: copy the file, append to the copy, rename
/// the copy over the original. Two writers doing that at once both start from the same old file, and
/// the second rename silently drops the rows of the first. A ResultsFileLock is an exclusive flock()
/// on the folder that holds the file, taken before the file is read and released after the rename.
/// The folder, not the file, is locked because the file is replaced (a lock on the old inode would
/// not exclude a writer that opens the new one), may not exist yet (two writers creating it), and a
/// lock file beside it would be one more file left behind. Unrelated results files in one folder
/// therefore wait for each other too, for the few milliseconds an append takes.
///
/// A writer that finds the lock held waits for it, polling, at most lock_timeout_s() seconds
/// (GPUSCALE_LOCK_TIMEOUT_S, default 60), then gives up with a ResultsFileError that says so. The
/// kernel releases the lock when its holder exits, however it exits, so a killed writer never leaves
/// the folder locked. flock() locks of two descriptors exclude each other even in one process: a
/// holder passes its lock to the functions it calls (append_runs, write_sweep_manifest) instead of
/// taking a second one.

#include <string>

namespace gpuscale::results {

/// Seconds a writer waits for a held lock: GPUSCALE_LOCK_TIMEOUT_S when set to a number >= 0, else 60.
double lock_timeout_s();

class ResultsFileLock {
public:
  /// Locks the folder of `results_path`, waiting up to lock_timeout_s(). Throws ResultsFileError
  /// when the folder cannot be opened or the lock stays held past the timeout.
  explicit ResultsFileLock(const std::string& results_path);
  ~ResultsFileLock();
  ResultsFileLock(const ResultsFileLock&) = delete;
  ResultsFileLock& operator=(const ResultsFileLock&) = delete;

  /// Whether this lock covers `results_path` (a file in the locked folder).
  bool covers(const std::string& results_path) const;

private:
  std::string directory_;
  int fd_ = -1;
};

} // namespace gpuscale::results
