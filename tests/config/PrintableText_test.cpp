#include "sim/config/ConfigError.hpp"
#include "sim/config/PrintableText.hpp"

#include <catch2/catch.hpp>

using gpuscale::config::ConfigError;
using gpuscale::config::Diagnostic;
using gpuscale::config::printable;

TEST_CASE("config::printable escapes every control character and nothing else", "[config]")
{
  CHECK(printable("evil\x1b[2J\nname") == "evil\\x1b[2J\\nname");
  CHECK(printable("title\x1b]0;owned\x07") == "title\\x1b]0;owned\\x07");
  CHECK(printable("a\tb\rc") == "a\\tb\\rc");
  CHECK(printable(std::string("nul\0del\x7f", 8)) == "nul\\x00del\\x7f");
  CHECK(printable("NVIDIA H100 80GB HBM3 — 900 GB/s, µs") == "NVIDIA H100 80GB HBM3 — 900 GB/s, µs");
  CHECK(printable("") == "");
  const std::string once = printable("\x1b[2J\ngpuscale: forged");
  CHECK(printable(once) == once); // applying it twice changes nothing more
}

TEST_CASE("config::ConfigError makes every part of a diagnostic printable, however it was built", "[config]")
{
  const ConfigError error({Diagnostic{"logs/\x1b[2Jresult.txt", 3, 1, "/status\n", "status 'ab\x1b[2J\ngpuscale: forged'"}});
  CHECK(std::string(error.what()) == "logs/\\x1b[2Jresult.txt:3:1: error: /status\\n: status 'ab\\x1b[2J\\ngpuscale: forged'");
  REQUIRE(error.diagnostics().size() == 1);
  CHECK(error.diagnostics()[0].message == "status 'ab\\x1b[2J\\ngpuscale: forged'");
  const ConfigError two({Diagnostic{"a", 0, 0, "", "one\ntwo"}, Diagnostic{"b", 0, 0, "", "three"}});
  CHECK(std::string(two.what()) == "a: error: one\\ntwo\nb: error: three"); // one line per diagnostic
}
