#include "sim/config/AcceleratorIdentification.hpp"
#include "sim/config/ConfigError.hpp"
#include "sim/config/MlperfPlatformMapper.hpp"
#include "sim/config/MlperfSystemReader.hpp"
#include "sim/config/PlatformReader.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <map>

using namespace gpuscale;
namespace fs = std::filesystem;

namespace {

const std::string kSource = GPUSCALE_SOURCE_DIR;

const std::map<std::string, model::GpuType>& catalog()
{
  static const model::Platform platform = config::read_platform(kSource + "/calibration/catalog.yaml");
  return platform.gpu_types;
}

std::string identified(const std::string& model_name, const std::string& memory = "")
{
  const auto result = config::identify_accelerator(catalog(), model_name, memory);
  return result.gpu_type.empty() ? "error: " + result.error : result.gpu_type;
}

/// Every accelerator_model_name of the MLPerf Training v3.0-v5.0 system descriptions, and the catalog
/// entry it means (from the system's name, memory and interconnect fields, read by hand).
const std::map<std::string, std::string> kMlperfAccelerators = {
    {"AMD Instinct MI300X 192GB HBM3", "mi300x"},
    {"AMD Instinct MI325X 256GB HBM3E DLC", "mi325x"},
    {"AMD Instinct MI325X 256GB HBM3e", "mi325x"},
    {"AMD Radeon RX 7900 XTX", "rx-7900-xtx"},
    {"H100 NVL Tensor Core GPU (PCIe)", "h100-nvl-94gb"},
    {"Habana Gaudi2", "gaudi2"},
    {"Intel Gaudi2", "gaudi2"},
    {"Intel(R) Gaudi(R) 2 AI Accelerator", "gaudi2"},
    {"NVIDIA A100 - PCIe - 80 GB", "a100-pcie-80gb"},
    {"NVIDIA A100-PCIe-80GB", "a100-pcie-80gb"},
    {"NVIDIA A100-SXM-40GB", "a100-sxm4-40gb"},
    {"NVIDIA A100-SXM-80GB CTS", "a100-sxm4-80gb"},
    {"NVIDIA A100-SXM4-40GB", "a100-sxm4-40gb"},
    {"NVIDIA A100-SXM4-80GB", "a100-sxm4-80gb"},
    {"NVIDIA A10G", "a10g"},
    {"NVIDIA A30", "a30"},
    {"NVIDIA A30-PCIE-24GB", "a30"},
    {"NVIDIA A40", "a40"},
    {"NVIDIA Blackwell GPU (B200-SXM-180GB)", "b200-sxm-180gb"},
    {"NVIDIA Blackwell GPU (GB200)", "gb200"}, // v5.0 Oracle states H200's 143771 MiB for it: set aside (rule 4)
    {"NVIDIA H200-NVL-141GB", "h200-nvl-141gb"},
    {"NVIDIA GeForce RTX 4090", "rtx-4090"},
    {"NVIDIA H100-PCIe", "h100-pcie-80gb"},
    {"NVIDIA H100-PCIe-80GB", "h100-pcie-80gb"},
    {"NVIDIA H100-SXM-80GB", "h100-sxm5-80gb"},
    {"NVIDIA H100-SXM5-80GB", "h100-sxm5-80gb"},
    {"NVIDIA H100-SXM5-96GB", "h100-sxm5-96gb"},
    {"NVIDIA H200-SXM5-141GB", "h200-sxm-141gb"},
    {"NVIDIA L4", "l4"},
    {"NVIDIA L40", "l40"},
    {"NVIDIA L40S", "l40s"},
    {"NVIDIA RTX A5000", "rtx-a5000"},
    {"TPU-trillium", "tpu-v6e"},
    {"TPU-v5p", "tpu-v5p"},
};

/// Each system description under `dir` (recursively) with accelerators resolves to the entry of the table.
void check_systems_under(const fs::path& dir, int& checked)
{
  for (const auto& file : fs::recursive_directory_iterator(dir)) {
    if (file.path().extension() != ".json")
      continue;
    model::MlperfSystem system;
    try {
      system = config::read_mlperf_system(file.path().string());
    } catch (const config::ConfigError& error) {
      // A description the reader refuses as a whole (v5.0 Dell 1xXE9680Lx8H200-SXM-141GB repeats its
      // accelerator keys) never reaches identification; any other refusal is a failure here.
      INFO(file.path().string());
      CHECK(std::string(error.what()).find("duplicate key") != std::string::npos);
      continue;
    }
    if (system.accelerators_per_node == 0)
      continue; // CPU-only, refused by map_mlperf_system (tested there)
    INFO(file.path().string() << ": '" << system.accelerator_model_name << "', " << system.accelerator_memory_capacity);
    const auto expected = kMlperfAccelerators.find(system.accelerator_model_name);
    REQUIRE(expected != kMlperfAccelerators.end()); // a new string in the data: add it to the table
    CHECK(identified(system.accelerator_model_name, system.accelerator_memory_capacity) == expected->second);
    // And the mapper that check and predict use agrees.
    CHECK(config::map_mlperf_system(system, config::read_platform(kSource + "/calibration/catalog.yaml")).gpu_type ==
          expected->second);
    ++checked;
  }
}

} // namespace

TEST_CASE("config::identify_accelerator resolves the committed MLPerf system descriptions", "[config]")
{
  int checked = 0;
  check_systems_under(kSource + "/tests/data/mlperf/identification", checked);
  CHECK(checked == 4);
}

TEST_CASE("config::identify_accelerator resolves every accelerator of the shared MLPerf systems", "[config][mlperf]")
{
  const char* env_dir = std::getenv("GPUSCALE_MLPERF_DIR");
  const fs::path mlperf = env_dir && *env_dir ? fs::path(env_dir) : fs::path(kSource) / ".." / "shared" / "mlperf";
  const char* require = std::getenv("GPUSCALE_REQUIRE_MLPERF");
  if (!fs::is_directory(mlperf / "systems")) {
    if (require && std::string(require) == "1")
      FAIL("MLPerf system descriptions not found at " << (mlperf / "systems").string()
                                                       << " (GPUSCALE_REQUIRE_MLPERF=1; set GPUSCALE_MLPERF_DIR)");
    WARN("skipped: MLPerf system descriptions not found at " << (mlperf / "systems").string()
                                                             << "; set GPUSCALE_MLPERF_DIR to check them");
    return;
  }
  int checked = 0;
  check_systems_under(mlperf / "systems", checked);
  CHECK(checked > 100);
}

TEST_CASE("config::identify_accelerator reads descriptions as users write them", "[config]")
{
  CHECK(identified("AMD Instinct MI300X 192GB HBM3") == "mi300x");
  CHECK(identified("AMD Instinct MI325X 256GB HBM3e") == "mi325x");
  CHECK(identified("NVIDIA Blackwell GPU (GB200)") == "gb200");
  CHECK(identified("NVIDIA B200") == "b200-sxm-180gb");
  CHECK(identified("NVIDIA H100 80GB HBM3") == "h100-sxm5-80gb"); // HBM3: the SXM5 board (the PCIe card has HBM2e)
  CHECK(identified("NVIDIA H200-NVL-141GB") == "h200-nvl-141gb");
  // Case, spacing, punctuation and word order.
  CHECK(identified("80GB hbm3 h100 NVIDIA") == "h100-sxm5-80gb");
  CHECK(identified("nvidia   h200_sxm 141 GB") == "h200-sxm-141gb");
  CHECK(identified("NVIDIA H200") == "h200-sxm-141gb"); // the NVL card also is PCIe: fewer unstated form factors wins
  CHECK(identified("NVIDIA H100 PCIe") == "h100-pcie-80gb");
  CHECK(identified("NVIDIA H100 NVL") == "h100-nvl-94gb");
  CHECK(identified("NVIDIA A100 40GB") == "a100-sxm4-40gb");
  CHECK(identified("nvidia a100 pcie") == "a100-pcie-80gb");
  CHECK(identified("AMD MI355X") == "mi355x");
  CHECK(identified("AMD Instinct MI 300X") == "mi300x");
  CHECK(identified("Intel Gaudi 3") == "gaudi3");
  CHECK(identified("Intel(R) Gaudi(R) 3 AI Accelerator") == "gaudi3");
  CHECK(identified("habana gaudi2 HL-225H") == "gaudi2");
  CHECK(identified("Google TPU v6e") == "tpu-v6e");
  CHECK(identified("TPU Trillium") == "tpu-v6e");
  CHECK(identified("Cloud TPU v5e") == "tpu-v5e");
  CHECK(identified("TPU v5p") == "tpu-v5p");
  CHECK(identified("NVIDIA L40S 48GB") == "l40s");
  CHECK(identified("NVIDIA Tesla V100 SXM2 32GB") == "v100-sxm2-32gb");
  // Parts without MLPerf Training results in shared/ (v3.0-v4.1), as their makers name them.
  CHECK(identified("NVIDIA GH200 96GB HBM3") == "gh200-96gb");
  CHECK(identified("NVIDIA GH200 Grace Hopper Superchip", "144 GB") == "gh200-144gb");
  CHECK(identified("NVIDIA B300") == "b300-sxm-288gb");
  CHECK(identified("NVIDIA B300-SXM-270GB") == "b300-sxm-288gb"); // within the 10 % of a size written otherwise
  CHECK(identified("NVIDIA Blackwell Ultra GPU (GB300)") == "gb300");
  CHECK(identified("NVIDIA RTX PRO 6000 Blackwell Server Edition") == "rtx-pro-6000-blackwell");
  CHECK(identified("NVIDIA GeForce RTX 5090") == "rtx-5090");
  // The separate memory field counts when the name states no size.
  CHECK(identified("NVIDIA H100 SXM", "81559 MiB") == "h100-sxm5-80gb");
  CHECK(identified("NVIDIA H100 SXM", "96 GB") == "h100-sxm5-96gb");
}

TEST_CASE("config::identify_accelerator sets aside a memory field that contradicts the one entry the name denotes",
          "[config]")
{
  const auto gb200 = config::identify_accelerator(catalog(), "NVIDIA Blackwell GPU (GB200)", "143771 MiB");
  CHECK(gb200.gpu_type == "gb200");
  CHECK(gb200.note == "accelerator_memory_capacity '143771 MiB' fits no catalog entry that 'NVIDIA Blackwell GPU (GB200)' "
                      "may denote; 'NVIDIA Blackwell GPU (GB200)' names gb200 alone, whose catalog memory (186 GB) is used: "
                      "check the description's memory field");
  CHECK(config::identify_accelerator(catalog(), "NVIDIA Blackwell GPU (GB200)", "189471 MiB").note.empty());
  // A size in the name itself is never set aside, nor one that leaves several entries of the part.
  CHECK(identified("NVIDIA GB200 140GB").starts_with("error: unknown accelerator"));
  CHECK(identified("NVIDIA A100", "48 GB").starts_with("error: unknown accelerator 'NVIDIA A100': no catalog entry"));
}

TEST_CASE("config::identify_accelerator refuses ambiguous and unknown parts listing candidates", "[config]")
{
  CHECK(identified("NVIDIA H100") ==
        "error: ambiguous accelerator 'NVIDIA H100': 3 catalog entries match it equally (h100-pcie-80gb, "
        "h100-sxm5-80gb, h100-sxm5-96gb); state the form factor (SXM, PCIe, NVL) or the memory size");
  CHECK(identified("NVIDIA H100 SXM") ==
        "error: ambiguous accelerator 'NVIDIA H100 SXM': 2 catalog entries match it equally (h100-sxm5-80gb, "
        "h100-sxm5-96gb); state the form factor (SXM, PCIe, NVL) or the memory size");
  CHECK(identified("NVIDIA GH200") ==
        "error: ambiguous accelerator 'NVIDIA GH200': 2 catalog entries match it equally (gh200-144gb, gh200-96gb); "
        "state the form factor (SXM, PCIe, NVL) or the memory size");
  CHECK(identified("NVIDIA A100 48GB") ==
        "error: unknown accelerator 'NVIDIA A100 48GB': no catalog entry of its part number has the form factor, "
        "memory size and memory type it states (catalog entries of that part: a100-pcie-80gb, a100-sxm4-40gb, "
        "a100-sxm4-80gb; add it with --catalog FILE)");
  CHECK(identified("NVIDIA H300 SXM") ==
        "error: unknown accelerator 'NVIDIA H300 SXM': no catalog entry has part number 'h300' (closest catalog "
        "entries: b300-sxm-288gb, h100-nvl-94gb, h100-pcie-80gb, h100-sxm5-80gb, h100-sxm5-96gb; add it with "
        "--catalog FILE)");
  CHECK(identified("Acme TensorBlaster") ==
        "error: unknown accelerator 'Acme TensorBlaster': it names no part number (closest catalog entries: "
        "a100-pcie-80gb, a100-sxm4-40gb, a100-sxm4-80gb, a10g, a30; add it with --catalog FILE)");
}

TEST_CASE("config::map_mlperf_system locates an ambiguous accelerator at accelerator_model_name", "[config]")
{
  const std::string path = kSource + "/tests/data/mlperf/invalid_ambiguous_accelerator.json";
  CHECK_THROWS_WITH(config::map_mlperf_system(config::read_mlperf_system(path),
                                              config::read_platform(kSource + "/calibration/catalog.yaml")),
                    path + ":5:31: error: /accelerator_model_name: ambiguous accelerator 'NVIDIA H100': 3 catalog "
                           "entries match it equally (h100-pcie-80gb, h100-sxm5-80gb, h100-sxm5-96gb); state the "
                           "form factor (SXM, PCIe, NVL) or the memory size");
}
