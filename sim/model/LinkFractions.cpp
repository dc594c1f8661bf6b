#include "sim/model/LinkFractions.hpp"

namespace gpuscale::model {

std::string to_string(LinkClass link_class)
{
  switch (link_class) {
    case LinkClass::NvSwitch: return "nvswitch";
    case LinkClass::NvlinkMesh: return "nvlink_mesh";
    case LinkClass::Pcie: return "pcie";
    case LinkClass::Nic: return "nic";
  }
  return "?";
}

LinkClass scale_up_link_class(IntraNodeFabric fabric)
{
  switch (fabric) {
    case IntraNodeFabric::NvSwitch: return LinkClass::NvSwitch;
    case IntraNodeFabric::NvlinkMesh: return LinkClass::NvlinkMesh;
    case IntraNodeFabric::Pcie: return LinkClass::Pcie;
  }
  return LinkClass::NvSwitch;
}

double LinkFractions::lookup(const std::string& key, const std::string& generation) const
{
  if (every_link)
    return *every_link;
  if (!generation.empty())
    if (const auto it = fraction.find(key + "@" + generation); it != fraction.end())
      return it->second;
  const auto it = fraction.find(key);
  return it != fraction.end() ? it->second : kDefaultLinkFraction;
}

double LinkFractions::of(LinkClass link_class, const std::string& generation) const
{
  return lookup(to_string(link_class), generation);
}

double LinkFractions::nvls(const std::string& generation) const
{
  return lookup(kNvlsKey, generation);
}

} // namespace gpuscale::model
