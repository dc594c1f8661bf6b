// The progress line of a single long run: drawn on a terminal only, erased at the end.

#include "sim/app/RunProgress.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <poll.h>
#include <pty.h>
#include <string>
#include <thread>
#include <unistd.h>

using namespace gpuscale;

TEST_CASE("app::RunProgress says what runs and for how long", "[app][progress]")
{
  CHECK(app::RunProgress::format_line("simulating 8 GPUs x 24 layers", 75.4) == "simulating 8 GPUs x 24 layers ... 0:01:15");
}

namespace {

/// Appends what the terminal's master side `master` reads to `drawn` until `done(drawn)` holds or
/// `bound` has passed (a generous bound: the test waits for the drawer, it does not time it).
template <typename Done>
void read_until(int master, std::string& drawn, Done done, std::chrono::seconds bound)
{
  const auto give_up = std::chrono::steady_clock::now() + bound;
  while (!done(drawn)) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(give_up - std::chrono::steady_clock::now());
    if (left.count() <= 0)
      return;
    pollfd readable{master, POLLIN, 0};
    if (::poll(&readable, 1, static_cast<int>(left.count())) <= 0)
      return;
    char buffer[512];
    const ssize_t got = ::read(master, buffer, sizeof buffer);
    if (got <= 0)
      return;
    drawn.append(buffer, static_cast<std::size_t>(got));
  }
}

bool ends_with(const std::string& text, const std::string& end)
{
  return text.size() >= end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0;
}

} // namespace

TEST_CASE("app::RunProgress draws on a terminal after a second and erases its line, and never into a file",
          "[app][progress]")
{
  int master = -1, slave = -1;
  REQUIRE(::openpty(&master, &slave, nullptr, nullptr, nullptr) == 0);
  std::FILE* terminal = ::fdopen(slave, "w");
  REQUIRE(terminal != nullptr);
  std::string drawn;
  {
    const auto constructed = std::chrono::steady_clock::now();
    app::RunProgress progress("simulating", terminal);
    // Wait for the first line rather than sleeping a fixed time: on a loaded machine the drawer may start late.
    read_until(master, drawn, [](const std::string& text) { return text.find("\x1b[K") != std::string::npos; },
               std::chrono::seconds(30));
    CHECK(std::chrono::steady_clock::now() - constructed >= std::chrono::seconds(1));
  }
  read_until(master, drawn, [](const std::string& text) { return ends_with(text, "\r\x1b[K"); },
             std::chrono::seconds(30));
  CHECK(drawn.find("\rsimulating ... 0:00:01\x1b[K") == 0);
  CHECK(ends_with(drawn, "\r\x1b[K"));
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
