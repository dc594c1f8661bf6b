#include "sim/config/YamlFile.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace gpuscale::config {
namespace {

/// yaml-cpp recurses once per nesting level; refuse absurd nesting before it can overflow the stack.
constexpr int kMaxNestingDepth = 64;

bool too_deep(const std::string& text)
{
  int depth = 0;
  for (char c : text) {
    if (c == '[' || c == '{')
      ++depth;
    else if ((c == ']' || c == '}') && depth > 0)
      --depth;
    if (depth > kMaxNestingDepth)
      return true;
  }
  return false;
}

bool is_valid_utf8(const std::string& text, std::size_t& bad_offset)
{
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    int continuation = 0;
    if (c < 0x80)
      continuation = 0;
    else if ((c & 0xE0) == 0xC0 && c >= 0xC2)
      continuation = 1;
    else if ((c & 0xF0) == 0xE0)
      continuation = 2;
    else if ((c & 0xF8) == 0xF0 && c <= 0xF4)
      continuation = 3;
    else {
      bad_offset = i;
      return false;
    }
    if (i + continuation >= text.size()) { // truncated sequence at end of text
      bad_offset = i;
      return false;
    }
    for (int k = 1; k <= continuation; ++k)
      if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) {
        bad_offset = i;
        return false;
      }
    i += continuation + 1;
  }
  return true;
}

void locate_offset(const std::string& text, std::size_t offset, int& line, int& column)
{
  line = 1;
  column = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
}

} // namespace

std::optional<std::string> read_text_file(const std::string& path, Diagnostics& diagnostics)
{
  std::error_code error;
  const auto size = std::filesystem::file_size(path, error);
  if (error) {
    diagnostics.add({path, 0, 0, "", "cannot read file: " + error.message()});
    return std::nullopt;
  }
  if (size > kMaxYamlFileBytes) {
    diagnostics.add({path, 0, 0, "",
                     "file is " + std::to_string(size) + " bytes; inputs larger than " +
                         std::to_string(kMaxYamlFileBytes) + " bytes are refused"});
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    diagnostics.add({path, 0, 0, "", "cannot open file"});
    return std::nullopt;
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::optional<YAML::Node> load_yaml_text(const std::string& text, const std::string& display_name,
                                         Diagnostics& diagnostics)
{
  std::size_t bad_offset = 0;
  if (!is_valid_utf8(text, bad_offset)) {
    int line = 0;
    int column = 0;
    locate_offset(text, bad_offset, line, column);
    diagnostics.add({display_name, line, column, "", "invalid UTF-8 byte sequence"});
    return std::nullopt;
  }
  if (too_deep(text)) {
    diagnostics.add({display_name, 0, 0, "",
                     "nesting deeper than " + std::to_string(kMaxNestingDepth) + " levels is refused"});
    return std::nullopt;
  }
  try {
    return YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    diagnostics.add({display_name, e.mark.line + 1, e.mark.column + 1, "", "YAML syntax error: " + e.msg});
  } catch (const YAML::Exception& e) {
    diagnostics.add({display_name, e.mark.line + 1, e.mark.column + 1, "", "YAML error: " + e.msg});
  }
  return std::nullopt;
}

std::optional<YAML::Node> load_yaml_file(const std::string& path, Diagnostics& diagnostics)
{
  auto text = read_text_file(path, diagnostics);
  if (!text)
    return std::nullopt;
  return load_yaml_text(*text, path, diagnostics);
}

} // namespace gpuscale::config
