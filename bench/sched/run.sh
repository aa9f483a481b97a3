#!/bin/bash
# Scheduling cost: builds bench/sched/sched_cost.cc with src/sched/sched.cc (g++ -O2, no
# CMake target needed), runs it on one core (taskset -c 0) and writes
# docs/results/sched/README.md (the table, with command, machine and date) and
# docs/results/sched/sched_cost.csv. Usage: bench/sched/run.sh [--reps N]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/docs/results/sched
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cxx=${CXX:-g++}
build=("$cxx" -std=c++20 -O2 -I"$root/src" "$root/bench/sched/sched_cost.cc"
  "$root/src/sched/sched.cc" -o "$tmp/sched_cost")
"${build[@]}"
mkdir -p "$out"
load=$(cut -d' ' -f1-3 /proc/loadavg)
rc=0
table=$(taskset -c 0 "$tmp/sched_cost" --csv "$out/sched_cost.csv" "$@") || rc=$?
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git -C "$root" status --porcelain -- src/sched bench/sched 2>/dev/null)" ]; then
  commit="$commit + uncommitted changes in src/sched or bench/sched"
fi
{
  echo "# Scheduling cost"
  echo
  echo "Time to compute a schedule with \`sched::greedy\`, \`sched::allToAllBased\` and"
  echo "\`sched::best\` (both, then the cheaper by the cost model; what the runtime calls)."
  echo "See docs/scheduling.md for what the schedulers do."
  echo
  echo "- command: \`bench/sched/run.sh${*:+ $*}\` (builds \`$cxx -std=c++20 -O2 -Isrc bench/sched/sched_cost.cc src/sched/sched.cc -o sched_cost\`, runs \`taskset -c 0 sched_cost --csv docs/results/sched/sched_cost.csv${*:+ $*}\`)"
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); ccmpi $commit"
  echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores (shared; load average $load before the run), one core used; $(uname -sr); $("$cxx" --version | head -1)"
  echo "- patterns: dense-1024 = every ordered pair of 1024 ranks one message of 100 B, 16 KiB, 64 KiB or 1 MiB (random); sparse-4096 = 16 distinct random destinations per rank on 4096 ranks, same sizes; table3-16 = the paper's random pattern (160 x 64 KiB, 20 x 16 KiB, 60 x 100 B over the 240 pairs of 16 ranks)."
  echo "- small threshold: 4096 is the runtime's default (CCMPI_PHASE_SMALL): messages below it that are left once every larger one is scheduled share one final phase; 0 = every message in a contention-free phase."
  echo "- goals (issue 5): dense-1024 under 200 ms, sparse-4096 under 100 ms, on one core; compared with the fastest of the runs. Estimate: the cost model at 100 Mbit/s and 1 ms a synchronization. Sum of largest: the sum over phases of each phase's largest message."
  echo
  echo "$table"
  echo
  echo "Raw numbers: [sched_cost.csv](sched_cost.csv)."
} >"$out/README.md"
echo "$table"
exit $rc
