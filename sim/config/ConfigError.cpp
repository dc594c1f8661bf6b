#include "sim/config/ConfigError.hpp"

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

/// Escapes control characters, so a quoted value cannot move the cursor or fake another line.
std::string printable(const std::string& text)
{
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (byte < 0x20 || byte == 0x7f) {
      static const char* const digits = "0123456789abcdef";
      out += "\\x";
      out += digits[byte >> 4];
      out += digits[byte & 0xf];
    } else
      out += c;
  }
  return out;
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
    : std::runtime_error(join_lines(diagnostics)), diagnostics_(std::move(diagnostics))
{
}

void Diagnostics::throw_if_any() const
{
  if (!diagnostics_.empty())
    throw ConfigError(diagnostics_);
}

} // namespace gpuscale::config
