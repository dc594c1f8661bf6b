#pragma once
/// Runs a function in a forked child process and returns the bytes it produced. SimGrid keeps
/// global state (clock, signals) for the life of a process, so each simulation gets a fresh one.

#include <cstddef>
#include <functional>
#include <string>

namespace gpuscale::engine {

/// Forks; the child runs `work` and sends back its string (or the message of the exception it threw,
/// rethrown here as std::runtime_error). Throws if the child crashes or is killed.
std::string run_isolated(const std::function<std::string()>& work);

/// Writes all of `data` to `fd`, retrying short writes and EINTR; false on any other failure.
/// Used by every child process that reports back through a pipe.
bool write_all(int fd, const char* data, std::size_t size);

} // namespace gpuscale::engine
