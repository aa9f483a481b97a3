#!/usr/bin/env bash
# check_p2p_stats.sh pulled|none|shm|split NP -- mpirun args...
# Runs the job with CCMPI_P2P_STATS=1 and checks that it passed and that each of its NP
# ranks printed its counters with cma_pulled > 0 (pulled) or = 0 (none); with "shm" also
# cma_pulled > 0, and every frame went through shared memory (shm_frames > 0, no TCP
# connection opened); "split" as "shm", and some transfer was split between the two
# ranks (cma_split > 0).
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
      awk -v m="$mode" '((m == "pulled" || m == "shm" || m == "split") && $2 == 0) || (m == "none" && $2 != 0) {print "rank " $1 ": cma_pulled=" $2}')
[ -z "$bad" ] || { echo "FAIL ($mode): $bad"; exit 1; }
if [ "$mode" = shm ] || [ "$mode" = split ]; then
  bad=$(sed -n 's/^ccmpi-p2p: rank=\([0-9]*\) .*shm_frames=\([0-9]*\) .*tcp_opened=\([0-9]*\).*/\1 \2 \3/p' "$out" |
        awk '$2 == 0 || $3 != 0 {print "rank " $1 ": shm_frames=" $2 " tcp_opened=" $3}')
  [ -z "$bad" ] || { echo "FAIL (shm): $bad"; exit 1; }
fi
if [ "$mode" = split ]; then
  total=$(sed -n 's/^ccmpi-p2p: .*cma_split=\([0-9]*\).*/\1/p' "$out" | awk '{s += $1} END {print s + 0}')
  [ "$total" -gt 0 ] || { echo "FAIL (split): no transfer was split"; exit 1; }
fi
echo "PASS ($mode)"
