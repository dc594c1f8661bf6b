#include "sim/app/ConvergenceBasisOption.hpp"

#include "sim/app/ChoiceOption.hpp"

namespace gpuscale::app {

void add_convergence_basis_option(CLI::App& command, analysis::ParameterSpace::ConvergenceBasis& basis)
{
  using Basis = analysis::ParameterSpace::ConvergenceBasis;
  add_choice_option(command, "--convergence", analysis::all_convergence_bases(),
                    [](Basis b) { return analysis::to_string(b); }, basis,
                    "Samples to converge the fit compares each result at: runs (what its own runs trained; "
                    "predictions converge at the convergence table's samples times the results' median ratio to "
                    "them, written to the calibration as convergence_factors) or table (the convergence table's, for "
                    "both). Default: " + analysis::to_string(Basis::Runs));
}

} // namespace gpuscale::app
