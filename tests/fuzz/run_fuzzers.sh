#!/usr/bin/env bash
# Builds the libFuzzer targets (clang-14, ASan + UBSan) and runs each one on a seed corpus made from
# the shipped inputs and the bad-input tables. Any crash, sanitizer report, leak, uncaught exception,
# hang (> 20 s on one input) or memory blow-up (> 2.5 GB) is a finding: it is saved under
# $BUILD/fuzz/findings/ and the script exits 1.
#
#   tests/fuzz/run_fuzzers.sh [SECONDS] [TARGET...]     (also: ./run fuzz [SECONDS])
#
# SECONDS (default 60) is shared between the targets (at least 5 s each). Targets: platform workload
# scenario sweep convergence host_input calibration rcp mlperf_system mlperf_log mlperf_scaling check. The corpus each target
# grows is kept in $BUILD/fuzz/corpus/<target> and reused by the next run.
# Environment: GPUSCALE_FUZZ_BUILD (default build-fuzz), GPUSCALE_MLPERF_DIR (default ../shared/mlperf),
# GPUSCALE_FUZZ_JOBS (build parallelism, default 1).
set -euo pipefail
cd "$(dirname "$0")/../.."
source_dir=$(pwd)

seconds=${1:-60}
shift || true
all_targets=(platform workload scenario sweep convergence host_input calibration rcp mlperf_system mlperf_log mlperf_scaling
             check)
targets=("$@")
((${#targets[@]} > 0)) || targets=("${all_targets[@]}")
build=${GPUSCALE_FUZZ_BUILD:-build-fuzz}
mlperf=${GPUSCALE_MLPERF_DIR:-$source_dir/../shared/mlperf}

mkdir -p "$build"
# A new tree builds the fuzz targets and what they link; one `./run sanitize` configured (tests included)
# keeps its tests.
testing=()
[[ -f "$build/CMakeCache.txt" ]] || testing=(-DBUILD_TESTING=OFF)
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
      -DGPUSCALE_FUZZ=ON "${testing[@]}" >"$build/configure.log" 2>&1 ||
  { cat "$build/configure.log"; exit 1; }
cmake --build "$build" --target gpuscale_fuzzers -j"${GPUSCALE_FUZZ_JOBS:-1}"

# Seed files of each target (globs relative to the source tree; missing ones are skipped).
seeds_of() {
  case "$1" in
    platform) echo platforms/*.yaml platforms/catalog/*.yaml tests/data/invalid/platforms/* ;;
    workload) echo workloads/*.yaml bench/workloads/*.yaml tests/data/invalid/workloads/* ;;
    scenario) echo scenarios/*.yaml scenarios/*/*.yaml bench/*.yaml tests/data/invalid/scenarios/* ;;
    sweep) echo scenarios/*sweep*.yaml tests/data/invalid/sweeps/* ;;
    convergence) echo workloads/convergence/*.yaml tests/data/convergence/*.yaml tests/data/convergence/invalid/* \
                      tests/data/invalid/convergence/* ;;
    host_input) echo workloads/host_input/*.yaml tests/data/host_input/invalid/* tests/data/invalid/host_input/* ;;
    calibration) echo calibration/*.yaml ;;
    rcp) echo tests/data/convergence/*.json tests/data/invalid/rcp/*.json "$mlperf"/rcps/training_4.1.0/*.json ;;
    mlperf_system) echo tests/data/invalid/mlperf_systems/*.json $(ls "$mlperf"/systems/*/*.json 2>/dev/null | head -40) ;;
    mlperf_log) echo tests/data/invalid/mlperf_logs/* $(ls "$mlperf"/results/v4.1/*/*/result_0.txt 2>/dev/null | head -20) ;;
    mlperf_scaling) echo tests/data/mlperf/scores_calibration.csv tests/data/mlperf/upstream/*/*/results/*/*/scaling.json \
                         "$mlperf"/scores_calibration.csv ;;
    check) echo platforms/dgx-a100-1node.yaml platforms/catalog/node_types.yaml workloads/resnet50.yaml \
                scenarios/default.yaml workloads/convergence/bert.yaml workloads/host_input/host_input.yaml \
                tests/data/kernel_timings/*.yaml \
                tests/data/invalid/*/*.yaml tests/data/invalid/mlperf_logs/* ;;
    *) echo "fuzz: unknown target '$1' (known: ${all_targets[*]})" >&2; exit 2 ;;
  esac
}

per_target=$((seconds / ${#targets[@]}))
((per_target >= 5)) || per_target=5
mkdir -p "$build/fuzz/findings"
total=0
findings=0
for target in "${targets[@]}"; do
  seeds="$build/fuzz/seeds/$target"
  corpus="$build/fuzz/corpus/$target"
  rm -rf "$seeds"
  mkdir -p "$seeds" "$corpus"
  for file in $(seeds_of "$target"); do
    [[ -f "$file" && "$file" != *.expect ]] && cp "$file" "$seeds/$(echo "$file" | tr '/' '_')"
  done
  max_len=65536
  [[ "$target" == workload ]] && max_len=300000
  log="$build/fuzz/$target.log"
  status=0
  "$build/fuzz/fuzz_$target" -max_total_time="$per_target" -timeout=20 -rss_limit_mb=2560 -max_len="$max_len" \
    -print_final_stats=1 -artifact_prefix="$build/fuzz/findings/$target-" "$corpus" "$seeds" >"$log" 2>&1 &
  pid=$!
  wait "$pid" || status=$?
  rm -rf "/dev/shm/gpuscale-fuzz-$pid" "${TMPDIR:-/tmp}/gpuscale-fuzz-$pid" # left behind when the target crashed
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  runs=${runs:-0}
  total=$((total + runs))
  if ((status != 0)); then
    findings=$((findings + 1))
    echo "fuzz: $target: FINDING after $runs executions (exit $status); log $log, input in $build/fuzz/findings/:"
    grep -E "ERROR|SUMMARY|runtime error|terminate|Test unit written" "$log" | head -20
  else
    echo "fuzz: $target: $runs executions in ${per_target} s, corpus $(ls "$corpus" | wc -l) inputs, no finding"
  fi
done
echo "fuzz: $total executions over ${#targets[@]} target(s), $findings finding(s)"
echo "fuzz: $((${#targets[@]} - findings)) passed, $findings failed"
((findings == 0))
