#include "sim/config/AcceleratorIdentification.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <regex>
#include <vector>

namespace gpuscale::config {
namespace {

/// A stated memory size matches an entry within this fraction: MLPerf descriptions write the same part
/// as "80 GB", "80G" and "81559 MiB" (79.6 GiB), an A10G as "22.06 GB" of its 24 GB, an L40S as "45 GB".
constexpr double kMemoryTolerance = 0.10;
constexpr std::size_t kClosestListed = 5;

/// Lower-case words of a description: letters, digits and '.' inside numbers; everything else
/// separates. Trademark marks ("(R)", "(TM)", "®", "™") are dropped.
std::vector<std::string> words_of(const std::string& text)
{
  std::string lowered;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    lowered += c < 0x80 ? static_cast<char>(std::tolower(c)) : ' '; // non-ASCII (®, ™) separates
  }
  for (const char* mark : {"(r)", "(tm)"})
    for (std::size_t at = lowered.find(mark); at != std::string::npos; at = lowered.find(mark))
      lowered.replace(at, std::string(mark).size(), " ");
  std::vector<std::string> words;
  std::string current;
  for (std::size_t i = 0; i <= lowered.size(); ++i) {
    const char c = i < lowered.size() ? lowered[i] : ' ';
    const bool in_number = c == '.' && !current.empty() && std::isdigit(static_cast<unsigned char>(current.back())) &&
                           i + 1 < lowered.size() && std::isdigit(static_cast<unsigned char>(lowered[i + 1]));
    if (std::isalnum(static_cast<unsigned char>(c)) || in_number) {
      current += c;
    } else if (!current.empty()) {
      words.push_back(current);
      current.clear();
    }
  }
  return words;
}

bool has_digit(const std::string& word)
{
  return std::any_of(word.begin(), word.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

/// GiB-or-GB figure of a size unit word ("gb", "g", "gib", "mib", "tb"); nullopt if not a size unit.
std::optional<double> size_unit_in_gb(const std::string& unit)
{
  if (unit == "gb" || unit == "g" || unit == "gib")
    return 1.0;
  if (unit == "mib" || unit == "mb")
    return 1.0 / 1024.0; // MiB as nvidia-smi reports them: 81559 MiB = 79.6 GiB, written "80 GB"
  if (unit == "tb" || unit == "tib")
    return 1000.0;
  return std::nullopt;
}

/// Adds what one word states to the traits (words that state nothing are ignored).
void read_word(const std::string& word, AcceleratorTraits& traits)
{
  static const std::regex form(R"((sxm|pcie|oam)\d*)"); // SXM5 is SXM, PCIe5 is PCIe
  static const std::regex memory_type(R"((hbm\d?e?|gddr\d+x?))");
  static const std::regex size(R"((\d+(?:\.\d+)?)(gb|g|gib|mib|tb)?)");
  static const std::regex not_a_part(R"(\d+x|x(4|8|16)|\d+w|nvlink\d*|gen\d+|nvl\d+|.*\..*)"); // 8x, x16, 700W, NVL72
  if (word == "nvidia" || word == "amd" || word == "intel" || word == "google") {
    traits.vendor = word;
    return;
  }
  if (word == "habana") {
    traits.vendor = "intel";
    return;
  }
  if (word == "trillium") { // Google's name for TPU v6e
    traits.parts.insert("v6e");
    return;
  }
  std::smatch match;
  if (std::regex_match(word, match, form)) {
    traits.forms.insert(match[1].str());
    return;
  }
  if (word == "nvl") { // "NVL72" names a rack, not a form factor: not_a_part below
    traits.forms.insert("nvl");
    return;
  }
  if (std::regex_match(word, memory_type)) {
    traits.memory_type = word;
    return;
  }
  if (std::regex_match(word, match, size) && match[2].matched) {
    traits.memory_gb = std::stod(match[1].str()) * *size_unit_in_gb(match[2].str());
    return;
  }
  if (has_digit(word) && !std::regex_match(word, not_a_part))
    traits.parts.insert(word);
}

/// The traits of a catalog entry: everything its name, display name and aliases state, plus its
/// memory fields.
struct EntryTraits {
  AcceleratorTraits stated;
  std::vector<double> memory_gb; ///< sizes it may be written as: nominal from its names, GB and GiB of `memory`
};

EntryTraits entry_traits(const model::GpuType& gpu)
{
  EntryTraits entry;
  std::vector<std::string> texts = {gpu.name, gpu.display_name};
  texts.insert(texts.end(), gpu.aliases.begin(), gpu.aliases.end());
  for (const auto& text : texts) {
    const AcceleratorTraits t = accelerator_traits(text);
    entry.stated.parts.insert(t.parts.begin(), t.parts.end());
    entry.stated.forms.insert(t.forms.begin(), t.forms.end());
    if (t.memory_gb)
      entry.memory_gb.push_back(*t.memory_gb);
    if (entry.stated.memory_type.empty())
      entry.stated.memory_type = t.memory_type;
  }
  entry.stated.vendor = gpu.vendor;
  if (!gpu.memory_type.empty())
    entry.stated.memory_type = lower_blank_normalised(gpu.memory_type);
  entry.memory_gb.push_back(gpu.memory_bytes / 1e9);
  entry.memory_gb.push_back(gpu.memory_bytes / (1024.0 * 1024.0 * 1024.0));
  return entry;
}

/// How well an entry fits a description; nullopt when it contradicts a stated trait.
struct Fit {
  int matched = 0;          ///< stated traits the entry has
  int unstated_forms = 0;   ///< form factors of the entry the description does not state
  auto operator<=>(const Fit&) const = default;
};

std::optional<Fit> fit_of(const AcceleratorTraits& wanted, const EntryTraits& entry)
{
  Fit fit;
  if (!wanted.vendor.empty() && wanted.vendor != entry.stated.vendor)
    return std::nullopt;
  if (!wanted.forms.empty()) {
    int common = 0;
    for (const auto& f : wanted.forms)
      common += entry.stated.forms.contains(f) ? 1 : 0;
    if (common == 0 && !entry.stated.forms.empty())
      return std::nullopt;
    fit.matched += common;
  }
  for (const auto& f : entry.stated.forms)
    fit.unstated_forms -= wanted.forms.contains(f) ? 0 : 1; // negative: fewer is better under operator<
  if (wanted.memory_gb) {
    const bool close = std::any_of(entry.memory_gb.begin(), entry.memory_gb.end(), [&](double gb) {
      return std::abs(*wanted.memory_gb - gb) <= kMemoryTolerance * gb;
    });
    if (!close)
      return std::nullopt;
    ++fit.matched;
  }
  if (!wanted.memory_type.empty() && !entry.stated.memory_type.empty()) {
    if (wanted.memory_type != entry.stated.memory_type)
      return std::nullopt;
    ++fit.matched;
  }
  return fit;
}

/// Levenshtein distance, for ranking the closest part numbers of an unknown description.
std::size_t edit_distance(const std::string& a, const std::string& b)
{
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string listed(const std::vector<std::string>& names)
{
  std::string list;
  for (const auto& name : names)
    list += (list.empty() ? "" : ", ") + name;
  return list;
}

/// The catalog entries whose part numbers are closest to any word of the description.
std::string closest_entries(const std::map<std::string, model::GpuType>& catalog, const std::string& description,
                            const std::map<std::string, EntryTraits>& traits)
{
  std::vector<std::string> words;
  for (const auto& w : words_of(description))
    if (w.size() >= 2)
      words.push_back(w);
  std::vector<std::pair<std::size_t, std::string>> ranked;
  for (const auto& [name, gpu] : catalog) {
    std::size_t best = name.size() + 64;
    for (const auto& part : traits.at(name).stated.parts)
      for (const auto& w : words)
        best = std::min(best, edit_distance(w, part));
    ranked.emplace_back(best, name);
  }
  std::sort(ranked.begin(), ranked.end());
  std::vector<std::string> names;
  for (std::size_t i = 0; i < ranked.size() && i < kClosestListed; ++i)
    names.push_back(ranked[i].second);
  return listed(names);
}

} // namespace

std::string lower_blank_normalised(const std::string& text)
{
  std::string out;
  bool blank = false;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      blank = !out.empty();
      continue;
    }
    if (blank)
      out += ' ';
    blank = false;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

AcceleratorTraits accelerator_traits(const std::string& description)
{
  AcceleratorTraits traits;
  const std::vector<std::string> words = words_of(description);
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& word = words[i];
    const bool number = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
      return std::isdigit(static_cast<unsigned char>(c)) || c == '.';
    });
    const bool next = i + 1 < words.size();
    if (number && next && size_unit_in_gb(words[i + 1])) { // "80 GB", "24 GiB"
      traits.memory_gb = std::stod(word) * *size_unit_in_gb(words[i + 1]);
      ++i;
      continue;
    }
    if (!has_digit(word) && next && (word == "gaudi" || word == "mi") && has_digit(words[i + 1])) { // "Gaudi 3", "MI 300X"
      traits.parts.insert(word + words[i + 1]);
      ++i;
      continue;
    }
    if (word == "v5" && next && (words[i + 1] == "lite" || words[i + 1] == "litepod")) { // TPU v5 lite = v5e
      traits.parts.insert("v5e");
      ++i;
      continue;
    }
    read_word(word, traits);
  }
  return traits;
}

AcceleratorIdentification identify_accelerator(const std::map<std::string, model::GpuType>& catalog,
                                               const std::string& model_name, const std::string& memory_capacity)
{
  const std::string exact = lower_blank_normalised(model_name);
  for (const auto& [name, gpu] : catalog) {
    if (lower_blank_normalised(name) == exact)
      return {name, "", ""};
    for (const auto& alias : gpu.aliases)
      if (lower_blank_normalised(alias) == exact)
        return {name, "", ""};
  }
  AcceleratorTraits wanted = accelerator_traits(model_name);
  const bool memory_from_field = !wanted.memory_gb && !memory_capacity.empty();
  if (memory_from_field)
    wanted.memory_gb = accelerator_traits(memory_capacity).memory_gb;

  std::map<std::string, EntryTraits> traits;
  for (const auto& [name, gpu] : catalog)
    traits.emplace(name, entry_traits(gpu));
  std::vector<std::string> same_part;
  for (const auto& [name, entry] : traits) {
    const EntryTraits& stated = entry; // a structured binding cannot be captured before C++20 in clang 14
    if (std::any_of(wanted.parts.begin(), wanted.parts.end(),
                    [&stated](const std::string& p) { return stated.stated.parts.contains(p); }))
      same_part.push_back(name);
  }
  if (same_part.empty())
    return {"", "unknown accelerator '" + model_name + "': " +
                    (wanted.parts.empty() ? std::string("it names no part number")
                                          : "no catalog entry has part number '" + *wanted.parts.begin() + "'") +
                    " (closest catalog entries: " + closest_entries(catalog, model_name, traits) +
                    "; add it with --catalog FILE)", ""};

  const auto best_fits = [&](const AcceleratorTraits& stated) {
    std::optional<Fit> best;
    std::vector<std::string> winners;
    for (const auto& name : same_part) {
      const auto fit = fit_of(stated, traits.at(name));
      if (!fit)
        continue;
      if (!best || *best < *fit) {
        best = fit;
        winners = {name};
      } else if (*fit == *best) {
        winners.push_back(name);
      }
    }
    return winners;
  };
  std::vector<std::string> winners = best_fits(wanted);
  if (winners.size() == 1)
    return {winners.front(), "", ""};
  if (winners.empty() && memory_from_field && wanted.memory_gb) {
    AcceleratorTraits without_memory = wanted;
    without_memory.memory_gb.reset();
    if (const auto named = best_fits(without_memory); named.size() == 1) {
      const model::GpuType& gpu = catalog.at(named.front());
      return {named.front(), "",
              "accelerator_memory_capacity '" + memory_capacity + "' fits no catalog entry that '" + model_name +
                  "' may denote; '" + model_name + "' names " + named.front() +
                  " alone, whose catalog memory (" + std::to_string(static_cast<int>(gpu.memory_bytes / 1e9 + 0.5)) +
                  " GB) is used: check the description's memory field"};
    }
  }
  if (winners.empty())
    return {"", "unknown accelerator '" + model_name + "': no catalog entry of its part number has the form factor, "
                    "memory size and memory type it states (catalog entries of that part: " + listed(same_part) +
                    "; add it with --catalog FILE)", ""};
  return {"", "ambiguous accelerator '" + model_name + "': " + std::to_string(winners.size()) +
                  " catalog entries match it equally (" + listed(winners) +
                  "); state the form factor (SXM, PCIe, NVL) or the memory size", ""};
}

} // namespace gpuscale::config
