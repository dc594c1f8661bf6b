#include "sim/config/JsonSyntax.hpp"

#include <set>

namespace gpuscale::config {
namespace {

constexpr int kMaxDepth = 500; // as yaml-cpp's guard for YAML

class JsonChecker {
public:
  JsonChecker(const std::string& text, const std::string& file, Diagnostics& diagnostics)
      : text_(text), file_(file), diagnostics_(diagnostics)
  {
  }

  bool check()
  {
    skip_space();
    if (!value(0, ""))
      return false;
    skip_space();
    if (at_ < text_.size())
      return fail(at_, "", "unexpected content after the JSON value");
    return problems_ == 0;
  }

private:
  bool fail(std::size_t offset, const std::string& path, const std::string& message)
  {
    add(offset, path, message);
    return false;
  }

  void add(std::size_t offset, const std::string& path, const std::string& message)
  {
    int line = 1;
    int column = 1;
    for (std::size_t i = 0; i < offset && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        column = 1;
      } else if ((static_cast<unsigned char>(text_[i]) & 0xc0) != 0x80) {
        ++column;
      }
    }
    diagnostics_.add({file_, line, column, path, message});
    ++problems_;
  }

  void skip_space()
  {
    while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\t' || text_[at_] == '\n' || text_[at_] == '\r'))
      ++at_;
  }

  bool literal(const char* word)
  {
    const std::string expected(word);
    if (text_.compare(at_, expected.size(), expected) != 0)
      return false;
    at_ += expected.size();
    return true;
  }

  bool string(std::string& out)
  {
    const std::size_t start = at_++;
    while (at_ < text_.size() && text_[at_] != '"') {
      const auto byte = static_cast<unsigned char>(text_[at_]);
      if (byte < 0x20)
        return fail(at_, "", "control character in a JSON string (escape it)");
      if (text_[at_] == '\\') {
        ++at_;
        if (at_ >= text_.size() || std::string("\"\\/bfnrtu").find(text_[at_]) == std::string::npos)
          return fail(at_, "", "invalid escape in a JSON string");
      }
      out += text_[at_++];
    }
    if (at_ >= text_.size())
      return fail(start, "", "unterminated JSON string");
    ++at_;
    return true;
  }

  bool number()
  {
    const std::size_t start = at_;
    if (text_[at_] == '-')
      ++at_;
    auto digits = [&] {
      const std::size_t from = at_;
      while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9')
        ++at_;
      return at_ - from;
    };
    const std::size_t integer_start = at_;
    const std::size_t integer_digits = digits();
    if (integer_digits == 0 || (integer_digits > 1 && text_[integer_start] == '0'))
      return fail(start, "", "invalid JSON number");
    if (at_ < text_.size() && text_[at_] == '.') {
      ++at_;
      if (digits() == 0)
        return fail(start, "", "invalid JSON number");
    }
    if (at_ < text_.size() && (text_[at_] == 'e' || text_[at_] == 'E')) {
      ++at_;
      if (at_ < text_.size() && (text_[at_] == '+' || text_[at_] == '-'))
        ++at_;
      if (digits() == 0)
        return fail(start, "", "invalid JSON number");
    }
    return true;
  }

  bool value(int depth, const std::string& path)
  {
    if (depth > kMaxDepth)
      return fail(at_, path, "JSON nesting too deep (" + std::to_string(kMaxDepth) + " levels of arrays or objects)");
    if (at_ >= text_.size())
      return fail(at_, path, "unexpected end of the JSON text");
    const char c = text_[at_];
    if (c == '{')
      return object(depth, path);
    if (c == '[')
      return array(depth, path);
    if (c == '"') {
      std::string ignored;
      return string(ignored);
    }
    if (c == '-' || (c >= '0' && c <= '9'))
      return number();
    if (literal("true") || literal("false") || literal("null"))
      return true;
    return fail(at_, path, "expected a JSON value (object, array, string, number, true, false or null)");
  }

  bool object(int depth, const std::string& path)
  {
    ++at_;
    std::set<std::string> keys;
    skip_space();
    if (at_ < text_.size() && text_[at_] == '}') {
      ++at_;
      return true;
    }
    while (true) {
      skip_space();
      const std::size_t key_at = at_;
      if (at_ >= text_.size())
        return fail(at_, path, "unexpected end of the JSON text (an object is not closed)");
      if (text_[at_] != '"')
        return fail(at_, path, text_[at_] == '}' ? "trailing comma before '}' (not JSON)" : "expected a quoted key");
      std::string key;
      if (!string(key))
        return false;
      if (!keys.insert(key).second)
        add(key_at, path + "/" + key, "duplicate key '" + key + "' (JSON readers disagree on which one counts)");
      skip_space();
      if (at_ >= text_.size() || text_[at_] != ':')
        return fail(at_, path + "/" + key, "expected ':' after the key");
      ++at_;
      skip_space();
      if (!value(depth + 1, path + "/" + key))
        return false;
      skip_space();
      if (at_ < text_.size() && text_[at_] == ',') {
        ++at_;
        continue;
      }
      if (at_ < text_.size() && text_[at_] == '}') {
        ++at_;
        return true;
      }
      return fail(at_, path, at_ < text_.size() ? "expected ',' or '}'" : "unexpected end of the JSON text (an object is not closed)");
    }
  }

  bool array(int depth, const std::string& path)
  {
    ++at_;
    skip_space();
    if (at_ < text_.size() && text_[at_] == ']') {
      ++at_;
      return true;
    }
    for (std::size_t index = 0;; ++index) {
      skip_space();
      if (at_ < text_.size() && text_[at_] == ']')
        return fail(at_, path, "trailing comma before ']' (not JSON)");
      if (!value(depth + 1, path + "/" + std::to_string(index)))
        return false;
      skip_space();
      if (at_ < text_.size() && text_[at_] == ',') {
        ++at_;
        continue;
      }
      if (at_ < text_.size() && text_[at_] == ']') {
        ++at_;
        return true;
      }
      return fail(at_, path, at_ < text_.size() ? "expected ',' or ']'" : "unexpected end of the JSON text (an array is not closed)");
    }
  }

  const std::string& text_;
  const std::string& file_;
  Diagnostics& diagnostics_;
  std::size_t at_ = 0;
  int problems_ = 0;
};

} // namespace

bool check_json_syntax(const std::string& text, const std::string& display_name, Diagnostics& diagnostics)
{
  return JsonChecker(text, display_name, diagnostics).check();
}

} // namespace gpuscale::config
