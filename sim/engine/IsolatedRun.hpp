#pragma once
/// Runs a function in a forked child process and returns the bytes it produced. SimGrid keeps
/// global state (clock, signals) for the life of a process, so each simulation gets a fresh one.
/// One child of a ProcessPool, waited for: the same protocol as sweeps and parallel runs.

#include <functional>
#include <string>

namespace gpuscale::engine {

/// Forks; the child runs `work` and sends back its string (or the message of the exception it threw,
/// rethrown here as std::runtime_error). Throws if the child crashes or is killed. The child takes
/// SIGINT like its parent and writes to the parent's stdout, as a function called in place would.
std::string run_isolated(const std::function<std::string()>& work);

} // namespace gpuscale::engine
