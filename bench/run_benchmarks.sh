#!/usr/bin/env bash
# Times gpuscale on the benchmark scenarios in bench/ (whole process, best of N runs) and prints a
# Markdown table. Usage: bench/run_benchmarks.sh [RUNS] [SCENARIO...]   (default: 3 runs, every bench/*.yaml)
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-3}"
shift || true
scenarios=("$@")
((${#scenarios[@]} > 0)) || scenarios=(bench/*.yaml)
gpuscale=${GPUSCALE_BIN:-build/gpuscale}
[[ -x $gpuscale ]] || { echo "build first: ./run build" >&2; exit 1; }

echo "| scenario | simulated iteration | wall time (best of $runs) | peak RSS |"
echo "|---|---|---|---|"
for scenario in "${scenarios[@]}"; do
  best=""
  rss=""
  iteration=""
  for ((i = 0; i < runs; ++i)); do
    out=$( { /usr/bin/time -f "TIME %e %M %U %S" "$gpuscale" run "$scenario" >/tmp/gpuscale-bench.$$ ; } 2>&1 )
    read -r _ seconds kib _ _ <<<"$(grep '^TIME' <<<"$out")"
    iteration=$(grep -m1 '^iteration' /tmp/gpuscale-bench.$$ | awk '{print $2, $3}')
    if [[ -z $best ]] || awk "BEGIN{exit !($seconds < $best)}"; then best=$seconds; rss=$kib; fi
  done
  rm -f /tmp/gpuscale-bench.$$
  echo "| $(basename "$scenario" .yaml) | $iteration | ${best} s | $((rss / 1024)) MiB |"
done
