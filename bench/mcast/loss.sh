#!/usr/bin/env bash
# Reliable multicast under loss, duplication and reordering at scale (issue 6): on an
# emulated cluster of HOSTS hosts (100 Mbit/s) whose every cable loses, duplicates and
# reorders packets (netem, or the BPF filter where the kernel has no netem), OPS
# multicast Bcasts and OPS multicast Scatters (tests/mpi/mcast_bcast.c, "loss OPS
# scatter": every byte of every operation checked), then about OPS multicast Scatterv
# calls with the static, dynamic and compiler-assisted groups (tests/mpi/mcast_scatterv.c,
# every byte checked; the compiler-assisted data by multicast at every block size,
# CCMPI_MPIX_SCATTERV_DATA=mcast). A run that does not finish within TIMEOUT seconds counts as a hang.
# Writes docs/results/mcast-loss/README.md and results.csv.
#
# Usage (root): bench/mcast/loss.sh [BUILD_DIR]    (default ./build)
# Environment: HOSTS [8], OPS [10000], TIMEOUT [2400], SPECS ["1% 1% 1%;5% 1% 1%": loss,
# duplication, reordering per cable direction], OUT_DIR [<repo>/docs/results/mcast-loss],
# PROGS ["bcast scatterv": which of the two programs run].
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$repo/build}" && pwd)
hosts=${HOSTS:-8}
ops=${OPS:-10000}
timeout_s=${TIMEOUT:-2400}
specs=${SPECS:-"1% 1% 1%;5% 1% 1%"}
progs=${PROGS:-"bcast scatterv"}
for p in $progs; do
  case $p in bcast | scatterv) ;; *) echo "loss.sh: PROGS: '$p' is not bcast or scatterv" >&2; exit 2 ;; esac
done
out=${OUT_DIR:-$repo/docs/results/mcast-loss}
cluster=$build/bin/ccmpi-cluster
mpirun=$build/bin/mpirun
bcast_prog=$build/tests/mpi/mpitest_mcast_bcast
scatterv_prog=$build/tests/mpi/mpitest_mcast_scatterv
for f in "$cluster" "$mpirun" "$bcast_prog" "$scatterv_prog"; do
  [ -x "$f" ] || { echo "loss.sh: $f not built (ninja -C $build)" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "loss.sh: needs root (network namespaces)" >&2; exit 1; }
work=$(mktemp -d)
name=mloss$$
run_pid=''
# shellcheck disable=SC2317 # called by the trap
cleanup() {
  # The run in progress (its `timeout` stops mpirun, which stops the ranks), then the cluster.
  if [ -n "$run_pid" ]; then
    kill -TERM "$run_pid" 2>/dev/null
    wait "$run_pid" 2>/dev/null
  fi
  "$cluster" down --name "$name" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
# Scatterv: the program's iteration count N gives N/4+1 static, N/4+1 dynamic and 3N
# compiler-assisted calls; N = OPS*2/7 makes about OPS in all.
scatterv_iters=$((ops * 2 / 7))
started=$(date -u '+%Y-%m-%d %H:%M UTC')
mkdir -p "$out"
rm -f "$out"/failed-*.log
echo "spec,hosts,program,operations,multicast,result,seconds,naks,repaired_bytes" >"$work/results.csv"
IFS=';' read -r -a spec_list <<<"$specs"
for spec in "${spec_list[@]}"; do
  read -r loss dup reorder <<<"$spec"
  "$cluster" down --name "$name" >/dev/null 2>&1
  hostfile=$("$cluster" up --hosts "$hosts" --rate 100mbit --loss "$loss" --dup "$dup" \
    --reorder "$reorder" --name "$name" --owner $$ 2>"$work/up.err" | tail -n1)
  [ -r "$hostfile" ] || { cat "$work/up.err" >&2; echo "loss.sh: cluster up failed" >&2; exit 1; }
  for prog in $progs; do
    if [ "$prog" = bcast ]; then
      cmd=("$mpirun" --hostfile "$hostfile" --launcher "$cluster exec --name $name" --iface r0
        -n "$hosts" --env CCMPI_BCAST_ALGORITHM=mcast --env CCMPI_SCATTER_ALGORITHM=mcast
        "$bcast_prog" loss "$ops" scatter)
      what="$ops Bcast + $ops Scatter"
      n_ops=$((2 * ops))
    else
      cmd=("$mpirun" --hostfile "$hostfile" --launcher "$cluster exec --name $name" --iface r0
        -n "$hosts" --env CCMPI_MPIX_SCATTERV_DATA=mcast "$scatterv_prog" "$scatterv_iters" lossy)
      n_ops=$(((scatterv_iters / 4 + 1) * 2 + 3 * scatterv_iters))
      what="$n_ops Scatterv (static, dynamic, compiler-assisted)"
    fi
    echo "loss $loss dup $dup reorder $reorder on $hosts hosts: $what" >&2
    t0=$(date +%s.%N)
    # In the background, so that a signal to this script is handled at once.
    timeout -k 10 "$timeout_s" "${cmd[@]}" >"$work/run.out" 2>&1 &
    run_pid=$!
    wait "$run_pid"
    rc=$?
    run_pid=''
    # A failed run's output is kept for the README.
    [ "$rc" = 0 ] || cp "$work/run.out" "$out/failed-$prog-loss${loss%\%}.log"
    t1=$(date +%s.%N)
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }')
    if [ "$rc" = 0 ] && grep -q "^PASS mcast_$prog" "$work/run.out"; then
      result=PASS
    elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
      result="HANG (killed after ${timeout_s} s)"
    else
      result="FAIL (exit $rc: $(grep -m1 -iE 'fail|wrong|error|byte' "$work/run.out" | tr ',' ' ' | cut -c1-120))"
    fi
    # The agreement turns multicast off on a communicator when its probe does not reach
    # every rank by multicast (at 5% loss a member's lost IGMP join can do that): the
    # operations then ran over TCP, correct but not a test of the multicast path.
    # (Only the job-wide communicator counts: mcast_bcast also uses a half-size one.)
    if grep -q "multicast collectives off on a communicator of $hosts ranks" "$work/run.out"; then
      mc=off
    else
      mc=on
    fi
    naks=$(sed -n 's/.*naks \([0-9]*\),.*/\1/p' "$work/run.out" | head -n1)
    rep=$(sed -n 's/.*repaired \([0-9]*\) bytes.*/\1/p' "$work/run.out" | head -n1)
    echo "  $result, ${secs} s, multicast $mc" >&2
    echo "loss $loss dup $dup reorder $reorder,$hosts,$prog,$n_ops,$mc,$result,$secs,${naks:-},${rep:-}" >>"$work/results.csv"
  done
  "$cluster" down --name "$name" >/dev/null 2>&1
done
left=$(ip netns list 2>/dev/null | grep -c "ccmpi-$name-" || true)
mkdir -p "$out"
cp "$work/results.csv" "$out/results.csv"
{
  echo "# Reliable multicast under loss, duplication and reordering"
  echo
  echo "Generated by \`bench/mcast/loss.sh\` on $started: $hosts emulated hosts at 100 Mbit/s"
  echo "(\`ccmpi-cluster up --loss L --dup D --reorder R\`: every direction of every cable)."
  echo "Every byte of every operation is checked by the programs"
  echo "(tests/mpi/mcast_bcast.c \`loss N scatter\` with \`CCMPI_BCAST_ALGORITHM=mcast\` and"
  echo "\`CCMPI_SCATTER_ALGORITHM=mcast\`; tests/mpi/mcast_scatterv.c with the static, dynamic and"
  echo "compiler-assisted groups). A run not finished within $timeout_s s would be a hang."
  echo
  echo "| network | program | operations | multicast | result | seconds | NAKs | bytes repaired |"
  echo "| --- | --- | ---: | --- | --- | ---: | ---: | ---: |"
  tail -n +2 "$work/results.csv" | while IFS=, read -r sp _ prog n mc res secs naks rep; do
    echo "| $sp | $prog | $n | $mc | $res | $secs | $naks | $rep |"
  done
  echo
  echo "NAKs and bytes repaired: summed over the ranks (mcast_bcast's counters; mcast_scatterv"
  echo "does not print them). multicast off: the job-wide communicator's probe did not reach"
  echo "every rank by multicast (e.g. a member's IGMP join was lost), so its operations ran over"
  echo "TCP."
  echo "Namespaces left after the run: $left."
  echo
  echo "Command: \`HOSTS=$hosts OPS=$ops SPECS=\"$specs\" PROGS=\"$progs\" bench/mcast/loss.sh\` (as root)."
} >"$out/README.md"
cat "$out/README.md"
grep -q "HANG\|FAIL" "$work/results.csv" && exit 1
exit 0
