#pragma once
/// An enum's names as one table of {value, name} pairs, read both ways: the name of a value, the value
/// of a name, and the list of names for messages. Each model file keeps its table; these keep the
/// three loops over it in one place.

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace gpuscale::model {

/// The name of `value` in `table` ("?" where the table lacks it).
template <class Enum, class Name, std::size_t N>
std::string name_of(const std::array<std::pair<Enum, Name>, N>& table, Enum value)
{
  for (const auto& [candidate, name] : table)
    if (candidate == value)
      return std::string(name);
  return "?";
}

/// The value whose name is `name`, or nullopt.
template <class Enum, class Name, std::size_t N>
std::optional<Enum> value_of(const std::array<std::pair<Enum, Name>, N>& table, std::string_view name)
{
  for (const auto& [candidate, candidate_name] : table)
    if (name == std::string_view(candidate_name))
      return candidate;
  return std::nullopt;
}

/// Every name in table order, comma-separated ("a, b, c"), for messages.
template <class Enum, class Name, std::size_t N>
std::string list_of(const std::array<std::pair<Enum, Name>, N>& table)
{
  std::string list;
  for (const auto& [_, name] : table)
    list += (list.empty() ? "" : ", ") + std::string(name);
  return list;
}

} // namespace gpuscale::model
