#include "sim/run/Version.hpp"

namespace gpuscale::run {

const char* gpuscale_version()
{
  return GPUSCALE_VERSION;
}

} // namespace gpuscale::run
