#include "sim/config/PrintableText.hpp"

namespace gpuscale::config {

std::string printable(std::string_view text)
{
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (c == '\r')
      out += "\\r";
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

} // namespace gpuscale::config
