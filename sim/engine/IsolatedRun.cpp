#include "sim/engine/IsolatedRun.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace gpuscale::engine {

bool write_all(int fd, const char* data, std::size_t size)
{
  while (size > 0) {
    const ssize_t written = ::write(fd, data, size);
    if (written < 0 && errno == EINTR)
      continue;
    if (written <= 0)
      return false;
    data += written;
    size -= static_cast<std::size_t>(written);
  }
  return true;
}

std::string run_isolated(const std::function<std::string()>& work)
{
  int fds[2];
  if (::pipe(fds) != 0)
    throw std::runtime_error(std::string("pipe failed: ") + std::strerror(errno));
  std::fflush(nullptr); // or buffered output would be printed by both processes
  const pid_t pid = ::fork();
  if (pid < 0)
    throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
  if (pid == 0) {
    ::close(fds[0]);
    char status = 'o';
    std::string payload;
    try {
      payload = work();
    } catch (const std::exception& e) {
      status = 'e';
      payload = e.what();
    }
    const bool ok = write_all(fds[1], &status, 1) && write_all(fds[1], payload.data(), payload.size());
    ::close(fds[1]);
    std::fflush(nullptr);
    ::_exit(ok ? 0 : 3);
  }
  ::close(fds[1]);
  std::string received;
  char buffer[65536];
  while (true) {
    const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    received.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int wait_status = 0;
  while (::waitpid(pid, &wait_status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(wait_status))
    throw std::runtime_error("simulation process killed by signal " + std::to_string(WTERMSIG(wait_status)));
  if (received.empty() || !WIFEXITED(wait_status) || WEXITSTATUS(wait_status) != 0)
    throw std::runtime_error("simulation process failed (exit status " +
                             std::to_string(WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1) + ")");
  if (received[0] == 'e')
    throw std::runtime_error(received.substr(1));
  return received.substr(1);
}

} // namespace gpuscale::engine
