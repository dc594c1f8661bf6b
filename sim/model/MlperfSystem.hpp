#pragma once
/// An MLPerf Training system description (<submitter>/systems/<system>.json), the fields gpuscale
/// uses, as the submitter wrote them. Strings stay strings: the JSON holds numbers as text
/// ("8", "183359 MiB") and sometimes free text where a number belongs.

#include <string>

namespace gpuscale::model {

struct MlperfSystem {
  std::string file;        ///< where it was read from
  std::string submitter;
  std::string system_name;
  std::string division;    ///< closed | open
  std::string status;      ///< available | preview | research (as written)
  int number_of_nodes = 0;
  int accelerators_per_node = 0; ///< 0 for CPU-only systems
  std::string accelerator_model_name;
  int accelerator_model_line = 0;   ///< 1-based position of accelerator_model_name in `file` (0: unknown)
  int accelerator_model_column = 0;
  std::string accelerator_memory_capacity; ///< e.g. "81559 MiB", "80 GB"
  std::string accelerator_interconnect;    ///< e.g. "NVLINK Gen4 900 GB/s + NVSWITCH Gen3"
  std::string host_networking;             ///< e.g. "8x ConnectX-7 IB NDR 400Gb/Sec"
  std::string host_processor_model_name;
  int host_processor_core_count = 0;       ///< per processor; 0 when not a number
  int host_processors_per_node = 0;        ///< 0 when not a number
  std::string framework;

  int accelerators_total() const { return number_of_nodes * accelerators_per_node; }
};

} // namespace gpuscale::model
