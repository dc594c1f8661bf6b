#include "sim/app/ConvergenceBasisOption.hpp"

#include <string>
#include <vector>

namespace gpuscale::app {

void add_convergence_basis_option(CLI::App& command, analysis::ParameterSpace::ConvergenceBasis& basis)
{
  using Basis = analysis::ParameterSpace::ConvergenceBasis;
  std::vector<std::string> names;
  for (auto b : analysis::all_convergence_bases())
    names.push_back(analysis::to_string(b));
  command
      .add_option_function<std::string>(
          "--convergence",
          [&basis](const std::string& name) {
            for (auto b : analysis::all_convergence_bases())
              if (analysis::to_string(b) == name)
                basis = b;
          },
          "Samples to converge the fit compares each result at: runs (what its own runs trained; predictions "
          "converge at the convergence table's samples times the results' median ratio to them, written to "
          "the calibration as convergence_factors) or table (the convergence table's, for both). Default: " +
              analysis::to_string(Basis::Runs))
      ->check(CLI::IsMember(names));
}

} // namespace gpuscale::app
