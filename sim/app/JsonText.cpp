#include "sim/app/JsonText.hpp"

#include <fmt/format.h>

namespace gpuscale::app {

std::string json_string(const std::string& text)
{
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += std::string("\\") + c;
    else if (static_cast<unsigned char>(c) < 0x20)
      out += fmt::format("\\u{:04x}", static_cast<int>(static_cast<unsigned char>(c)));
    else
      out += c;
  }
  return out + "\"";
}

} // namespace gpuscale::app
