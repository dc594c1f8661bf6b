#include "analysis/calibration/NetworkFit.hpp"
#include "sim/config/PlatformReader.hpp"
#include "sim/model/Calibration.hpp"
#include "sim/model/ScenarioResolution.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>

using namespace gpuscale;
using analysis::NetworkParameter;

namespace {

constexpr double kNvlink_Bps = 450e9;
constexpr double kNic_Bps = 50e9;
constexpr int kRanks = 8;

NetworkParameter network(const std::string& key) { return {NetworkParameter::Group::Network, key}; }
NetworkParameter collective(const std::string& key) { return {NetworkParameter::Group::Collective, key}; }

/// A ring all-reduce in closed form (the alpha-beta model of the house style): series 0 inside a node
/// over `nvswitch`, series 1 across nodes bounded by `nic`. Every collective pays the fixed cost;
/// below 64 KiB it runs LL (twice the bytes on the wire, no Simple steps), from 64 KiB Simple
/// (2(p-1) steps), so the two costs are told apart as NCCL's protocols tell them apart.
std::vector<double> ring_times(std::size_t series, const model::LinkFractions& links, const std::vector<double>& sizes)
{
  std::vector<double> times;
  const double bandwidth_Bps =
      series == 0 ? links.fraction.at("nvswitch") * kNvlink_Bps : links.fraction.at("nic") * kNic_Bps;
  for (double bytes : sizes) {
    const bool low_latency = bytes < 65536;
    times.push_back(links.collective_fixed_s + (low_latency ? 0.0 : 2 * (kRanks - 1) * links.simple_step_s) +
                    2.0 * (kRanks - 1) / kRanks * bytes * (low_latency ? model::kLowLatencyWireFactor : 1.0) /
                        bandwidth_Bps);
  }
  return times;
}

const std::vector<double> kSizes{1024, 8192, 65536, 1 << 20, 16 << 20, 256 << 20, 1 << 30};

model::LinkFractions committed_like()
{
  model::LinkFractions links;
  links.fraction = {{"nvswitch", 0.82}, {"nic", 0.9}, {"pcie", 0.8}};
  links.collective_fixed_s = 5e-6;
  links.simple_step_s = 2e-6;
  return links;
}

model::CalibratedValue calibrated(double value)
{
  model::CalibratedValue v;
  v.value = value;
  return v;
}

} // namespace

TEST_CASE("analysis::fit_network recovers the link fractions and costs that made the times", "[calibration]")
{
  model::LinkFractions truth = committed_like();
  truth.fraction["nvswitch"] = 0.7;
  truth.fraction["nic"] = 0.8;
  truth.collective_fixed_s = 7e-6;
  truth.simple_step_s = 1e-6;
  std::vector<analysis::NetworkFitSeries> series{{"one node", ring_times(0, truth, kSizes)},
                                                 {"two nodes", ring_times(1, truth, kSizes)}};
  const auto simulate = [](std::size_t s, const model::LinkFractions& links) { return ring_times(s, links, kSizes); };
  const auto fit = analysis::fit_network(committed_like(),
                                         {network("nvswitch"), network("nic"), network("pcie"), collective("fixed"),
                                          collective("simple_step")},
                                         series, simulate);
  REQUIRE(fit.parameters.size() == 4);
  CHECK(fit.parameters[0].fitted.value == Approx(0.7).epsilon(1e-4));
  CHECK(fit.parameters[1].fitted.value == Approx(0.8).epsilon(1e-4));
  CHECK(fit.parameters[2].fitted.value == Approx(7e-6).epsilon(1e-4));
  CHECK(fit.parameters[3].fitted.value == Approx(1e-6).epsilon(1e-4));
  CHECK(fit.parameters[0].start == Approx(0.82));
  // No row crosses PCIe: it is reported, not fitted.
  REQUIRE(fit.uninformed.size() == 1);
  CHECK(fit.uninformed[0] == network("pcie"));
  CHECK(fit.links.fraction.at("pcie") == 0.8);
  // Rows that depend on each: the fixed cost on all 14, a link on its own series' 7, the Simple step
  // on the 10 of 64 KiB and more.
  CHECK(fit.parameters[0].fitted.results == 7);
  CHECK(fit.parameters[1].fitted.results == 7);
  CHECK(fit.parameters[2].fitted.results == 14);
  CHECK(fit.parameters[3].fitted.results == 10);
  for (const auto& p : fit.parameters)
    CHECK(p.fitted.identified);
  CHECK(fit.rms_log_error < 1e-4); // the optimiser stops at 1e-5 in log and 1 ns
  CHECK(fit.start_rms_log_error > 0.1);
  CHECK(fit.evaluations < 400);
}

TEST_CASE("analysis::fit_network gives the closed-form least-squares fraction and 1-sigma of a bandwidth-bound series",
          "[calibration]")
{
  // t_i = c_i / f with measured times off by known factors: log f = mean(log(c_i / t_i)), and its
  // Gauss-Newton 1-sigma is sqrt(RSS / (m - 1) / m) in log, times f for the fraction.
  const std::vector<double> sizes{1e8, 2e8, 4e8, 8e8, 1.6e9};
  const std::vector<double> errors{0.05, -0.03, 0.02, -0.06, 0.01};
  model::LinkFractions start;
  start.fraction["nvswitch"] = 0.9;
  const auto bandwidth_only = [&](std::size_t, const model::LinkFractions& links) {
    std::vector<double> times;
    for (double bytes : sizes)
      times.push_back(bytes / (links.fraction.at("nvswitch") * kNvlink_Bps));
    return times;
  };
  analysis::NetworkFitSeries measured{"log", {}};
  for (std::size_t i = 0; i < sizes.size(); ++i)
    measured.measured_s.push_back(sizes[i] / (0.6 * kNvlink_Bps) * std::exp(errors[i]));
  const auto fit = analysis::fit_network(start, {network("nvswitch")}, {measured}, bandwidth_only);
  double mean_log_f = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i)
    mean_log_f += std::log(sizes[i] / kNvlink_Bps / measured.measured_s[i]) / static_cast<double>(sizes.size());
  double rss = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const double r = std::log(sizes[i] / kNvlink_Bps / measured.measured_s[i]) - mean_log_f;
    rss += r * r;
  }
  const double m = static_cast<double>(sizes.size());
  REQUIRE(fit.parameters.size() == 1);
  CHECK(fit.parameters[0].fitted.value == Approx(std::exp(mean_log_f)).epsilon(1e-4));
  CHECK(fit.parameters[0].fitted.standard_error ==
        Approx(std::exp(mean_log_f) * std::sqrt(rss / (m - 1) / m)).epsilon(1e-3));
  CHECK(fit.rms_log_error == Approx(std::sqrt(rss / m)).epsilon(1e-3));
}

TEST_CASE("analysis::fit_network holds a fraction the times want above 1 at its bound and says so", "[calibration]")
{
  // Measured faster than the line rate allows: no physical fraction reaches them.
  model::LinkFractions start;
  start.fraction["nvswitch"] = 0.8;
  const auto simulate = [](std::size_t, const model::LinkFractions& links) {
    return std::vector<double>{1e9 / (links.fraction.at("nvswitch") * kNvlink_Bps)};
  };
  const auto fit = analysis::fit_network(start, {network("nvswitch")}, {{"too fast", {1e9 / (1.3 * kNvlink_Bps)}}}, simulate);
  REQUIRE(fit.parameters.size() == 1);
  CHECK(fit.parameters[0].fitted.value == Approx(1.0).epsilon(1e-6));
  CHECK_FALSE(fit.parameters[0].fitted.identified);
  CHECK(fit.parameters[0].fitted.note == "at its bound");
}

TEST_CASE("analysis::fit_network passes on what the simulation throws and refuses series without times",
          "[calibration]")
{
  model::LinkFractions start;
  const auto failing = [](std::size_t, const model::LinkFractions&) -> std::vector<double> {
    throw std::runtime_error("collective benchmark: the simulation died");
  };
  CHECK_THROWS_WITH(analysis::fit_network(start, {network("nvswitch")}, {{"log", {1e-5}}}, failing),
                    "collective benchmark: the simulation died");
  const auto constant = [](std::size_t, const model::LinkFractions&) { return std::vector<double>{1e-5}; };
  CHECK_THROWS_WITH(analysis::fit_network(start, {network("nvswitch")}, {{"log", {0.0}}}, constant),
                    "network fit: log has a measured time that is not positive");
  CHECK_THROWS_WITH(analysis::fit_network(start, {network("nvswitch")}, {{"log", {1e-5}}}, constant),
                    "network fit: no row's simulated time depends on any of the parameters");
}

TEST_CASE("analysis::network_parameter_candidates names the links of the GPUs the logs ran on", "[calibration]")
{
  const auto rail = config::read_platform(std::string(GPUSCALE_SOURCE_DIR) + "/platforms/dgx-h100-4node-rail.yaml");
  std::vector<std::string> names;
  for (const auto& p : analysis::network_parameter_candidates(rail, {8, 16}))
    names.push_back(p.name());
  CHECK(names == std::vector<std::string>{"network.nvswitch@hopper", "network.nvls@hopper", "network.nic",
                                          "collective.fixed", "collective.simple_step"});
  const auto a100 = config::read_platform(std::string(GPUSCALE_SOURCE_DIR) + "/platforms/dgx-a100-1node.yaml");
  names.clear();
  for (const auto& p : analysis::network_parameter_candidates(a100, {8}))
    names.push_back(p.name());
  CHECK(names == std::vector<std::string>{"network.nvswitch@ampere", "network.nic", "collective.fixed",
                                          "collective.simple_step"});
}

TEST_CASE("model::resolve_link_fractions takes a network calibration's values key by key", "[calibration]")
{
  model::Calibration committed;
  committed.network["nvswitch"] = calibrated(0.82);
  committed.network["nvswitch@ampere"] = calibrated(0.72);
  committed.network["nic"] = calibrated(0.9);
  committed.collective_s["fixed"] = calibrated(5e-6);
  committed.collective_s["simple_step"] = calibrated(2e-6);
  model::Calibration cluster;
  cluster.network["nvswitch@hopper"] = calibrated(0.7);
  cluster.collective_s["fixed"] = calibrated(7e-6);
  const auto links = model::resolve_link_fractions(&committed, &cluster, model::Efficiency{});
  CHECK(links.of(model::LinkClass::NvSwitch, "hopper") == 0.7);
  CHECK(links.of(model::LinkClass::NvSwitch, "ampere") == 0.72);
  CHECK(links.of(model::LinkClass::NvSwitch, "blackwell") == 0.82);
  CHECK(links.of(model::LinkClass::Nic, "") == 0.9);
  CHECK(links.collective_fixed_s == 7e-6);
  CHECK(links.simple_step_s == 2e-6);
  // A scenario's what-ifs still apply on top.
  model::Efficiency what_ifs;
  what_ifs.network = 0.5;
  what_ifs.collective_fixed_s = 1e-6;
  const auto what_if = model::resolve_link_fractions(&committed, &cluster, what_ifs);
  CHECK(what_if.of(model::LinkClass::NvSwitch, "hopper") == 0.5);
  CHECK(what_if.collective_fixed_s == 1e-6);
}
