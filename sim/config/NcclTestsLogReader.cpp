#include "sim/config/NcclTestsLogReader.hpp"

#include "sim/config/ConfigError.hpp"
#include "sim/config/YamlFile.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <map>
#include <regex>
#include <set>

namespace gpuscale::config {
namespace {

using model::NcclTestsCollective;

/// A word of a line and its 1-based column.
struct Word {
  std::string_view text;
  int column = 0;
};

std::vector<Word> words_of(std::string_view line)
{
  std::vector<Word> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
      ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t')
      ++i;
    if (i > start)
      words.push_back({line.substr(start, i - start), static_cast<int>(start) + 1});
  }
  return words;
}

std::optional<std::int64_t> integer_of(std::string_view text)
{
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size())
    return std::nullopt;
  return value;
}

/// A finite, non-negative decimal number.
std::optional<double> decimal_of(std::string_view text)
{
  const std::string copy(text);
  char* end = nullptr;
  const double value = std::strtod(copy.c_str(), &end);
  if (copy.empty() || end != copy.c_str() + copy.size() || !std::isfinite(value) || value < 0 ||
      copy.find_first_of("xXpPnN") != std::string::npos) // no hex floats, inf or nan
    return std::nullopt;
  return value;
}

bool all_digits(std::string_view text)
{
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// nccl-tests' type names (src/common.cu, test_typenames) and operator names (test_opnames).
constexpr std::array kTypes{"int8", "uint8", "int32", "uint32", "int64", "uint64", "half", "float", "double",
                            "bfloat16", "f8e4m3", "f8e5m2"};
constexpr std::array kRedops{"sum", "prod", "max", "min", "avg", "mulsum", "premulsum", "none"};
/// The nccl-tests programs this reader does not read: named in a log, they are refused, not guessed.
constexpr std::array kOtherPrograms{"reduce", "sendrecv", "gather", "scatter", "hypercube"};

template <std::size_t N>
bool is_one_of(std::string_view text, const std::array<const char*, N>& names)
{
  return std::any_of(names.begin(), names.end(), [&](const char* name) { return text == name; });
}

template <std::size_t N>
std::string joined(const std::array<const char*, N>& names)
{
  std::string text;
  for (const char* name : names)
    text += (text.empty() ? "" : ", ") + std::string(name);
  return text;
}

/// The collective a word names as a program: ".../all_reduce_perf" or "all_reduce_perf_mpi".
/// "" for none, the bare name for a program this reader does not read.
std::string program_named(std::string_view word)
{
  if (const auto slash = word.rfind('/'); slash != std::string_view::npos)
    word.remove_prefix(slash + 1);
  for (std::string_view suffix : {"_perf_mpi", "_perf"})
    if (word.size() > suffix.size() && word.substr(word.size() - suffix.size()) == suffix) {
      const std::string_view name = word.substr(0, word.size() - suffix.size());
      if (model::parse_nccl_tests_collective(name) || is_one_of(name, kOtherPrograms))
        return std::string(name);
    }
  return "";
}

struct Device {
  int rank = 0;
  std::string host;
  std::string name;
  int line = 0;
};

class LogParser {
public:
  LogParser(std::string file, std::optional<NcclTestsCollective> op) : op_given_(op) { log_.file = std::move(file); }

  void line(std::string_view text, int number)
  {
    if (!text.empty() && text.back() == '\r')
      text.remove_suffix(1);
    const std::vector<Word> words = words_of(text);
    if (words.empty())
      return;
    for (const Word& word : words)
      note_program(word, number);
    if (words.front().text.front() == '#') {
      comment(text, words, number);
      return;
    }
    if (in_table_ && all_digits(words.front().text))
      data_row(words, number);
  }

  NcclTestsLog finish()
  {
    if (!seen_header_)
      error(0, 0, "", "no nccl-tests table: the column header line ('#       size         count      type   redop ...') is missing");
    else if (log_.rows.empty())
      error(0, 0, "", "the table has no data rows");
    finish_devices();
    if (!log_.rows.empty() && !program_refused_)
      decide_op();
    diagnostics_.throw_if_any();
    return std::move(log_);
  }

private:
  void error(int line, int column, std::string path, std::string message)
  {
    diagnostics_.add({log_.file, line, column, std::move(path), std::move(message)});
  }

  void note_program(const Word& word, int number)
  {
    const std::string name = program_named(word.text);
    if (name.empty())
      return;
    if (!model::parse_nccl_tests_collective(name)) {
      program_refused_ = true;
      error(number, word.column, "", name + "_perf logs are not read (known: all_reduce_perf, reduce_scatter_perf, "
                                     "all_gather_perf, broadcast_perf, alltoall_perf)");
      return;
    }
    if (!program_.empty() && program_ != name) {
      error(number, word.column, "",
            "the log names two programs, " + program_ + "_perf (line " + std::to_string(program_line_) + ") and " +
                name + "_perf: one nccl-tests run per file");
      return;
    }
    if (program_.empty()) {
      program_ = name;
      program_line_ = number;
    }
  }

  void comment(std::string_view text, const std::vector<Word>& words, int number)
  {
    // std::regex recurses per character: a header line of megabytes (a corrupt file) would exhaust
    // the stack. Real nccl-tests header lines are under 200 characters.
    constexpr std::size_t kMaxHeaderLineBytes = 4096;
    const std::string_view first = words.front().text == "#" && words.size() > 1 ? words[1].text : words.front().text.substr(1);
    if ((first == "nThread" || first == "Rank") && text.size() > kMaxHeaderLineBytes)
      error(number, 1, "", "a header line of " + std::to_string(text.size()) + " characters (nccl-tests prints under 200)");
    else if (first == "nThread")
      setup_line(text, number);
    else if (first == "Rank")
      rank_line(text, number);
    else if (first == "size" && text.find("busbw") != std::string_view::npos) {
      if (seen_header_)
        error(number, 1, "", "a second table starts here (the first at line " + std::to_string(header_line_) +
                                 "): one nccl-tests run per file");
      seen_header_ = in_table_ = true;
      header_line_ = number;
      in_place_columns_ = std::count(text.begin(), text.end(), '#') >= 3; // "# ... #wrong ... #wrong"
    } else if (text.find("Out of bounds values") != std::string_view::npos) {
      in_table_ = false;
      summary_value(text, number, "/out_of_bounds_values", true);
    } else if (text.find("Avg bus bandwidth") != std::string_view::npos) {
      in_table_ = false;
      summary_value(text, number, "/avg_bus_bandwidth", false);
    }
  }

  void setup_line(std::string_view text, int number)
  {
    static const std::regex pattern(
        R"(^#\s*nThread\s+(\d+)\s+nGpus\s+(\d+)\s+minBytes\s+(\d+)\s+maxBytes\s+(\d+)\s+step:\s+(\d+)\((factor|bytes)\)\s+warmup iters:\s+(\d+)\s+iters:\s+(\d+)(?:\s+agg iters:\s+(\d+))?\s+validation:\s+(\d+)(?:\s+graph:\s+(\d+))?\s*$)");
    std::match_results<std::string_view::const_iterator> match;
    if (!std::regex_match(text.begin(), text.end(), match, pattern)) {
      error(number, 1, "/setup",
            "the nThread line does not read as nccl-tests prints it ('# nThread T nGpus G minBytes B maxBytes E "
            "step: F(factor) warmup iters: W iters: I [agg iters: A] validation: V [graph: G]')");
      return;
    }
    const auto number_at = [&](int group) { return integer_of(std::string_view(&*match[group].first, static_cast<std::size_t>(match[group].length()))); };
    const auto small = [&](int group) { return static_cast<int>(std::min<std::int64_t>(number_at(group).value_or(0), 1 << 30)); };
    NcclTestsSetup setup;
    setup.threads = small(1);
    setup.gpus_per_thread = small(2);
    setup.min_bytes = number_at(3).value_or(0);
    setup.max_bytes = number_at(4).value_or(0);
    if (match[6] == "factor")
      setup.step_factor = small(5);
    else
      setup.step_bytes = number_at(5).value_or(0);
    setup.warmup_iters = small(7);
    setup.iters = small(8);
    if (match[9].matched)
      setup.agg_iters = small(9);
    setup.validation = small(10) != 0;
    if (match[11].matched)
      setup.graph = small(11);
    log_.setup = setup;
  }

  void rank_line(std::string_view text, int number)
  {
    static const std::regex pattern(
        R"(^#\s+Rank\s+(\d+)\s+(?:Group\s+\d+\s+)?Pid\s+\d+\s+on\s+(\S+)\s+device\s+\d+\s+\[0x[0-9a-fA-F]+\]\s+(.*\S)\s*$)");
    std::match_results<std::string_view::const_iterator> match;
    // A line in error still counts as its rank, so the lines after it are checked as they are.
    const Device unread{static_cast<int>(devices_.size()), "", "", number};
    if (!std::regex_match(text.begin(), text.end(), match, pattern)) {
      error(number, 1, "/devices/" + std::to_string(devices_.size()),
            "a device line reads '#  Rank R Group G Pid P on HOST device D [0xBUS] NAME'");
      devices_.push_back(unread);
      device_lines_unread_ = true;
      return;
    }
    const auto rank = integer_of(std::string_view(&*match[1].first, static_cast<std::size_t>(match[1].length())));
    if (!rank || *rank != static_cast<std::int64_t>(devices_.size())) {
      error(number, static_cast<int>(match.position(1)) + 1, "/devices/" + std::to_string(devices_.size()),
            "expected rank " + std::to_string(devices_.size()) + " (ranks are listed 0, 1, 2, ...), got " +
                match[1].str());
      devices_.push_back(unread);
      device_lines_unread_ = true;
      return;
    }
    devices_.push_back({static_cast<int>(*rank), match[2].str(), match[3].str(), number});
  }

  void summary_value(std::string_view text, int number, const std::string& path, bool integer)
  {
    const auto colon = text.find(':');
    const std::vector<Word> words = colon == std::string_view::npos ? std::vector<Word>{} : words_of(text.substr(colon + 1));
    const int column = words.empty() ? static_cast<int>(text.size()) : static_cast<int>(colon + 1) + words.front().column;
    if (integer) {
      const auto value = words.empty() ? std::nullopt : integer_of(words.front().text);
      if (!value || *value < 0)
        error(number, column, path, "expected a count of values, got '" + std::string(words.empty() ? "" : words.front().text) + "'");
      else
        log_.out_of_bounds_values = *value;
    } else {
      const auto value = words.empty() ? std::nullopt : decimal_of(words.front().text);
      if (!value)
        error(number, column, path, "expected a bandwidth in GB/s, got '" + std::string(words.empty() ? "" : words.front().text) + "'");
      else
        log_.avg_busbw_Bps = *value * 1e9;
    }
  }

  void data_row(const std::vector<Word>& words, int number)
  {
    const std::size_t index = log_.rows.size();
    const std::string row_path = "/rows/" + std::to_string(index);
    const std::size_t expected = in_place_columns_ ? 13 : 9;
    if (words.size() != expected) {
      const int column = words.size() > expected ? words[expected].column : words.back().column + static_cast<int>(words.back().text.size());
      error(number, column, row_path,
            "expected " + std::to_string(expected) + " columns (size count type redop root, then time algbw busbw " +
                "#wrong" + (in_place_columns_ ? " out-of-place and in-place" : "") + "), got " +
                std::to_string(words.size()));
      return;
    }
    bool ok = true;
    const auto bad = [&](std::size_t at, const std::string& column, const std::string& expectation) {
      error(number, words[at].column, row_path + "/" + column,
            "expected " + expectation + ", got '" + std::string(words[at].text) + "'");
      ok = false;
    };
    NcclTestsLogRow row;
    row.line = number;
    const auto size = integer_of(words[0].text);
    if (!size || *size < 0)
      bad(0, "size", "a size in bytes (a non-negative integer)");
    const auto count = integer_of(words[1].text);
    if (!count || *count < 0)
      bad(1, "count", "a count of elements (a non-negative integer)");
    if (!is_one_of(words[2].text, kTypes))
      bad(2, "type", "a data type (" + joined(kTypes) + ")");
    if (!is_one_of(words[3].text, kRedops))
      bad(3, "redop", "a reduction operator (" + joined(kRedops) + ")");
    const auto root = integer_of(words[4].text);
    if (!root || *root < -1 || *root > (1 << 24))
      bad(4, "root", "a root rank (-1 or a rank)");
    const auto measurement = [&](std::size_t at, const std::string& prefix) {
      struct Values {
        std::optional<double> time_us, algbw, busbw;
        std::optional<std::int64_t> wrong;
      } values;
      values.time_us = decimal_of(words[at].text);
      if (!values.time_us)
        bad(at, prefix + "time", "a time in microseconds");
      values.algbw = decimal_of(words[at + 1].text);
      if (!values.algbw)
        bad(at + 1, prefix + "algbw", "an algorithm bandwidth in GB/s");
      values.busbw = decimal_of(words[at + 2].text);
      if (!values.busbw)
        bad(at + 2, prefix + "busbw", "a bus bandwidth in GB/s");
      if (words[at + 3].text != "N/A") {
        values.wrong = integer_of(words[at + 3].text);
        if (!values.wrong || *values.wrong < 0)
          bad(at + 3, prefix + "wrong", "a count of wrong elements or N/A");
      }
      return values;
    };
    const auto out_of_place = measurement(5, "");
    const auto in_place = in_place_columns_ ? measurement(9, "in_place_") : decltype(out_of_place){};
    if (ok && !log_.rows.empty()) {
      // One curve per file: a log of every type or operator (-d all, -o all) has several per size.
      if (words[2].text != log_.data_type)
        bad(2, "type", "'" + log_.data_type + "' as in the rows above (one data type per file)");
      if (words[3].text != log_.redop)
        bad(3, "redop", "'" + log_.redop + "' as in the rows above (one reduction operator per file)");
      if (*root != log_.root)
        bad(4, "root", std::to_string(log_.root) + " as in the rows above (one root per file)");
    }
    if (!ok)
      return;
    if (log_.rows.empty()) {
      log_.data_type = std::string(words[2].text);
      log_.redop = std::string(words[3].text);
      log_.root = static_cast<int>(*root);
      first_row_ = words;
      first_row_line_ = number;
    }
    row.size_bytes = *size;
    row.count = *count;
    row.time_s = *out_of_place.time_us * 1e-6;
    row.algbw_Bps = *out_of_place.algbw * 1e9;
    row.busbw_Bps = *out_of_place.busbw * 1e9;
    row.wrong = out_of_place.wrong;
    if (in_place_columns_)
      row.in_place_time_s = *in_place.time_us * 1e-6;
    log_.rows.push_back(row);
  }

  void finish_devices()
  {
    if (devices_.empty()) {
      error(0, 0, "/devices", "no '#  Rank ... on HOST device ...' lines under '# Using devices': the number of ranks "
                              "and of hosts cannot be known");
      return;
    }
    if (device_lines_unread_)
      return;
    std::map<std::string, int> per_host;
    for (const Device& device : devices_)
      ++per_host[device.host];
    log_.ranks = static_cast<int>(devices_.size());
    log_.hosts = static_cast<int>(per_host.size());
    log_.device = devices_.front().name;
    log_.devices_line = devices_.front().line;
    log_.devices_differ = std::any_of(devices_.begin(), devices_.end(), [&](const Device& d) { return d.name != log_.device; });
    const int first = per_host.at(devices_.front().host);
    for (const auto& entry : per_host) { // not a structured binding: clang 14 cannot capture one
      const std::string& host = entry.first;
      const int ranks = entry.second;
      if (ranks != first) {
        const auto at = std::find_if(devices_.begin(), devices_.end(), [&](const Device& d) { return d.host == host; });
        error(at->line, 1, "/devices/" + std::to_string(at->rank),
              "host " + host + " runs " + std::to_string(ranks) + " ranks and " + devices_.front().host + " " +
                  std::to_string(first) + ": the ranks per host must be the same on every host");
        return;
      }
    }
    log_.ranks_per_host = first;
  }

  void decide_op()
  {
    std::optional<NcclTestsCollective> op;
    if (!program_.empty()) {
      op = model::parse_nccl_tests_collective(program_);
      log_.op_source = "program " + program_ + "_perf named at line " + std::to_string(program_line_);
      if (op_given_ && *op_given_ != *op) {
        error(program_line_, 1, "",
              "the log is of " + program_ + "_perf, not of " + model::to_string(*op_given_) + " as given");
        return;
      }
    } else if (op_given_) {
      op = op_given_;
      log_.op_source = "given";
    } else if (log_.root >= 0 && log_.redop == "none") {
      op = NcclTestsCollective::Broadcast;
      log_.op_source = "root column " + std::to_string(log_.root) + " with redop none";
    } else {
      const bool reduction = log_.redop != "none";
      error(0, 0, "",
            std::string("the log names no program (all_reduce_perf, ...) and its columns (redop ") + log_.redop +
                ", root " + std::to_string(log_.root) + ") fit " +
                (reduction ? "all_reduce and reduce_scatter" : "all_gather and alltoall") + ": name the collective");
      return;
    }
    log_.op = *op;
    // The columns must be those the op prints.
    const bool reduces = *op == NcclTestsCollective::AllReduce || *op == NcclTestsCollective::ReduceScatter;
    if (reduces == (log_.redop == "none"))
      error(first_row_line_, first_row_[3].column, "/rows/0/redop",
            model::to_string(*op) + " prints " + (reduces ? "a reduction operator" : "none") + ", got '" + log_.redop + "'");
    const bool rooted = *op == NcclTestsCollective::Broadcast;
    if (rooted == (log_.root < 0))
      error(first_row_line_, first_row_[4].column, "/rows/0/root",
            model::to_string(*op) + " prints " + (rooted ? "a root rank" : "root -1") + ", got " + std::to_string(log_.root));
  }

  NcclTestsLog log_;
  Diagnostics diagnostics_;
  std::optional<NcclTestsCollective> op_given_;
  std::string program_;
  int program_line_ = 0;
  bool program_refused_ = false;
  bool device_lines_unread_ = false;
  bool seen_header_ = false;
  bool in_table_ = false;
  bool in_place_columns_ = true;
  int header_line_ = 0;
  std::vector<Device> devices_;
  std::vector<Word> first_row_;
  int first_row_line_ = 0;
};

} // namespace

NcclTestsLog parse_nccl_tests_log(const std::string& text, const std::string& file, std::optional<NcclTestsCollective> op)
{
  LogParser parser(file, op);
  int number = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    if (end == text.size() && start == end)
      break;
    parser.line(std::string_view(text).substr(start, end - start), ++number);
    start = end + 1;
  }
  return parser.finish();
}

NcclTestsLog read_nccl_tests_log(const std::string& path, std::optional<NcclTestsCollective> op)
{
  Diagnostics diagnostics;
  const auto text = read_text_file(path, diagnostics);
  diagnostics.throw_if_any();
  return parse_nccl_tests_log(text.value_or(""), path, op);
}

} // namespace gpuscale::config
