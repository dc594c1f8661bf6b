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

} // namespace

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
