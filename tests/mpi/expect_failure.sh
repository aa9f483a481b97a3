#!/usr/bin/env bash
# expect_failure.sh EXIT_CODE MAX_SECONDS REGEX -- mpirun args...
# Runs the job and checks: mpirun exits with EXIT_CODE ("nonzero" for any non-zero)
# within MAX_SECONDS of the failure, its output matches REGEX, and no rank process
# (pids printed as "rank N pid P") survives.
set -u
want=$1 max=$2 regex=$3
shift 4
out=$(mktemp)
trap 'rm -f "$out"' EXIT
start=$(date +%s.%N)
timeout 60 "$@" >"$out" 2>&1
rc=$?
end=$(date +%s.%N)
cat "$out"
elapsed=$(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.2f", b-a}')
if [ "$want" = nonzero ]; then
  [ "$rc" -ne 0 ] || { echo "FAIL: mpirun exited 0"; exit 1; }
else
  [ "$rc" -eq "$want" ] || { echo "FAIL: mpirun exited $rc, expected $want"; exit 1; }
fi
[ "$rc" -ne 124 ] || { echo "FAIL: the job hung"; exit 1; }
# The failing rank sleeps 0.2 s before failing; allow start-up time on top.
if awk -v e="$elapsed" -v m="$max" 'BEGIN{exit !(e>m)}'; then echo "FAIL: took ${elapsed}s (> ${max}s)"; exit 1; fi
grep -Eq "$regex" "$out" || { echo "FAIL: output does not match /$regex/"; exit 1; }
sleep 0.2
for pid in $(sed -n 's/.*rank [0-9]* pid \([0-9]*\).*/\1/p' "$out"); do
  if kill -0 "$pid" 2>/dev/null; then echo "FAIL: rank process $pid survived"; exit 1; fi
done
echo "PASS (rc=$rc, ${elapsed}s)"
