#!/bin/bash
# End-to-end tests of mpirun (and of our PMI client under MPICH Hydra), one case per run:
#   launcher_test.sh CASE
# Environment: MPIRUN (our mpirun), PROBE (tests/launcher/pmi_probe), FAKE_AGENT
# (fake_agent.sh: runs the command locally with a fresh environment, as ssh would
# remotely). Every case checks real results: exit status, output, the messages, timing
# of failures, and that no rank process survives.
set -u
CASE="$1"
HERE="$(cd "$(dirname "$0")" && pwd)"
FAKE_AGENT="${FAKE_AGENT:-$HERE/fake_agent.sh}"
AGENT="bash $FAKE_AGENT"
WORK="$(mktemp -d /tmp/ccmpi-launcher-test.XXXXXX)"
BG_PIDS=()
cleanup() {
  for p in "${BG_PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
  # Anything the probe printed as "pid R PID" / "child R PID" must be gone; kill it if not
  # (the test has failed by then anyway).
  if [ -f "$WORK/out" ]; then
    for p in $(awk '$1=="pid"||$1=="child"{print $3}' "$WORK/out" 2>/dev/null); do
      kill -KILL "$p" 2>/dev/null
    done
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

fail() {
  echo "FAIL [$CASE]: $*" >&2
  for f in out err; do
    if [ -f "$WORK/$f" ]; then
      echo "---- $f:" >&2
      head -c 4000 "$WORK/$f" >&2
    fi
  done
  exit 1
}
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# run ARGS...: runs a command with output in $WORK/out and $WORK/err; sets RC and MS.
run() {
  local t0
  t0=$(now_ms)
  "$@" >"$WORK/out" 2>"$WORK/err" </dev/null
  RC=$?
  MS=$(( $(now_ms) - t0 ))
}
expect_rc() { [ "$RC" -eq "$1" ] || fail "exit status $RC, expected $1"; }
expect_out() { grep -qE -- "$1" "$WORK/out" || fail "stdout lacks /$1/"; }
expect_err() { grep -qE -- "$1" "$WORK/err" || fail "stderr lacks /$1/"; }
expect_fast() { [ "$MS" -lt "${1:-2000}" ] || fail "took $MS ms, expected < ${1:-2000} ms"; }
count_out() { grep -cE -- "$1" "$WORK/out"; }

# All pids the probe reported must be gone (waiting up to $1 ms for reparented zombies).
expect_pids_gone() {
  local wait_ms="${1:-0}" pids p alive deadline
  pids=$(awk '$1=="pid"||$1=="child"{print $3}' "$WORK/out")
  [ -n "$pids" ] || fail "the probe reported no pids"
  deadline=$(( $(now_ms) + wait_ms ))
  while :; do
    alive=""
    for p in $pids; do
      if kill -0 "$p" 2>/dev/null && ! grep -q '^Z' <(awk '{print $3}' "/proc/$p/stat" 2>/dev/null); then
        alive="$alive $p"
      fi
    done
    [ -z "$alive" ] && return 0
    [ "$(now_ms)" -ge "$deadline" ] && fail "processes still alive:$alive"
    sleep 0.05
  done
}

# Starts mpirun in the background and waits until the probe reported $1 pid lines.
start_bg() {
  local want="$1"
  shift
  # Created here, not by the background job's redirection: the loop below may look
  # before the job has opened them (a missing file read as "no lines yet" ended the wait).
  : >"$WORK/out"
  : >"$WORK/err"
  "$@" >>"$WORK/out" 2>>"$WORK/err" </dev/null &
  BG=$!
  BG_PIDS+=("$BG")
  local deadline=$(( $(now_ms) + 15000 ))
  while [ "$(count_out '^(pid|child) ')" -lt "$want" ]; do
    [ "$(now_ms)" -ge "$deadline" ] && fail "ranks did not start"
    kill -0 "$BG" 2>/dev/null || fail "mpirun exited early"
    sleep 0.05
  done
}
wait_bg() {
  local t0
  t0=$(now_ms)
  wait "$BG"
  RC=$?
  MS=$(( $(now_ms) - t0 ))
}

check_exchange() {
  local n="$1" r
  expect_rc 0
  [ "$(count_out '^exchange ok')" -eq "$n" ] || fail "expected $n exchange lines"
  for ((r = 0; r < n; r++)); do
    expect_out "^exchange ok rank=$r size=$n "
  done
}

hostfile2() {  # two fake hosts, two slots each
  printf '# fake cluster\nfakeA slots=2\nfakeB:2\n' >"$WORK/hosts"
}

case "$CASE" in
exchange_n1 | exchange_n2 | exchange_n4 | exchange_n8)
  n="${CASE#exchange_n}"
  run "$MPIRUN" -n "$n" "$PROBE" exchange 3
  check_exchange "$n"
  expect_out "appnum=0 universe=$n kvs=ccmpi_[0-9a-f]{16} singleton=0"
  ;;
singleton)
  run env -u PMI_FD -u PMI_PORT -u PMI_RANK -u PMI_SIZE "$PROBE" exchange 2
  check_exchange 1
  expect_out "singleton=1"
  ;;
mpiexec_name)
  run "$(dirname "$MPIRUN")/mpiexec" -np 2 "$PROBE" exchange
  check_exchange 2
  ;;
noinit)
  run "$MPIRUN" -n 3 "$PROBE" noinit
  expect_rc 0
  for r in 0 1 2; do expect_out "^noinit $r$"; done
  ;;
badkey)
  run "$MPIRUN" -n 2 "$PROBE" badkey
  expect_rc 0
  [ "$(count_out '^badkey rank=[01] failures=0$')" -eq 2 ] || fail "bad keys accepted"
  ;;
exit_code)
  run "$MPIRUN" -n 4 "$PROBE" exit 5 2
  expect_rc 5
  expect_fast
  expect_err "^mpirun: rank 2 \(host [^,]+, pid [0-9]+\) exited with code 5; killing the job$"
  [ "$(grep -c '^mpirun:' "$WORK/err")" -eq 1 ] || fail "expected exactly one mpirun line"
  expect_pids_gone
  ;;
exit_after_finalize)
  run "$MPIRUN" -n 3 "$PROBE" exit-finalized 4 1
  expect_rc 4
  expect_err "^mpirun: rank 1 \(host .*\) exited with code 4"
  ;;
segv)
  run "$MPIRUN" -n 4 "$PROBE" segv 3
  expect_rc 139
  expect_fast
  expect_err "^mpirun: rank 3 \(host [^,]+, pid [0-9]+\) was killed by signal 11 \(SIGSEGV\); killing the job$"
  expect_pids_gone
  ;;
abort)
  run "$MPIRUN" -n 3 "$PROBE" abort 7 1
  expect_rc 7
  expect_fast
  expect_err "^mpirun: rank 1 called MPI_Abort with error code 7; killing the job$"
  expect_err "^pmi_probe: rank 1 aborts$"
  expect_pids_gone
  ;;
nofinalize)
  run "$MPIRUN" -n 3 "$PROBE" nofinalize 0
  expect_rc 1
  expect_fast
  expect_err "^mpirun: rank 0 \(host .*\) exited without calling MPI_Finalize"
  expect_pids_gone
  ;;
tag_output)
  run "$MPIRUN" -n 3 --tag-output "$PROBE" lines 5
  expect_rc 0
  [ "$(wc -l <"$WORK/out")" -eq 15 ] || fail "expected 15 stdout lines"
  [ "$(wc -l <"$WORK/err")" -eq 15 ] || fail "expected 15 stderr lines"
  for r in 0 1 2; do
    for i in 0 1 2 3 4; do
      grep -qx "\[1,$r\]<stdout>:line $i of rank $r" "$WORK/out" || fail "missing stdout line $i of $r"
      grep -qx "\[1,$r\]<stderr>:err $i of rank $r" "$WORK/err" || fail "missing stderr line $i of $r"
    done
  done
  ;;
untagged_lines)
  run "$MPIRUN" -n 4 "$PROBE" lines 200
  expect_rc 0
  [ "$(wc -l <"$WORK/out")" -eq 800 ] || fail "expected 800 lines"
  # Every line whole: pieces written separately by different ranks never interleave.
  bad=$(grep -cvE '^line [0-9]+ of rank [0-3]$' "$WORK/out")
  [ "$bad" -eq 0 ] || fail "$bad mixed lines"
  for r in 0 1 2 3; do
    [ "$(grep -c "of rank $r\$" "$WORK/out")" -eq 200 ] || fail "rank $r lines missing"
  done
  ;;
env)
  run env FOO=foo_value CCMPI_TESTVAR=cc "$MPIRUN" -n 2 -x FOO -x BAR=bar --env BAZ="b z" \
    -genv QUX qux --iface lo "$PROBE" env FOO BAR BAZ QUX CCMPI_IFACE CCMPI_TESTVAR \
    CCMPI_LOCAL_RANK CCMPI_LOCAL_SIZE PMI_SIZE
  expect_rc 0
  for r in 0 1; do
    for kv in FOO=foo_value BAR=bar "BAZ=b z" QUX=qux CCMPI_IFACE=lo CCMPI_TESTVAR=cc \
      CCMPI_LOCAL_RANK=$r CCMPI_LOCAL_SIZE=2 PMI_SIZE=2; do
      grep -qx "env $r $kv" "$WORK/out" || fail "rank $r lacks $kv"
    done
  done
  run "$MPIRUN" -n 3 "$PROBE" info
  expect_rc 0
  [ "$(grep -oE 'secret=[0-9a-f]{32} ' "$WORK/out" | sort -u | wc -l)" -eq 1 ] ||
    fail "ranks must share one 32-hex-digit CCMPI_JOB_SECRET"
  [ "$(grep -oE 'job=[0-9a-f]+$' "$WORK/out" | sort -u | wc -l)" -eq 1 ] || fail "CCMPI_JOB_ID differs"
  secret1=$(grep -oE 'secret=[0-9a-f]{32}' "$WORK/out" | head -1)
  run "$MPIRUN" -n 1 "$PROBE" info
  secret2=$(grep -oE 'secret=[0-9a-f]{32}' "$WORK/out" | head -1)
  [ "$secret1" != "$secret2" ] || fail "two jobs got the same secret"
  ;;
stdin)
  printf 'first\nsecond line\n' >"$WORK/in"
  "$MPIRUN" -n 2 "$PROBE" stdin <"$WORK/in" >"$WORK/out" 2>"$WORK/err"
  RC=$?
  expect_rc 0
  expect_out "^stdin: first$"
  expect_out "^stdin: second line$"
  [ "$(count_out '^stdin:')" -eq 2 ] || fail "stdin must reach rank 0 only"
  ;;
remote_placement)
  # 5 ranks on 2+2 slots: ranks 0,1 on fakeA, 2,3 on fakeB, rank 4 cycles to fakeA.
  hostfile2
  run env NOTFWD=1 "$MPIRUN" -n 5 --hostfile "$WORK/hosts" --launcher "$AGENT" "$PROBE" env \
    FAKE_AGENT_HOST PMI_RANK CCMPI_LOCAL_RANK CCMPI_LOCAL_SIZE CCMPI_NODE_ID CCMPI_NUM_NODES \
    CCMPI_RANK_HOSTS NOTFWD
  expect_rc 0
  check() { grep -qxF "env $1 $2" "$WORK/out" || fail "rank $1 lacks $2"; }
  for spec in 0:fakeA:0:3:0 1:fakeA:1:3:0 2:fakeB:0:2:1 3:fakeB:1:2:1 4:fakeA:2:3:0; do
    IFS=: read -r r host lr ls node <<<"$spec"
    check "$r" "FAKE_AGENT_HOST=$host"
    check "$r" "PMI_RANK=$r"
    check "$r" "CCMPI_LOCAL_RANK=$lr"
    check "$r" "CCMPI_LOCAL_SIZE=$ls"
    check "$r" "CCMPI_NODE_ID=$node"
    check "$r" "CCMPI_NUM_NODES=2"
    check "$r" "CCMPI_RANK_HOSTS=0*2,1*2,0*1"
    check "$r" "NOTFWD=(unset)"
  done
  ;;
label_output)
  run "$MPIRUN" -n 3 -l "$PROBE" lines 2
  expect_rc 0
  [ "$(wc -l <"$WORK/out")" -eq 6 ] || fail "expected 6 stdout lines"
  for r in 0 1 2; do
    for i in 0 1; do
      grep -qxF "[$r] line $i of rank $r" "$WORK/out" || fail "missing stdout line $i of $r"
      grep -qxF "[$r] err $i of rank $r" "$WORK/err" || fail "missing stderr line $i of $r"
    done
  done
  ;;
map_by_node)
  # --map-by node deals the ranks over fakeA and fakeB in turn; -ppn 1 puts one per host.
  hostfile2
  run "$MPIRUN" -n 4 --map-by node --hostfile "$WORK/hosts" --launcher "$AGENT" "$PROBE" env \
    FAKE_AGENT_HOST CCMPI_LOCAL_RANK CCMPI_RANK_HOSTS
  expect_rc 0
  for spec in 0:fakeA:0 1:fakeB:0 2:fakeA:1 3:fakeB:1; do
    IFS=: read -r r host lr <<<"$spec"
    grep -qxF "env $r FAKE_AGENT_HOST=$host" "$WORK/out" || fail "rank $r not on $host"
    grep -qxF "env $r CCMPI_LOCAL_RANK=$lr" "$WORK/out" || fail "rank $r: local rank not $lr"
    grep -qxF "env $r CCMPI_RANK_HOSTS=0*1,1*1,0*1,1*1" "$WORK/out" || fail "rank $r: host map"
  done
  run "$MPIRUN" -ppn 1 --hostfile "$WORK/hosts" --launcher "$AGENT" "$PROBE" env FAKE_AGENT_HOST
  expect_rc 0
  [ "$(grep -c '^env ' "$WORK/out")" -eq 2 ] || fail "-ppn 1 on 2 hosts: expected 2 ranks"
  expect_out "^env 0 FAKE_AGENT_HOST=fakeA$"
  expect_out "^env 1 FAKE_AGENT_HOST=fakeB$"
  run "$MPIRUN" -ppn 1 -n 3 --hostfile "$WORK/hosts" --launcher "$AGENT" "$PROBE" exchange
  expect_rc 2
  expect_err "^mpirun: -n 3 is more than -ppn 1 times 2 hosts; add --oversubscribe"
  ;;
slurm_allocation)
  # A Slurm allocation as salloc/sbatch describe it in the environment (no Slurm needed):
  # this host with 3 tasks, then two fake nodes of 2 tasks each started through the agent.
  me=$(hostname)
  run env SLURM_JOB_ID=7 SLURM_JOB_NODELIST="$me" SLURM_TASKS_PER_NODE=3 "$MPIRUN" "$PROBE" exchange
  check_exchange 3
  run env SLURM_JOB_ID=7 SLURM_JOB_NODELIST="$me" SLURM_TASKS_PER_NODE=3 "$MPIRUN" -n 5 "$PROBE" exchange
  expect_rc 2
  expect_err "^mpirun: -n 5 is more than the 3 tasks of the Slurm allocation \(SLURM_JOB_NODELIST=$me, SLURM_TASKS_PER_NODE=3\); add --oversubscribe"
  run env SLURM_JOB_ID=7 SLURM_JOB_NODELIST="$me" SLURM_TASKS_PER_NODE=3 "$MPIRUN" -n 5 --oversubscribe "$PROBE" exchange
  check_exchange 5
  run env SLURM_JOB_ID=7 SLURM_JOB_NODELIST="fake[A-B]" SLURM_TASKS_PER_NODE=2 "$MPIRUN" "$PROBE" exchange
  expect_rc 2
  expect_err "bad range"
  run env SLURM_JOB_ID=7 SLURM_JOB_NODELIST="fake[1-2]" SLURM_TASKS_PER_NODE="2(x2)" \
    "$MPIRUN" --launcher "$AGENT" "$PROBE" env FAKE_AGENT_HOST
  expect_rc 0
  [ "$(grep -c '^env ' "$WORK/out")" -eq 4 ] || fail "expected the allocation's 4 ranks"
  for spec in 0:fake1 1:fake1 2:fake2 3:fake2; do
    IFS=: read -r r host <<<"$spec"
    grep -qxF "env $r FAKE_AGENT_HOST=$host" "$WORK/out" || fail "rank $r not on $host"
  done
  # Without --launcher: one srun (here tests/launcher/fake_slurm/srun) starts a proxy per
  # node, and each connects back to mpirun naming its node.
  run env PATH="$HERE/fake_slurm:$PATH" SLURM_JOB_ID=7 SLURM_JOB_NODELIST="fake[1-3]" \
    SLURM_TASKS_PER_NODE="2,1(x2)" "$MPIRUN" -v "$PROBE" env FAKE_AGENT_HOST
  expect_rc 0
  [ "$(grep -c '^env ' "$WORK/out")" -eq 4 ] || fail "expected the allocation's 4 ranks"
  for spec in 0:fake1 1:fake1 2:fake2 3:fake3; do
    IFS=: read -r r host <<<"$spec"
    grep -qxF "env $r FAKE_AGENT_HOST=$host" "$WORK/out" || fail "rank $r not on $host"
  done
  expect_err "^mpirun: starting proxies: srun --nodes=3 --ntasks=3 --ntasks-per-node=1 .*--nodelist=fake1,fake2,fake3 .* --ccmpi-proxy --connect "
  run env PATH="$HERE/fake_slurm:$PATH" SLURM_JOB_ID=7 SLURM_JOB_NODELIST="fake[1-3]" \
    SLURM_TASKS_PER_NODE="2,1(x2)" "$MPIRUN" "$PROBE" exchange 2
  check_exchange 4
  # A rank that fails on a proxy's node ends the job, and the proxies with it.
  run env PATH="$HERE/fake_slurm:$PATH" SLURM_JOB_ID=7 SLURM_JOB_NODELIST="fake[1-2]" \
    SLURM_TASKS_PER_NODE="2(x2)" "$MPIRUN" "$PROBE" abort 9 3
  expect_rc 9
  expect_err "rank 3 called MPI_Abort with error code 9"
  expect_fast 5000
  expect_pids_gone 2000
  run env PATH="$HERE/fake_slurm:$PATH" FAKE_SRUN_FAIL=1 SLURM_JOB_ID=7 \
    SLURM_JOB_NODELIST="fake[1-2]" SLURM_TASKS_PER_NODE="2(x2)" "$MPIRUN" "$PROBE" exchange
  expect_rc 1
  expect_err "^srun: error: Unable to create step"
  expect_err "^mpirun: srun ended before the proxy on host fake1 connected back"
  expect_fast 5000
  run env SLURM_JOB_ID=7 SLURM_JOB_NODELIST="fake[1-3]" SLURM_TASKS_PER_NODE="2(x2)" \
    "$MPIRUN" --launcher "$AGENT" "$PROBE" exchange
  expect_rc 2
  expect_err "names 3 nodes .* but 2 task counts"
  ;;
unsupported_options)
  for opt in --mca -bootstrap --rankfile --bind-to=hwthread --map-by=ppr:2:node; do
    run "$MPIRUN" "$opt" x "$PROBE" exchange
    expect_rc 2
    expect_err "^mpirun: .*${opt%%=*}.*not supported"
  done
  ;;
remote_exchange)
  hostfile2
  run "$MPIRUN" -n 8 --hostfile "$WORK/hosts" --launcher "$AGENT" "$PROBE" exchange 3
  check_exchange 8
  expect_out "universe=8 "
  ;;
mixed_local_remote)
  printf 'localhost slots=2\nfakeA slots=2\n' >"$WORK/hosts"
  run "$MPIRUN" -n 4 --hostfile "$WORK/hosts" --launcher "$AGENT" "$PROBE" exchange 2
  check_exchange 4
  run "$MPIRUN" -n 4 --hostfile "$WORK/hosts" --launcher "$AGENT" "$PROBE" env FAKE_AGENT_HOST
  expect_rc 0
  for r in 0 1; do expect_out "^env $r FAKE_AGENT_HOST=\(unset\)$"; done
  for r in 2 3; do expect_out "^env $r FAKE_AGENT_HOST=fakeA$"; done
  ;;
remote_env)
  run env FOO=foo CCMPI_TESTVAR=cc NOTFWD=x "$MPIRUN" -n 2 -H fakeA,fakeB --launcher "$AGENT" \
    -x FOO --env BAZ=baz --iface eth9 --tag-output "$PROBE" env FOO BAZ CCMPI_TESTVAR CCMPI_IFACE NOTFWD
  expect_rc 0
  for r in 0 1; do
    for kv in FOO=foo BAZ=baz CCMPI_TESTVAR=cc CCMPI_IFACE=eth9 "NOTFWD=(unset)"; do
      grep -qxF "[1,$r]<stdout>:env $r $kv" "$WORK/out" || fail "rank $r lacks $kv"
    done
  done
  ;;
remote_segv)
  run "$MPIRUN" -n 4 -H fakeA:2,fakeB:2 --launcher "$AGENT" "$PROBE" segv 3
  expect_rc 139
  expect_fast
  expect_err "^mpirun: rank 3 \(host fakeB, pid [0-9]+\) was killed by signal 11 \(SIGSEGV\); killing the job$"
  expect_pids_gone 1000
  ;;
remote_abort)
  run "$MPIRUN" -n 4 -H fakeA:2,fakeB:2 --launcher "$AGENT" "$PROBE" abort 9 2
  expect_rc 9
  expect_fast
  expect_err "^mpirun: rank 2 called MPI_Abort with error code 9; killing the job$"
  expect_pids_gone 1000
  ;;
remote_stdin)
  printf 'one\ntwo\n' >"$WORK/in"
  "$MPIRUN" -n 2 -H fakeA,fakeB --launcher "$AGENT" "$PROBE" stdin <"$WORK/in" >"$WORK/out" 2>"$WORK/err"
  RC=$?
  expect_rc 0
  expect_out "^stdin: one$"
  expect_out "^stdin: two$"
  ;;
timeout)
  # MPIEXEC_TIMEOUT (as MPICH's test harness sets it) and --timeout end a job that runs on.
  run env MPIEXEC_TIMEOUT=1 "$MPIRUN" -n 3 "$PROBE" sleep
  expect_rc 124
  expect_err "^mpirun: the job did not finish within 1 s \(MPIEXEC_TIMEOUT\); killing the job$"
  expect_fast 4000
  expect_pids_gone 2000
  run env MPIEXEC_TIMEOUT=30 "$MPIRUN" -n 2 --timeout 1 "$PROBE" sleep
  expect_rc 124
  expect_err "within 1 s \(--timeout\)"
  expect_fast 4000
  run env MPIEXEC_TIMEOUT=10 "$MPIRUN" -n 2 "$PROBE" exchange
  check_exchange 2
  run "$MPIRUN" --timeout 0 "$PROBE" exchange
  expect_rc 2
  expect_err "bad --timeout '0'"
  ;;
sigterm)
  start_bg 3 "$MPIRUN" -n 3 "$PROBE" sleep
  kill -TERM "$BG"
  wait_bg
  expect_rc 143
  expect_fast
  expect_err "^mpirun: received signal 15 \(SIGTERM\); killing the job$"
  expect_pids_gone
  ;;
remote_sigterm)
  start_bg 4 "$MPIRUN" -n 4 -H localhost,fakeA:2,fakeB --launcher "$AGENT" "$PROBE" sleep
  kill -TERM "$BG"
  wait_bg
  expect_rc 143
  expect_fast
  expect_pids_gone 1000
  ;;
sigkill)
  start_bg 3 "$MPIRUN" -n 3 "$PROBE" sleep
  kill -KILL "$BG"
  wait_bg
  expect_pids_gone 2000
  ;;
remote_sigkill)
  start_bg 3 "$MPIRUN" -n 3 -H fakeA:2,fakeB --launcher "$AGENT" "$PROBE" sleep
  kill -KILL "$BG"
  wait_bg
  expect_pids_gone 2000
  ;;
descendants)
  # Ranks that started children of their own: killing the job reaches those too.
  start_bg 4 "$MPIRUN" -n 2 "$PROBE" spawn-sleep
  kill -TERM "$BG"
  wait_bg
  expect_rc 143
  expect_fast
  [ "$(count_out '^child ')" -eq 2 ] || fail "expected two child lines"
  expect_pids_gone
  ;;
errors)
  # Out of file descriptors before the first rank starts: a clear error, at once.
  run timeout 20 bash -c 'ulimit -n 8; exec "$0" -n 4 "$1" exchange' "$MPIRUN" "$PROBE"
  expect_rc 1
  expect_err "^mpirun: cannot start ranks on .*: cannot create pipes: Too many open files$"
  expect_fast 5000
  # A typo's rank count is refused (64 per core without hosts, per slot with them).
  run "$MPIRUN" -n 100000 "$PROBE" exchange
  expect_rc 2
  expect_err "^mpirun: 100000 ranks on .* is more than 64 per core \([0-9]+ cores\); add --oversubscribe"
  printf 'localhost slots=1\n' >"$WORK/one"
  run "$MPIRUN" -n 65 --hostfile "$WORK/one" "$PROBE" exchange
  expect_rc 2
  expect_err "65 ranks on .* is more than 64 per slot \(1 slots\)"
  run "$MPIRUN" -n 2 /nonexistent/program
  expect_rc 127
  expect_err "^mpirun: program '/nonexistent/program' not found$"
  run "$MPIRUN" -n 2 no-such-program-ccmpi
  expect_rc 127
  expect_err "not found in PATH"
  run "$MPIRUN" --no-such-option "$PROBE"
  expect_rc 2
  expect_err "^mpirun: unknown option '--no-such-option'"
  run "$MPIRUN" -n 2
  expect_rc 2
  expect_err "no program given"
  run "$MPIRUN" -n 2 --hostfile "$WORK/missing" "$PROBE" exchange
  expect_rc 2
  expect_err "^mpirun: cannot read hostfile"
  printf 'node1\nnode2 slots=0\n' >"$WORK/hosts"
  run "$MPIRUN" -n 2 --hostfile "$WORK/hosts" "$PROBE" exchange
  expect_rc 2
  expect_err "^mpirun: hostfile '.*': line 2: bad slot count"
  printf '# only comments\n' >"$WORK/hosts"
  run "$MPIRUN" --hostfile "$WORK/hosts" "$PROBE" exchange
  expect_rc 2
  expect_err "no hosts in hostfile"
  run "$MPIRUN" -n 2 -H fakeA --launcher /nonexistent/agent "$PROBE" exchange
  expect_rc 2
  expect_err "^mpirun: launcher: program '/nonexistent/agent' not found$"
  run "$MPIRUN" --help
  expect_rc 0
  expect_out "^usage: mpirun"
  ;;
agent_failure)
  # An agent that cannot reach the host (exits at once): a clear error, non-zero, fast,
  # and the local ranks already started are killed.
  run "$MPIRUN" -n 3 -H localhost:2,fakeA --launcher false "$PROBE" sleep
  [ "$RC" -ne 0 ] || fail "exit status 0"
  expect_fast 3000
  expect_err "^mpirun: could not start the proxy on host fakeA"
  # An agent that never returns and starts nothing: the start-up deadline names the host,
  # and the local ranks and the agent are gone.
  printf '#!/bin/sh\necho $$ >"%s/agent.pid"\nexec sleep 300\n' "$WORK" >"$WORK/hang_agent"
  chmod +x "$WORK/hang_agent"
  run env CCMPI_LAUNCH_TIMEOUT=1 "$MPIRUN" -n 3 -H localhost:2,fakeA --launcher "$WORK/hang_agent" \
    "$PROBE" sleep
  expect_rc 1
  expect_err "^mpirun: host fakeA did not come up within 1 s: 1 rank\(s\) never started there"
  expect_fast 5000
  agent=$(cat "$WORK/agent.pid")
  [ -n "$agent" ] || fail "the agent did not run"
  if kill -0 "$agent" 2>/dev/null && [ "$(cat "/proc/$agent/stat" 2>/dev/null | awk '{print $3}')" != Z ]; then
    kill -KILL "$agent"
    fail "the hung agent (pid $agent) is still running"
  fi
  run env CCMPI_LAUNCH_TIMEOUT=soon "$MPIRUN" -n 1 "$PROBE" exchange
  expect_err "ignoring CCMPI_LAUNCH_TIMEOUT='soon'"
  # Remote program missing: the proxy's rank fails to exec.
  run "$MPIRUN" -n 2 -H fakeA,fakeB --launcher "$AGENT" /nonexistent/prog
  expect_rc 127
  expect_err "cannot execute '/nonexistent/prog'"
  expect_err "^mpirun: rank [01] \(host fake[AB], pid [0-9]+\) exited with code 127"
  ;;
hydra_exchange | hydra_pmi_port)
  HYDRA="$(command -v mpiexec.mpich || true)"
  [ -n "$HYDRA" ] || fail "mpiexec.mpich (MPICH's Hydra) is not installed; install the Debian package 'mpich'"
  extra=()
  [ "$CASE" = hydra_pmi_port ] && extra=(-pmi-port)
  run "$HYDRA" "${extra[@]}" -n 3 "$PROBE" exchange 3
  check_exchange 3
  expect_out "singleton=0"
  ;;
hydra_badkey)
  # Key and value limits, and values longer than one request line, under Hydra's server.
  HYDRA="$(command -v mpiexec.mpich || true)"
  [ -n "$HYDRA" ] || fail "mpiexec.mpich (MPICH's Hydra) is not installed; install the Debian package 'mpich'"
  run "$HYDRA" -n 2 "$PROBE" badkey
  expect_rc 0
  [ "$(count_out '^badkey rank=[01] failures=0$')" -eq 2 ] || fail "expected 2 clean badkey lines"
  ;;
hydra_abort)
  # cmd=abort exitcode=N as Hydra understands it: the job ends with that code.
  HYDRA="$(command -v mpiexec.mpich || true)"
  [ -n "$HYDRA" ] || fail "mpiexec.mpich (MPICH's Hydra) is not installed; install the Debian package 'mpich'"
  run "$HYDRA" -n 3 "$PROBE" abort 7 1
  expect_rc 7
  expect_fast 5000
  expect_pids_gone 2000
  ;;
*)
  fail "unknown case"
  ;;
esac
echo "PASS [$CASE] (${MS:-0} ms)"
