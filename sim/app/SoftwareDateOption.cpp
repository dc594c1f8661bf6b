#include "sim/app/SoftwareDateOption.hpp"

#include "sim/app/ChoiceOption.hpp"

namespace gpuscale::app {

void add_software_date_option(CLI::App& command, mlperf::SoftwareDateSource& source)
{
  add_choice_option(command, "--software-date", mlperf::all_software_date_sources(),
                    [](mlperf::SoftwareDateSource s) { return mlperf::to_string(s); }, source,
                    "Each result's software date, for software maturity: first-run (default: the day its first run "
                    "started), round (its round's date) or none (no maturity fitted; docs/CALIBRATION.md)");
}

} // namespace gpuscale::app
