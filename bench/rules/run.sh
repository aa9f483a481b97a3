#!/usr/bin/env bash
# Measures every algorithm of the blocking collectives (bench/rules/sweep.c, each one
# forced in turn through the communicator info hint) at several communicator sizes on
# this machine, and derives from the fastest per (collective, ranks, bytes) cell the rule
# table ccmpi uses by default (src/coll/rules.cc; same format as a CCMPI_COLL_RULES file).
#
# Usage: bench/rules/run.sh [BUILD_DIR]
# Environment:
#   RANKS="4 8 16"      communicator sizes measured
#   MAX_BYTES=2097152   largest message (whole buffer or per-rank block)
#   SECONDS_PER_CELL=0.3  time spent timing one (algorithm, size)
#   REPS=3              the whole sweep is repeated; the median per cell is used
#   OUT_DIR=<repo>/docs/results/coll-rules   results.csv, README.md, rules.txt, rules.svg
set -u -o pipefail
script_dir=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$script_dir/../.." && pwd)
build_dir=$(cd "${1:-./build}" 2>/dev/null && pwd) || { echo "run.sh: no build dir" >&2; exit 1; }
RANKS=${RANKS:-"4 8 16"}
MAX_BYTES=${MAX_BYTES:-2097152}
SECONDS_PER_CELL=${SECONDS_PER_CELL:-0.3}
REPS=${REPS:-3}
OUT_DIR=${OUT_DIR:-$repo/docs/results/coll-rules}
[ -x "$build_dir/bin/mpicc" ] || { echo "run.sh: $build_dir/bin/mpicc missing" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build_dir/bin/mpicc" -O2 -o "$work/sweep" "$script_dir/sweep.c" || exit 1
mkdir -p "$OUT_DIR"
raw=$work/raw.csv
echo "rep,collective,ranks,bytes,algorithm,usec" >"$raw"
for rep in $(seq 1 "$REPS"); do
  for n in $RANKS; do
    # a block of MAX_BYTES per rank for alltoall/allgather at 16 ranks is n x that per
    # rank: cap the per-rank block so that a rank's buffers stay near 64 MiB
    cap=$((64 * 1024 * 1024 / n))
    max=$MAX_BYTES
    [ "$max" -gt "$cap" ] && max=$cap
    echo "rep $rep: $n ranks, up to $max bytes" >&2
    timeout 1800 "$build_dir/bin/mpirun" -n "$n" "$work/sweep" "$build_dir/bin/ccmpi_info" \
      "$max" "$SECONDS_PER_CELL" | tail -n +2 | sed "s/^/$rep,/" >>"$raw" ||
      echo "run.sh: the sweep at $n ranks failed" >&2
  done
done
python3 "$script_dir/analyze.py" "$raw" "$OUT_DIR" \
  "bench/rules/run.sh (RANKS=\"$RANKS\" MAX_BYTES=$MAX_BYTES SECONDS_PER_CELL=$SECONDS_PER_CELL REPS=$REPS)"
