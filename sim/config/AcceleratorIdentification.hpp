#pragma once
/// Finds the catalog accelerator a system description means, from the way descriptions really write
/// it ("NVIDIA H100 80GB HBM3", "AMD Instinct MI300X 192GB HBM3", "NVIDIA Blackwell GPU (GB200)",
/// "Intel(R) Gaudi(R) 2 AI Accelerator", "TPU v6e Trillium"). One rule for every command that maps a
/// description onto the catalog (check, predict, calibrate, validate, mlperf import).
///
/// A description is read as traits: vendor, part number, form factor (SXM, PCIe, NVL, OAM), memory
/// size and memory type. Case, spacing, punctuation, (R)/(TM) marks and word order do not matter.
///   1. A description equal to a catalog name or alias (case and blanks ignored) is that entry.
///   2. Otherwise the candidates are the entries with the same part number (tokens such as h100,
///      mi300x, gaudi3, v6e; "Trillium" is v6e). A candidate is excluded when it contradicts a trait the
///      description states: another vendor, a form factor it does not have, a memory size more than
///      10 % away, another memory type. The entries' traits come from their name, display name and
///      aliases, plus `memory` and `memory_type`.
///   3. Of the rest, the one matching most stated traits wins; at equal count, the one with fewer form
///      factors the description leaves unstated ("NVIDIA H200" is the SXM part, not the H200 NVL).
///      Candidates still equal make the description ambiguous: an error lists them.
///   4. A memory size stated only in the separate memory field, that excludes every candidate, is set
///      aside when the name then identifies one entry alone: the name is what submitters write about
///      the part, the memory field is often copied from another system's description (v5.0 Oracle
///      BM.GPU.GB200.4 states the GB200 with H200's 143771 MiB). The identification then carries a note.
/// No part number, or none in the catalog: an error listing the closest catalog entries.

#include "sim/model/Platform.hpp"

#include <map>
#include <optional>
#include <set>
#include <string>

namespace gpuscale::config {

/// What a description states about an accelerator; empty members are not stated.
struct AcceleratorTraits {
  std::string vendor;              ///< nvidia | amd | intel | google
  std::set<std::string> parts;     ///< part-number tokens, lower case: "h100", "mi300x", "gaudi3", "v6e"
  std::set<std::string> forms;     ///< sxm | pcie | nvl | oam
  std::optional<double> memory_gb; ///< nominal size as written (GB or GiB alike; MiB converted to GiB)
  std::string memory_type;         ///< hbm2 | hbm2e | hbm3 | hbm3e | gddr6 | gddr6x, lower case
};

/// The traits a free-text description states.
AcceleratorTraits accelerator_traits(const std::string& description);

/// Outcome of identify_accelerator: the catalog name, or why there is none.
struct AcceleratorIdentification {
  std::string gpu_type; ///< catalog accelerator name; "" when `error` says why not
  std::string error;    ///< e.g. "unknown accelerator 'X' (closest catalog entries: ...)"
  std::string note;     ///< what was set aside to identify it (rule 4); "" when nothing was
};

/// The catalog accelerator `model_name` denotes (rule above). `memory_capacity` is the description's
/// separate memory field when it has one ("80 GB", "81559 MiB"); it counts as a stated memory size
/// when `model_name` states none.
AcceleratorIdentification identify_accelerator(const std::map<std::string, model::GpuType>& catalog,
                                               const std::string& model_name,
                                               const std::string& memory_capacity = "");

/// `text` in lower case with every run of blanks one space and no blank at either end: how names
/// from system descriptions are compared.
std::string lower_blank_normalised(const std::string& text);

} // namespace gpuscale::config
