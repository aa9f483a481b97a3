#!/usr/bin/env bash
# The spin budget and barrier sweep behind the defaults of CCMPI_SPIN_US and the one-host
# barrier rule (docs/results/osu-coll/spin.md): OSU 8 B latency of bcast, allreduce,
# alltoall, allgather and barrier at 4 and 16 ranks on this machine, ccmpi with
# CCMPI_SPIN_US = default, 0, 50, 100, 200 (bcast and barrier also with each barrier
# algorithm) against Open MPI over TCP, REPS times in alternation. Prints
# "rep ranks test variant usec" lines, then a Markdown table of the medians.
#
# Usage: bench/osu-coll/spin.sh BUILD_DIR OSU_BUILDS   (OSU_BUILDS as for run.sh)
# Environment: REPS [3], ITERS [1000], RANKS ["4 16"], SPINS ["auto 0 50 100 200"].
set -u -o pipefail
build=${1:?usage: spin.sh BUILD_DIR OSU_BUILDS}
osu=${2:?usage: spin.sh BUILD_DIR OSU_BUILDS}
reps=${REPS:-3}
iters=${ITERS:-1000}
ranks=${RANKS:-"4 16"}
spins=${SPINS:-"auto 0 50 100 200"}
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
latency() { # TEST CMD... -> OSU's 8 B (or barrier) latency
  local t=$1
  shift
  timeout 120 "$@" | awk -v t="$t" 't == "barrier" && NF == 1 && $1 ~ /^[0-9.]+$/ { print $1 }
    t != "barrier" && $1 == 8 { print $2 }' | head -n1
}
for ((rep = 1; rep <= reps; rep++)); do
  for np in $ranks; do
    for t in bcast allreduce alltoall allgather barrier; do
      args=(-i "$iters" -x $((iters / 10)))
      [ "$t" = barrier ] || args=(-m 8:8 "${args[@]}")
      for s in $spins; do
        for bar in dissemination tree; do
          [ "$bar" = tree ] && [ "$t" != bcast ] && [ "$t" != barrier ] && continue
          e=("CCMPI_BARRIER_ALGORITHM=$bar")
          [ "$s" = auto ] || e+=("CCMPI_SPIN_US=$s")
          v=$(latency "$t" env "${e[@]}" "$build/bin/mpirun" -n "$np" \
            "$osu/ccmpi/c/mpi/collective/blocking/osu_$t" "${args[@]}")
          echo "$rep $np $t ccmpi-spin$s-$bar $v" | tee -a "$raw"
        done
      done
      v=$(latency "$t" mpirun.openmpi --allow-run-as-root --mca btl tcp,self \
        --mca mpi_yield_when_idle 1 --oversubscribe -n "$np" \
        "$osu/openmpi/c/mpi/collective/blocking/osu_$t" "${args[@]}")
      echo "$rep $np $t openmpi $v" | tee -a "$raw"
    done
  done
done
python3 - "$raw" <<'PY'
import collections, statistics, sys
v = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 5:
        v[(int(f[1]), f[2], f[3])].append(float(f[4]))
print("\n| ranks | test | variant | median us | runs |\n|---:|---|---|---:|---|")
for k in sorted(v):
    print("| %d | %s | %s | %.1f | %s |" % (k[0], k[1], k[2], statistics.median(v[k]),
                                        " ".join("%.1f" % x for x in v[k])))
PY
