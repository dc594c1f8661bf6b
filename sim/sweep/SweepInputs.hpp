#pragma once
/// The input files of a sweep and the hashes of their contents, recorded in its manifest so that
/// `--resume` can tell whether anything the finished rows were computed from has changed since.

#include "sim/model/SweepSpec.hpp"
#include "sim/results/SweepManifest.hpp"

#include <string>
#include <vector>

namespace gpuscale::sweep {

/// Every platform file (with the catalog files it imports), workload, convergence table, network
/// calibration and host-input table the points of `spec` read, as they name them, sorted.
std::vector<std::string> sweep_input_files(const model::SweepSpec& spec);

/// Every platform file (with the catalog files it imports), workload, convergence table and host-input
/// table the points of `spec` read, hashed now; sorted by path relative to the sweep file's folder.
std::vector<results::SweepInput> hash_sweep_inputs(const model::SweepSpec& spec);

/// Throws std::invalid_argument naming the first input of `recorded` (written when the sweep in
/// `output` started) that changed, appeared or went missing since. A manifest of an older version,
/// without hashes, is accepted.
void check_sweep_inputs_unchanged(const results::SweepManifest& recorded, const std::vector<results::SweepInput>& now,
                                  const std::string& output);

} // namespace gpuscale::sweep
