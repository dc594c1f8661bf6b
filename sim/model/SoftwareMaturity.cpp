#include "sim/model/SoftwareMaturity.hpp"

#include <algorithm>
#include <cmath>

namespace gpuscale::model {

double software_maturity(double at_launch, double gap_kept_per_year, double age_years)
{
  return 1.0 - (1.0 - at_launch) * std::pow(gap_kept_per_year, std::max(0.0, age_years));
}

SoftwareDate benchmark_introduced(Benchmark benchmark)
{
  // MLPerf Training rounds, dated as SoftwareDate.hpp dates them (vM.0 May, vM.1 October of 2020 + M;
  // v0.5 was published in December 2018, v0.7 in July 2020).
  switch (benchmark) {
    case Benchmark::Resnet: return software_date_of(2018, 12, 1);
    case Benchmark::Bert: return software_date_of(2020, 7, 1);
    case Benchmark::Retinanet: return *mlperf_round_date("v2.0");
    case Benchmark::StableDiffusion: return *mlperf_round_date("v3.1");
    case Benchmark::Llama2_70bLora: return *mlperf_round_date("v4.0");
  }
  return {};
}

double software_age_years(double date_year, double generation_year, Benchmark benchmark)
{
  const double start = std::max(generation_year, benchmark_introduced(benchmark).year);
  return std::max(0.0, date_year - start);
}

std::string maturity_at_launch_key(Benchmark benchmark)
{
  return "at_launch." + to_string(benchmark);
}

} // namespace gpuscale::model
