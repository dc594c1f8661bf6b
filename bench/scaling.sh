#!/usr/bin/env bash
# Wall time of one simulated step against GPU count, for a benchmark scenario whose `gpus` and
# `global_batch_size` are rewritten (global batch = per-GPU batch x GPUs). Prints a Markdown table.
# Usage: bench/scaling.sh SCENARIO PER_GPU_BATCH "8 64 512 ..." [extra key: value lines...]
# e.g.   bench/scaling.sh bench/resnet50-ddp-4096gpu.yaml 16 "8 64 512 4096"
set -euo pipefail
cd "$(dirname "$0")/.."
scenario=$1 per_gpu=$2 counts=$3
shift 3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dir=$(cd "$(dirname "$scenario")" && pwd)
echo "| GPUs | simulated step | time to train | wall time | CPU time (user+sys) | peak RSS |"
echo "|---:|---:|---:|---:|---:|---:|"
for n in $counts; do
  file="$tmp/s$n.yaml"
  # Absolute paths, so the copy resolves its platform and workload as the original does.
  sed -e "s|^\(  gpus:\).*|\1 $n|" -e "s|^\(  global_batch_size:\).*|\1 $((n * per_gpu))|" \
      -e "s|\(  platform: \)\(.*\)|\1$dir/\2|" -e "s|\(  workload: \)\(.*\)|\1$dir/\2|" "$scenario" > "$file"
  for line in "$@"; do
    key=${line%%:*}
    sed -i "/^  $key:/d" "$file"
    echo "  $line" >> "$file"
  done
  out=$( { /usr/bin/time -f "TIME %e %M %U %S" "${GPUSCALE_BIN:-build/gpuscale}" run "$file" > "$tmp/out"; } 2>&1 ) || { echo "| $n | failed: $(tail -1 <<<"$out") | | | | |"; continue; }
  read -r _ seconds kib user sys <<<"$(grep '^TIME' <<<"$out")"
  step=$(grep -m1 '^iteration' "$tmp/out" | awk '{print $2, $3}')
  [[ -n $step ]] || step=$(grep -m1 'INFEASIBLE' "$tmp/out" | cut -c1-40)
  ttt=$(grep -m1 '^time to train' "$tmp/out" | awk '{print $4, "min"}')
  echo "| $n | $step | ${ttt:--} | $seconds s | $(awk "BEGIN{print $user + $sys}") s | $((kib / 1024)) MiB |"
done
