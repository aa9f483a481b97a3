#!/usr/bin/env bash
# ranks_per_core.sh MPIRUN PROGRAM: the job's ranks per core reaches every rank and the
# collective rules' sixth field follows it.
#  1. measured: N ranks on this machine -> N / online CPUs (rounded down) on every rank;
#  2. CCMPI_RANKS_PER_CORE=5 / =4 with the rules "barrier * * tree * 5" then
#     "barrier * * dissemination": the barrier is tree / dissemination.
set -u
mpirun=$1 prog=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() {
  echo "FAIL: $*"
  exit 1
}
n=3
cpus=$(getconf _NPROCESSORS_ONLN)
want=$((n / cpus))
CCMPI_VERBOSE=3 timeout 60 "$mpirun" -n $n "$prog" >"$work/measured" 2>&1 ||
  {
    cat "$work/measured"
    fail "the job failed"
  }
got=$(grep -c "debug: ranks per core: $want (measured" "$work/measured")
[ "$got" -eq $n ] || {
  grep "ranks per core" "$work/measured"
  fail "expected 'ranks per core: $want (measured' from all $n ranks ($cpus CPUs), got $got"
}
printf 'barrier * * tree * 5\nbarrier * * dissemination\n' >"$work/rules"
for load in 5 4; do
  [ $load = 5 ] && alg=tree || alg=dissemination
  CCMPI_COLL_RULES=$work/rules CCMPI_RANKS_PER_CORE=$load CCMPI_VERBOSE=3 timeout 60 \
    "$mpirun" -n $n "$prog" >"$work/set$load" 2>&1 || {
    cat "$work/set$load"
    fail "the job failed (CCMPI_RANKS_PER_CORE=$load)"
  }
  grep -q "debug: ranks per core: $load (CCMPI_RANKS_PER_CORE)" "$work/set$load" ||
    fail "CCMPI_RANKS_PER_CORE=$load not taken"
  grep -q "debug: barrier: $alg (rule; $n ranks" "$work/set$load" ||
    fail "CCMPI_RANKS_PER_CORE=$load: no '$alg (rule' barrier"
  if grep -Eq "debug: barrier: [a-z_]+ " "$work/set$load" &&
    grep -E "debug: barrier: [a-z_]+ " "$work/set$load" | grep -vq "debug: barrier: $alg (rule"; then
    fail "CCMPI_RANKS_PER_CORE=$load: a barrier other than $alg"
  fi
done
echo "PASS ($cpus CPUs: $want ranks per core measured for $n ranks)"
