#include "sim/engine/ProcessPool.hpp"

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

namespace gpuscale::engine {
namespace {

/// Writes all of `data` to `fd`, retrying short writes and EINTR; false on any other failure.
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

/// In the child, before the work: descriptors, signals and output set up as `setup` says.
void become_child(pid_t parent, int result_fd, const ChildSetup& setup)
{
  const unsigned keep = static_cast<unsigned>(result_fd);
  ::close_range(3, keep - 1, 0);
  ::close_range(keep + 1, ~0U, 0);
  struct sigaction handler {};
  handler.sa_handler = setup.ignore_interrupt ? SIG_IGN : SIG_DFL;
  sigaction(SIGINT, &handler, nullptr);
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  sigaction(SIGTERM, &fallback, nullptr);
  sigaction(SIGHUP, &fallback, nullptr);
  sigaction(SIGPIPE, &fallback, nullptr);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) // the parent died before prctl took effect
    ::_exit(4);
  if (setup.discard_stdout) {
    const int null = ::open("/dev/null", O_WRONLY);
    if (null >= 0) {
      ::dup2(null, STDOUT_FILENO);
      ::close(null);
    }
  }
}

/// In the child: runs `work` and writes its frame (status byte, then payload) to `fd`.
[[noreturn]] void run_child(int fd, const std::function<std::string()>& work)
{
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
  const bool ok = write_all(fd, &status, 1) && write_all(fd, payload.data(), payload.size());
  ::close(fd);
  std::fflush(nullptr);
  ::_exit(ok ? 0 : 3);
}

} // namespace

ProcessPool::ProcessPool(int workers, ChildSetup setup) : workers_(workers < 1 ? 1 : workers), setup_(setup) {}

ProcessPool::~ProcessPool()
{
  kill_all();
}

void ProcessPool::start(std::int64_t job, const std::function<std::string()>& work)
{
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("pipe failed: ") + std::strerror(errno));
  std::fflush(nullptr); // or buffered output would be printed by both processes
  const pid_t parent = ::getpid();
  const auto started = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
  }
  if (pid == 0) {
    become_child(parent, fds[1], setup_);
    run_child(fds[1], work);
  }
  ::close(fds[1]);
  ::fcntl(fds[0], F_SETFL, ::fcntl(fds[0], F_GETFL) | O_NONBLOCK);
  children_.push_back({job, pid, fds[0], {}, false, started});
}

ProcessPool::Finished ProcessPool::reap(Child& child)
{
  ::close(child.fd);
  child.fd = -1;
  int status = 0;
  while (::waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
  }
  Finished finished;
  finished.job = child.job;
  finished.killed_by_pool = child.killed;
  finished.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - child.started).count();
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

std::vector<ProcessPool::Finished> ProcessPool::wait(std::chrono::milliseconds timeout)
{
  std::vector<Finished> finished;
  if (children_.empty())
    return finished;
  std::vector<pollfd> fds;
  for (const auto& child : children_)
    fds.push_back({child.fd, POLLIN, 0});
  const int ready = ::poll(fds.data(), fds.size(), timeout.count() < 0 ? -1 : static_cast<int>(timeout.count()));
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

std::vector<ProcessPool::Finished> ProcessPool::kill_all()
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

std::vector<ProcessPool::Finished>
run_all(const std::vector<std::function<std::string()>>& jobs, int workers,
        const std::function<void(const ProcessPool::Finished&, std::size_t, std::size_t)>& on_finished)
{
  std::vector<ProcessPool::Finished> results(jobs.size());
  ProcessPool pool(workers);
  std::size_t next = 0, done = 0;
  while (done < jobs.size()) {
    while (next < jobs.size() && pool.has_free_slot()) {
      pool.start(static_cast<std::int64_t>(next), jobs[next]);
      ++next;
    }
    for (auto& finished : pool.wait(std::chrono::milliseconds(200))) {
      const auto job = static_cast<std::size_t>(finished.job);
      results[job] = std::move(finished);
      ++done;
      if (on_finished)
        on_finished(results[job], done, jobs.size());
    }
  }
  return results;
}

} // namespace gpuscale::engine
