#include "sim/config/YamlFile.hpp"

#include "sim/config/JsonSyntax.hpp"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace gpuscale::config {
namespace {

/// RFC 3629 UTF-8: no overlong forms, no surrogates, nothing above U+10FFFF.
bool is_valid_utf8(const std::string& text, std::size_t& bad_offset)
{
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    int continuation = 0;
    unsigned char second_min = 0x80; // bounds of the second byte, narrower after E0, ED, F0, F4
    unsigned char second_max = 0xBF;
    if (c < 0x80)
      continuation = 0;
    else if (c >= 0xC2 && c <= 0xDF)
      continuation = 1;
    else if (c >= 0xE0 && c <= 0xEF) {
      continuation = 2;
      second_min = c == 0xE0 ? 0xA0 : 0x80;
      second_max = c == 0xED ? 0x9F : 0xBF;
    } else if (c >= 0xF0 && c <= 0xF4) {
      continuation = 3;
      second_min = c == 0xF0 ? 0x90 : 0x80;
      second_max = c == 0xF4 ? 0x8F : 0xBF;
    } else {
      bad_offset = i;
      return false;
    }
    if (i + continuation >= text.size()) { // truncated sequence at end of text
      bad_offset = i;
      return false;
    }
    for (int k = 1; k <= continuation; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      const bool ok = k == 1 ? next >= second_min && next <= second_max : (next & 0xC0) == 0x80;
      if (!ok) {
        bad_offset = i;
        return false;
      }
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

/// yaml-cpp's message for a tab in the indentation ("illegal map value") does not say so; this does.
std::string tab_hint(const std::string& text, int zero_based_line)
{
  std::size_t start = 0;
  for (int line = 0; line < zero_based_line && start != std::string::npos; ++line) {
    start = text.find('\n', start);
    if (start != std::string::npos)
      ++start;
  }
  if (start == std::string::npos)
    return "";
  const std::size_t indent_end = text.find_first_not_of(" \t", start);
  const std::size_t end = indent_end == std::string::npos ? text.size() : indent_end;
  return text.find('\t', start) < end ? " (a tab in the indentation: YAML indents with spaces only)" : "";
}

} // namespace

std::optional<std::string> read_text_file(const std::string& path, Diagnostics& diagnostics)
{
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (error) {
    diagnostics.add({path, 0, 0, "", "cannot read file: " + error.message()});
    return std::nullopt;
  }
  if (std::filesystem::is_directory(status) || !std::filesystem::is_regular_file(status)) {
    // Reading a FIFO or a terminal would wait for input that may never come.
    diagnostics.add({path, 0, 0, "",
                     std::filesystem::is_directory(status) ? "cannot read file: it is a directory"
                                                           : "cannot read file: not a regular file (a device, pipe or socket)"});
    return std::nullopt;
  }
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

namespace {

/// Records where the document it is handed starts; ignores the rest.
class DocumentMark final : public YAML::EventHandler {
public:
  std::optional<YAML::Mark> first;
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { note(mark); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { note(mark); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t, const std::string&) override { note(mark); }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override
  {
    note(mark);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override
  {
    note(mark);
  }
  void OnMapEnd() override {}

private:
  void note(const YAML::Mark& mark)
  {
    if (!first || first->pos < 0)
      first = mark;
  }
};

/// Where a second document of `text` starts, if it has one: at most two parser calls.
std::optional<YAML::Mark> second_document_mark(const std::string& text)
{
  std::istringstream stream(text);
  YAML::Parser parser(stream);
  DocumentMark first_document;
  if (!parser.HandleNextDocument(first_document))
    return std::nullopt;
  DocumentMark second_document;
  if (!parser.HandleNextDocument(second_document) || !second_document.first)
    return std::nullopt;
  return second_document.first;
}

} // namespace

std::optional<YAML::Node> load_yaml_text(const std::string& text, const std::string& display_name,
                                         Diagnostics& diagnostics)
{
  std::size_t bad_offset = 0;
  if (!is_valid_utf8(text, bad_offset)) {
    int line = 0;
    int column = 0;
    locate_offset(text, bad_offset, line, column);
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02x", static_cast<unsigned char>(text[bad_offset]));
    diagnostics.add({display_name, line, column, "",
                     std::string("invalid UTF-8 byte sequence starting with byte ") + byte +
                         " (inputs must be UTF-8 text)"});
    return std::nullopt;
  }
  try {
    // One document per file: yaml-cpp's Load would silently drop whatever follows a '---' or '...'.
    // The documents are counted with a bounded number of parser calls (yaml-cpp 0.7's LoadAll can
    // loop forever on some malformed inputs, as fuzzing found).
    if (const auto second = second_document_mark(text)) {
      const bool located = second->line >= 0 && second->pos >= 0;
      diagnostics.add({display_name, located ? second->line + 1 : 0, located ? second->column + 1 : 0, "",
                       "a second YAML document (after '---' or '...'): an input file holds exactly one"});
      return std::nullopt;
    }
    return YAML::Load(text);
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's own guard: it stops before its recursion can overflow the stack.
    diagnostics.add({display_name, e.mark.line + 1, e.mark.column + 1, "",
                     "YAML nesting too deep (" + std::to_string(e.depth()) + " levels of lists or mappings)"});
  } catch (const YAML::ParserException& e) {
    diagnostics.add({display_name, e.mark.line + 1, e.mark.column + 1, "",
                     "YAML syntax error: " + e.msg + tab_hint(text, e.mark.line)});
  } catch (const YAML::Exception& e) {
    diagnostics.add({display_name, e.mark.line + 1, e.mark.column + 1, "", "YAML error: " + e.msg});
  }
  return std::nullopt;
}

std::optional<std::string> referenced_file_problem(const std::string& path)
{
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (!std::filesystem::exists(status))
    return "does not exist";
  if (std::filesystem::is_directory(status))
    return "is a directory";
  if (!std::filesystem::is_regular_file(status))
    return "is not a regular file (a device, pipe or socket)";
  if (std::filesystem::file_size(path, error) == 0 && !error)
    return "is empty";
  return std::nullopt;
}

std::optional<YAML::Node> load_json_text(const std::string& text, const std::string& display_name,
                                         Diagnostics& diagnostics)
{
  if (!check_json_syntax(text, display_name, diagnostics))
    return std::nullopt;
  return load_yaml_text(text, display_name, diagnostics);
}

std::optional<YAML::Node> load_json_file(const std::string& path, Diagnostics& diagnostics)
{
  auto text = read_text_file(path, diagnostics);
  if (!text)
    return std::nullopt;
  return load_json_text(*text, path, diagnostics);
}

std::optional<YAML::Node> load_yaml_file(const std::string& path, Diagnostics& diagnostics)
{
  auto text = read_text_file(path, diagnostics);
  if (!text)
    return std::nullopt;
  return load_yaml_text(*text, path, diagnostics);
}

} // namespace gpuscale::config
