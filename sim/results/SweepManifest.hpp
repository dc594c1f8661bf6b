#pragma once
/// What a results file holds of a sweep, stored beside its rows so that resume and merge can check
/// files against each other without the sweep's inputs:
///   /sweeps/<sweep_id>/spec_text        the sweep file's text (string dataset)
///   /sweeps/<sweep_id>/runnable_points  indices of every runnable point of the sweep (int64, increasing)
///   attributes of /sweeps/<sweep_id>:   spec_path, points_total, shard_index, shard_count
/// A file written by `gpuscale sweep --shard i/N` is to hold the runnable points at positions k with
/// k mod N = i; a whole sweep (or a merge) has shard 0/1.

#include <cstdint>
#include <string>
#include <vector>

namespace gpuscale::results {

/// A file a sweep read, and the hash of its content when the sweep started.
struct SweepInput {
  std::string path; ///< relative to the sweep file's folder
  std::string hash; ///< FNV-1a 64 of the content, 16 hex digits ("missing" for a file that was not there)
  bool operator==(const SweepInput&) const = default;
};

struct SweepManifest {
  std::string sweep_id;
  std::string spec_path;
  std::string spec_text;
  std::int64_t points_total = 0;
  std::vector<std::int64_t> runnable_points;
  int shard_index = 0;
  int shard_count = 1;
  /// Every platform, catalog, workload, convergence and host-input file of the sweep's points, sorted
  /// by path (/sweeps/<id>/input_hashes: one "hash  path" line each). Empty in files of older versions.
  std::vector<SweepInput> inputs;

  /// The points this file is to hold.
  std::vector<std::int64_t> expected_points() const;
  /// "i/N", or "all" for an unsharded sweep.
  std::string shard_label() const;

  bool operator==(const SweepManifest&) const = default;
};

/// Adds (or replaces) the manifest of `manifest.sweep_id` in `path`, creating an empty results file
/// if there is none. Crash-safe like append_runs (temporary file, then rename).
/// Holds the ResultsFileLock of `path`'s folder while it does.
void write_sweep_manifest(const std::string& path, const SweepManifest& manifest, const std::string& gpuscale_version);

class ResultsFileLock;
/// The same, for a caller that already holds that lock.
void write_sweep_manifest(const std::string& path, const SweepManifest& manifest, const std::string& gpuscale_version,
                          const ResultsFileLock& lock);

/// Every manifest in `path`, sorted by sweep_id (none for a file written by `gpuscale run`).
std::vector<SweepManifest> read_sweep_manifests(const std::string& path);

} // namespace gpuscale::results
