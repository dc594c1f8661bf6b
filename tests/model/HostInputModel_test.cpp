#include "sim/config/HostInputReader.hpp"
#include "sim/model/HostInputModel.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>
#include <string>

using gpuscale::model::find_host_input_cost;
using gpuscale::model::HostInputCost;
using gpuscale::model::HostInputDemand;
using gpuscale::model::HostInputLoad;
using gpuscale::model::HostInputModel;
using gpuscale::model::NodeType;

namespace {

std::vector<HostInputCost> committed_costs()
{
  return gpuscale::config::read_host_input(std::string(GPUSCALE_SOURCE_DIR) + "/workloads/host_input/host_input.yaml");
}

NodeType node_with(int sockets, int cores_per_socket, int gpus)
{
  NodeType node;
  node.name = "test-node";
  node.sockets = sockets;
  node.cores_per_socket = cores_per_socket;
  node.gpus_per_node = gpus;
  return node;
}

HostInputCost cost_of(double core_time_per_sample_s)
{
  HostInputCost cost;
  cost.benchmark = "toy";
  cost.pipeline = "cpu";
  cost.core_time_per_sample_s = core_time_per_sample_s;
  cost.reserved_cores_per_gpu = 1;
  return cost;
}

} // namespace

TEST_CASE("model::HostInputModel matches the closed form", "[model]")
{
  const HostInputModel model(cost_of(4e-3));
  // 14 cores per GPU, 1 reserved: 13 / 4 ms = 3250 samples/s per GPU.
  const HostInputLoad fed = model.evaluate(HostInputDemand{14, 3000});
  CHECK(fed.loader_cores_per_gpu == 13.0);
  CHECK(fed.max_samples_per_s == Approx(3250.0).epsilon(1e-12));
  CHECK_FALSE(fed.input_bound);
  CHECK(fed.fed_samples_per_s == 3000.0);
  CHECK(fed.host_utilisation == Approx(3000.0 / 3250).epsilon(1e-12));
  CHECK(fed.slowdown == 1.0);

  const HostInputLoad starved = model.evaluate(HostInputDemand{14, 4000});
  CHECK(starved.input_bound);
  CHECK(starved.fed_samples_per_s == Approx(3250.0).epsilon(1e-12));
  CHECK(starved.host_utilisation == 1.0);
  CHECK(starved.slowdown == Approx(4000.0 / 3250).epsilon(1e-12));
}

TEST_CASE("model::HostInputModel turns input bound when cores per GPU drop (ResNet, CPU decoding)", "[model]")
{
  const auto costs = committed_costs();
  const HostInputCost* resnet = find_host_input_cost(costs, "resnet", "cpu-decode");
  REQUIRE(resnet != nullptr);
  const HostInputModel model(*resnet);
  const double gpu_samples_per_s = 2500; // an A100-class GPU on ResNet-50
  // 2 x 64 cores for 8 GPUs (DGX A100): fed; 2 x 20 cores for 8 GPUs (DGX-1): input bound.
  CHECK_FALSE(model.evaluate(node_with(2, 64, 8), gpu_samples_per_s).input_bound);
  CHECK(model.evaluate(node_with(2, 20, 8), gpu_samples_per_s).input_bound);

  // Capacity never grows as cores are taken away, and the flag flips exactly once.
  double previous_capacity = INFINITY;
  int flips = 0;
  bool previous_bound = false;
  for (int cores_per_socket = 64; cores_per_socket >= 1; --cores_per_socket) {
    const HostInputLoad load = model.evaluate(node_with(2, cores_per_socket, 8), gpu_samples_per_s);
    CHECK(load.max_samples_per_s <= previous_capacity);
    if (load.input_bound != previous_bound)
      ++flips;
    previous_bound = load.input_bound;
    previous_capacity = load.max_samples_per_s;
  }
  CHECK(flips == 1);
  CHECK(previous_bound);
}

TEST_CASE("model::HostInputModel: GPU decoding and tokenised text are not input bound on common nodes", "[model]")
{
  const auto costs = committed_costs();
  const NodeType dgx_h100 = node_with(2, 56, 8);
  // Per-GPU rates above what an H100 reaches on each benchmark.
  CHECK_FALSE(HostInputModel(*find_host_input_cost(costs, "resnet", "dali-gpu-decode")).evaluate(dgx_h100, 8000).input_bound);
  CHECK_FALSE(HostInputModel(*find_host_input_cost(costs, "bert")).evaluate(dgx_h100, 5000).input_bound);
  CHECK_FALSE(HostInputModel(*find_host_input_cost(costs, "llama2_70b_lora")).evaluate(dgx_h100, 50).input_bound);
  CHECK_FALSE(HostInputModel(*find_host_input_cost(costs, "stable_diffusion")).evaluate(dgx_h100, 500).input_bound);
}

TEST_CASE("model::HostInputModel with no cores left for loading is input bound with infinite slowdown", "[model]")
{
  const HostInputModel model(cost_of(1e-3));
  const HostInputLoad load = model.evaluate(HostInputDemand{1, 100}); // the one core is reserved
  CHECK(load.max_samples_per_s == 0.0);
  CHECK(load.input_bound);
  CHECK(std::isinf(load.slowdown));
  CHECK(load.host_utilisation == 1.0);
  const HostInputLoad idle = model.evaluate(HostInputDemand{1, 0});
  CHECK_FALSE(idle.input_bound);
  CHECK(idle.slowdown == 1.0);
}

TEST_CASE("model::HostInputModel rejects invalid costs and demands", "[model]")
{
  CHECK_THROWS_AS(HostInputModel(cost_of(0)), std::invalid_argument);
  HostInputCost negative_reserve = cost_of(1e-3);
  negative_reserve.reserved_cores_per_gpu = -1;
  CHECK_THROWS_AS(HostInputModel(negative_reserve), std::invalid_argument);
  const HostInputModel model(cost_of(1e-3));
  CHECK_THROWS_AS(model.evaluate(HostInputDemand{-1, 100}), std::invalid_argument);
  CHECK_THROWS_AS(model.evaluate(HostInputDemand{8, NAN}), std::invalid_argument);
  CHECK_THROWS_AS(model.evaluate(node_with(2, 32, 0), 100), std::invalid_argument);
}

TEST_CASE("model::find_host_input_cost picks the named pipeline or the benchmark's first", "[model]")
{
  const auto costs = committed_costs();
  REQUIRE(find_host_input_cost(costs, "resnet") != nullptr);
  CHECK(find_host_input_cost(costs, "resnet")->pipeline == "cpu-decode");
  CHECK(find_host_input_cost(costs, "resnet", "dali-gpu-decode")->core_time_per_sample_s == Approx(0.3e-3).epsilon(1e-12));
  CHECK(find_host_input_cost(costs, "resnet", "no-such-pipeline") == nullptr);
  CHECK(find_host_input_cost(costs, "gpt3") == nullptr);
}
