#pragma once
/// A command-line option whose value is one of an enumeration's names: the shape shared by
/// `--software-date` and `--convergence`.

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace gpuscale::app {

/// Adds `name` to `command`: its value must be to_string(v) of one of `values`, and sets `target` to
/// that v (which keeps its value, the default, when the option is absent).
template <class Enum, class ToString>
void add_choice_option(CLI::App& command, const std::string& name, const std::vector<Enum>& values,
                       ToString to_string, Enum& target, const std::string& help)
{
  std::vector<std::string> names;
  for (auto v : values)
    names.push_back(to_string(v));
  command
      .add_option_function<std::string>(
          name,
          [&target, values, to_string](const std::string& given) {
            for (auto v : values)
              if (to_string(v) == given)
                target = v;
          },
          help)
      ->check(CLI::IsMember(names));
}

} // namespace gpuscale::app
