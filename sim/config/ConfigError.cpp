#include "sim/config/ConfigError.hpp"

#include "sim/config/PrintableText.hpp"

namespace gpuscale::config {
namespace {

std::string join_lines(const std::vector<Diagnostic>& diagnostics)
{
  std::string text;
  for (const auto& d : diagnostics) {
    if (!text.empty())
      text += '\n';
    text += d.format();
  }
  return text;
}

/// Moves `at` back to the start of a UTF-8 sequence, so a cut never splits a character.
std::size_t character_boundary(const std::string& text, std::size_t at)
{
  while (at > 0 && at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80)
    --at;
  return at;
}

std::string shortened(const std::string& text)
{
  if (text.size() <= kMaxMessageBytes)
    return text;
  const std::size_t keep = kMaxMessageBytes / 2 - 32;
  const std::size_t head = character_boundary(text, keep);
  const std::size_t tail = character_boundary(text, text.size() - keep);
  return text.substr(0, head) + " [... " + std::to_string(tail - head) + " bytes omitted ...] " + text.substr(tail);
}

/// Every part of a diagnostic can quote an input file (a value, a key, a file or folder name): all
/// of them made printable, so one diagnostic is one line whoever built it.
std::vector<Diagnostic> printable_diagnostics(std::vector<Diagnostic> diagnostics)
{
  for (auto& d : diagnostics) {
    d.file = printable(d.file);
    d.path = printable(d.path);
    d.message = shortened(printable(d.message));
  }
  return diagnostics;
}

} // namespace

void Diagnostics::add(Diagnostic diagnostic)
{
  diagnostic.message = shortened(printable(diagnostic.message));
  diagnostics_.push_back(std::move(diagnostic));
}

std::string Diagnostic::format() const
{
  std::string text = file;
  if (line > 0)
    text += ":" + std::to_string(line) + ":" + std::to_string(column);
  text += ": error: ";
  if (!path.empty())
    text += path + ": ";
  return text + message;
}

ConfigError::ConfigError(std::vector<Diagnostic> diagnostics)
    : ConfigError(printable_diagnostics(std::move(diagnostics)), 0)
{
}

ConfigError::ConfigError(std::vector<Diagnostic> printable, int)
    : std::runtime_error(join_lines(printable)), diagnostics_(std::move(printable))
{
}

void Diagnostics::throw_if_any() const
{
  if (!diagnostics_.empty())
    throw ConfigError(diagnostics_);
}

} // namespace gpuscale::config
