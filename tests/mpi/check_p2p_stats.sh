#!/usr/bin/env bash
# check_p2p_stats.sh pulled|none NP -- mpirun args...
# Runs the job with CCMPI_P2P_STATS=1 and checks that it passed and that each of its NP
# ranks printed its counters with cma_pulled > 0 (pulled) or = 0 (none).
set -u
mode=$1 np=$2
shift 3
out=$(mktemp)
trap 'rm -f "$out"' EXIT
CCMPI_P2P_STATS=1 timeout 120 "$@" >"$out" 2>&1
rc=$?
cat "$out"
[ "$rc" -eq 0 ] || { echo "FAIL: the job exited $rc"; exit 1; }
lines=$(grep -c '^ccmpi-p2p: ' "$out")
[ "$lines" -eq "$np" ] || { echo "FAIL: $lines counter lines, expected $np"; exit 1; }
bad=$(sed -n 's/^ccmpi-p2p: rank=\([0-9]*\) .*cma_pulled=\([0-9]*\).*/\1 \2/p' "$out" |
      awk -v m="$mode" '(m == "pulled" && $2 == 0) || (m == "none" && $2 != 0) {print "rank " $1 ": cma_pulled=" $2}')
[ -z "$bad" ] || { echo "FAIL ($mode): $bad"; exit 1; }
echo "PASS ($mode)"
