#include "sim/run/SweepWorkerPool.hpp"

#include "sim/engine/IsolatedRun.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace gpuscale::run {
namespace {

/// In the child, before the work: signals and output set up for a worker.
void become_worker(pid_t parent)
{
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGINT, &ignore, nullptr);
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  sigaction(SIGTERM, &fallback, nullptr);
  sigaction(SIGHUP, &fallback, nullptr);
  sigaction(SIGPIPE, &fallback, nullptr);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) // the parent died before prctl took effect
    ::_exit(4);
  const int null = ::open("/dev/null", O_WRONLY);
  if (null >= 0) {
    ::dup2(null, STDOUT_FILENO);
    ::close(null);
  }
}

} // namespace

SweepWorkerPool::SweepWorkerPool(int workers) : workers_(workers < 1 ? 1 : workers) {}

SweepWorkerPool::~SweepWorkerPool()
{
  kill_all();
}

void SweepWorkerPool::start(std::int64_t job, const std::function<std::string()>& work)
{
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("pipe failed: ") + std::strerror(errno));
  std::fflush(nullptr); // or buffered output would be printed by both processes
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
  }
  if (pid == 0) {
    // Keep only stdio and the result pipe: an inherited descriptor (the sweep journal and its flock,
    // other workers' pipes) must not outlive the parent in a worker.
    const unsigned keep = static_cast<unsigned>(fds[1]);
    ::close_range(3, keep - 1, 0);
    ::close_range(keep + 1, ~0U, 0);
    become_worker(parent);
    char status = 'o';
    std::string payload;
    try {
      payload = work();
    } catch (const std::exception& e) {
      status = 'e';
      payload = e.what();
    } catch (...) {
      status = 'e';
      payload = "unknown exception";
    }
    const bool ok = engine::write_all(fds[1], &status, 1) && engine::write_all(fds[1], payload.data(), payload.size());
    ::close(fds[1]);
    ::_exit(ok ? 0 : 3);
  }
  ::close(fds[1]);
  ::fcntl(fds[0], F_SETFL, ::fcntl(fds[0], F_GETFL) | O_NONBLOCK);
  children_.push_back({job, pid, fds[0], {}, false});
}

SweepWorkerPool::Finished SweepWorkerPool::reap(Child& child)
{
  ::close(child.fd);
  child.fd = -1;
  int status = 0;
  while (::waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
  }
  Finished finished;
  finished.job = child.job;
  finished.killed_by_pool = child.killed;
  if (WIFSIGNALED(status)) {
    finished.payload = "simulation process killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
                       strsignal(WTERMSIG(status)) + ")";
  } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || child.received.empty()) {
    finished.payload = "simulation process exited with status " +
                       std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + " without a result";
  } else {
    finished.ok = child.received[0] == 'o';
    finished.payload = child.received.substr(1);
  }
  return finished;
}

std::vector<SweepWorkerPool::Finished> SweepWorkerPool::wait(std::chrono::milliseconds timeout)
{
  std::vector<Finished> finished;
  if (children_.empty())
    return finished;
  std::vector<pollfd> fds;
  for (const auto& child : children_)
    fds.push_back({child.fd, POLLIN, 0});
  const int ready = ::poll(fds.data(), fds.size(), static_cast<int>(timeout.count()));
  if (ready <= 0)
    return finished; // timeout, or EINTR: the caller checks its signal flags
  std::vector<Child> still_running;
  for (std::size_t i = 0; i < children_.size(); ++i) {
    Child& child = children_[i];
    bool ended = false;
    if (fds[i].revents != 0) {
      char buffer[65536];
      while (true) {
        const ssize_t n = ::read(child.fd, buffer, sizeof buffer);
        if (n > 0) {
          child.received.append(buffer, static_cast<std::size_t>(n));
          continue;
        }
        if (n < 0 && errno == EINTR)
          continue;
        ended = n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK);
        break;
      }
    }
    if (ended)
      finished.push_back(reap(child));
    else
      still_running.push_back(std::move(child));
  }
  children_ = std::move(still_running);
  return finished;
}

std::vector<SweepWorkerPool::Finished> SweepWorkerPool::kill_all()
{
  std::vector<Finished> finished;
  for (auto& child : children_) {
    child.killed = true;
    ::kill(child.pid, SIGKILL);
  }
  for (auto& child : children_)
    finished.push_back(reap(child));
  children_.clear();
  return finished;
}

} // namespace gpuscale::run
