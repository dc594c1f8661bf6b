#include "sim/results/MlperfTables.hpp"

#include "sim/results/Hdf5Table.hpp"

#include <hdf5.h>

namespace gpuscale::results {
namespace {

using R = MlperfRunRow;
using S = MlperfScoreRow;

const std::vector<TableColumn<R>>& run_columns()
{
  static const std::vector<TableColumn<R>> columns{
      text_field<R>("round", &R::round, 16),
      text_field<R>("submitter", &R::submitter, 64),
      text_field<R>("system", &R::system, 128),
      text_field<R>("benchmark", &R::benchmark, 32),
      text_field<R>("result_file", &R::result_file, 96),
      text_field<R>("status", &R::status, 16),
      text_field<R>("problem", &R::problem, 384),
      real_field<R>("run_start_ms", &R::run_start_ms),
      real_field<R>("run_stop_ms", &R::run_stop_ms),
      real_field<R>("first_block_ms", &R::first_block_ms),
      real_field<R>("run_minutes", &R::run_minutes),
      int_field<R>("global_batch_size", &R::global_batch_size),
      real_field<R>("seed", &R::seed),
      real_field<R>("samples_to_converge", &R::samples_to_converge),
      real_field<R>("epochs_to_converge", &R::epochs_to_converge),
      real_field<R>("samples_processed", &R::samples_processed),
      real_field<R>("throughput_samples_per_s", &R::throughput_samples_per_s),
      real_field<R>("training_rate_samples_per_s", &R::training_rate_samples_per_s),
  };
  return columns;
}

const std::vector<TableColumn<S>>& score_columns()
{
  static const std::vector<TableColumn<S>> columns{
      text_field<S>("round", &S::round, 16),
      text_field<S>("submitter", &S::submitter, 64),
      text_field<S>("system", &S::system, 128),
      text_field<S>("division", &S::division, 16),
      text_field<S>("status", &S::status, 16),
      text_field<S>("accelerator_model", &S::accelerator_model, 96),
      text_field<S>("accelerator_catalog", &S::accelerator_catalog, 32),
      int_field<S>("accelerators_total", &S::accelerators_total),
      int_field<S>("nodes", &S::nodes),
      int_field<S>("accelerators_per_node", &S::accelerators_per_node),
      text_field<S>("accelerator_memory", &S::accelerator_memory, 32),
      text_field<S>("host_cpu", &S::host_cpu, 96),
      int_field<S>("host_cores_total", &S::host_cores_total),
      text_field<S>("interconnect", &S::interconnect, 128),
      text_field<S>("host_networking", &S::host_networking, 192),
      text_field<S>("framework", &S::framework, 96),
      text_field<S>("benchmark", &S::benchmark, 32),
      int_field<S>("global_batch_size", &S::global_batch_size),
      int_field<S>("n_runs", &S::n_runs),
      int_field<S>("n_converged", &S::n_converged),
      real_field<S>("score_minutes", &S::score_minutes),
      real_field<S>("rcp_scaling_factor", &S::rcp_scaling_factor),
      real_field<S>("score_minutes_scaled", &S::score_minutes_scaled),
      real_field<S>("median_run_minutes", &S::median_run_minutes),
      real_field<S>("mean_samples_to_converge", &S::mean_samples_to_converge),
      real_field<S>("mean_epochs_to_converge", &S::mean_epochs_to_converge),
      real_field<S>("mean_throughput_samples_per_s", &S::mean_throughput_samples_per_s),
  };
  return columns;
}

} // namespace

void write_mlperf_tables(const std::string& path, const std::vector<MlperfRunRow>& runs,
                         const std::vector<MlperfScoreRow>& scores, const std::string& gpuscale_version)
{
  write_tables(path,
               {pack_table("mlperf_runs", "MLPerf Training result logs", run_columns(), runs),
                pack_table("mlperf_scores", "MLPerf Training scores", score_columns(), scores)},
               kMlperfSchemaVersion, gpuscale_version);
}

std::vector<MlperfRunRow> read_mlperf_runs(const std::string& path)
{
  return unpack_table(read_table(path, "mlperf_runs", table_layout(run_columns())), run_columns());
}

std::vector<MlperfScoreRow> read_mlperf_scores(const std::string& path)
{
  return unpack_table(read_table(path, "mlperf_scores", table_layout(score_columns())), score_columns());
}

std::vector<std::string> mlperf_run_column_names()
{
  std::vector<std::string> names;
  for (const auto& c : run_columns())
    names.emplace_back(c.name);
  return names;
}

std::vector<std::string> mlperf_score_column_names()
{
  std::vector<std::string> names;
  for (const auto& c : score_columns())
    names.emplace_back(c.name);
  return names;
}

bool has_mlperf_scores(const std::string& path)
{
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  if (H5Fis_hdf5(path.c_str()) <= 0)
    return false;
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0)
    return false;
  const bool found = H5Lexists(file, "mlperf_scores", H5P_DEFAULT) > 0;
  H5Fclose(file);
  return found;
}

} // namespace gpuscale::results
