#!/bin/bash
# Scheduling cost: builds bench/sched/sched_cost.cc against src/sched (-O2, one core) and
# writes docs/results/sched/README.md. Usage: bench/sched/run.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/docs/results/sched
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
g++ -std=c++20 -O2 -I"$root/src" "$root/bench/sched/sched_cost.cc" "$root/src/sched/sched.cc" \
  -o "$tmp/sched_cost"
mkdir -p "$out"
lines=$(taskset -c 0 "$tmp/sched_cost")
{
  echo "# Scheduling cost"
  echo
  echo "\`bench/sched/run.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC'), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), one core (taskset -c 0), g++ -O2, ccmpi $(git -C "$root" rev-parse --short HEAD)."
  echo "Patterns: dense = every ordered pair of 1024 ranks one message of 100 B, 16 KiB, 64 KiB or 1 MiB; sparse = 16 random destinations per rank on 4096 ranks; cc-mpi-table3 = the paper's random pattern (160 x 64 KiB, 20 x 16 KiB, 60 x 100 B). Small-message threshold 4 KiB. Time: best of 3. Goals (issue 5): dense 1024 under 200 ms, sparse 4096 under 100 ms."
  echo
  echo '```'
  echo "$lines"
  echo '```'
} >"$out/README.md"
echo "$lines"
