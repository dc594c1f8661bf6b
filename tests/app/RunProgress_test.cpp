// The progress line of a single long run: drawn on a terminal only, erased at the end.

#include "sim/app/RunProgress.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <pty.h>
#include <string>
#include <thread>
#include <unistd.h>

using namespace gpuscale;

TEST_CASE("app::RunProgress says what runs and for how long", "[app][progress]")
{
  CHECK(app::RunProgress::format_line("simulating 8 GPUs x 24 layers", 75.4) == "simulating 8 GPUs x 24 layers ... 0:01:15");
}

TEST_CASE("app::RunProgress draws on a terminal after a second and erases its line, and never into a file",
          "[app][progress]")
{
  int master = -1, slave = -1;
  REQUIRE(::openpty(&master, &slave, nullptr, nullptr, nullptr) == 0);
  std::FILE* terminal = ::fdopen(slave, "w");
  REQUIRE(terminal != nullptr);
  {
    app::RunProgress progress("simulating", terminal);
    std::this_thread::sleep_for(std::chrono::milliseconds(1300));
  }
  char buffer[512] = {};
  const ssize_t got = ::read(master, buffer, sizeof buffer - 1);
  REQUIRE(got > 0);
  const std::string drawn(buffer, static_cast<std::size_t>(got));
  CHECK(drawn.find("\rsimulating ... 0:00:01\x1b[K") != std::string::npos);
  CHECK(drawn.substr(drawn.size() - 4) == "\r\x1b[K");
  std::fclose(terminal);
  ::close(master);

  std::FILE* file = std::tmpfile();
  REQUIRE(file != nullptr);
  {
    app::RunProgress progress("simulating", file);
    std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  }
  CHECK(std::ftell(file) == 0);
  std::fclose(file);
}
