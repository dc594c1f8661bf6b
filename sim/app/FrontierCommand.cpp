#include "sim/app/Commands.hpp"

namespace gpuscale::app {

void add_frontier_command(CLI::App&) {}

} // namespace gpuscale::app
