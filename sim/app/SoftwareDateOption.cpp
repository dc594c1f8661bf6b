#include "sim/app/SoftwareDateOption.hpp"

#include <string>
#include <vector>

namespace gpuscale::app {

void add_software_date_option(CLI::App& command, mlperf::SoftwareDateSource& source)
{
  std::vector<std::string> names;
  for (auto s : mlperf::all_software_date_sources())
    names.push_back(mlperf::to_string(s));
  command
      .add_option_function<std::string>(
          "--software-date",
          [&source](const std::string& name) {
            for (auto s : mlperf::all_software_date_sources())
              if (mlperf::to_string(s) == name)
                source = s;
          },
          "Each result's software date, for the software trend: first-run (the day its first run started), "
          "round (its round's date) or none (default: no trend fitted; the trend does not validate better yet, "
          "docs/CALIBRATION.md)")
      ->check(CLI::IsMember(names));
}

} // namespace gpuscale::app
