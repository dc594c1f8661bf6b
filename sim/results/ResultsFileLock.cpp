#include "sim/results/ResultsFileLock.hpp"

#include "sim/results/ResultsFile.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

namespace gpuscale::results {
namespace {

namespace fs = std::filesystem;

constexpr double kDefaultLockTimeoutS = 60.0;
constexpr auto kPollInterval = std::chrono::milliseconds(5);

/// The folder a results file is in, as an absolute path (so two spellings compare equal).
std::string folder_of(const std::string& results_path)
{
  const fs::path parent = fs::path(results_path).parent_path();
  std::error_code error;
  const fs::path absolute = fs::weakly_canonical(parent.empty() ? fs::path(".") : parent, error);
  return error ? (parent.empty() ? std::string(".") : parent.string()) : absolute.string();
}

std::string seconds_text(double seconds)
{
  char text[32];
  std::snprintf(text, sizeof text, "%g", seconds);
  return text;
}

} // namespace

double lock_timeout_s()
{
  const char* text = std::getenv("GPUSCALE_LOCK_TIMEOUT_S");
  if (text == nullptr || *text == '\0')
    return kDefaultLockTimeoutS;
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  return *end == '\0' && std::isfinite(value) && value >= 0 ? value : kDefaultLockTimeoutS;
}

ResultsFileLock::ResultsFileLock(const std::string& results_path) : directory_(folder_of(results_path))
{
  fd_ = ::open(directory_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd_ < 0)
    throw ResultsFileError(results_path + ": cannot lock the folder " + directory_ + ": " + std::strerror(errno));
  const double timeout_s = lock_timeout_s();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    if (error == EINTR)
      continue;
    if (error != EWOULDBLOCK || std::chrono::steady_clock::now() >= deadline) {
      ::close(fd_);
      fd_ = -1;
      if (error != EWOULDBLOCK)
        throw ResultsFileError(results_path + ": cannot lock the folder " + directory_ + ": " + std::strerror(error));
      throw ResultsFileError(results_path + ": another gpuscale process kept the results files of " + directory_ +
                             " locked for " + seconds_text(timeout_s) +
                             " s; nothing was written (wait for it to finish, or set GPUSCALE_LOCK_TIMEOUT_S to "
                             "wait longer)");
    }
    std::this_thread::sleep_for(kPollInterval);
  }
}

ResultsFileLock::~ResultsFileLock()
{
  if (fd_ >= 0)
    ::close(fd_); // releases the lock
}

bool ResultsFileLock::covers(const std::string& results_path) const
{
  return folder_of(results_path) == directory_;
}

} // namespace gpuscale::results
