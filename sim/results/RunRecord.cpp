#include "sim/results/RunRecord.hpp"

namespace gpuscale::results {

std::string to_string(Outcome outcome)
{
  return outcome == Outcome::Ok ? "ok" : "infeasible";
}

} // namespace gpuscale::results
