#include "sim/engine/IsolatedRun.hpp"

#include "sim/engine/ProcessPool.hpp"

#include <stdexcept>

namespace gpuscale::engine {

std::string run_isolated(const std::function<std::string()>& work)
{
  ProcessPool pool(1, ChildSetup{.ignore_interrupt = false, .discard_stdout = false});
  pool.start(0, work);
  while (true) {
    for (auto& finished : pool.wait(std::chrono::milliseconds(-1))) {
      if (!finished.ok)
        throw std::runtime_error(finished.payload);
      return std::move(finished.payload);
    }
  }
}

} // namespace gpuscale::engine
