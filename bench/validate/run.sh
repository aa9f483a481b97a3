#!/usr/bin/env bash
# Validation of ccmpi with real benchmark programs, built unmodified with ccmpi's
# mpicc/mpicxx and run with ccmpi's mpirun:
#
#   OSU Micro-Benchmarks 7.4   every program of c/mpi/collective/{blocking,non_blocking,
#                              persistent}, with data validation (-c; the barriers have
#                              none), at each process count of --np; configure must find
#                              MPI_Session_init (MPI-4) so the persistent ones are built;
#                              a few also run with -I (MPI-4 sessions instead of MPI_Init).
#   NAS Parallel Benchmarks 3.4 IS (C), classes A and B, at 2 4 8 16 processes:
#                              "Verification    =               SUCCESSFUL".
#   Intel MPI Benchmarks       IMB-MPI1 (compiled with -Werror), every collective benchmark.
#
# The sources are NOT part of ccmpi: pass the directories where you unpacked them. They
# are copied (NPB, IMB) or configured out of tree (OSU) under the work directory, never
# modified in place.
#
# Usage: bench/validate/run.sh -b <ccmpi build dir> [--osu DIR] [--npb DIR] [--imb DIR]
#                              [-w <work dir>] [--np "4 16"] [--quick]
#   -b      ccmpi build tree (has bin/mpicc, bin/mpicxx, bin/mpirun)
#   --osu   osu-micro-benchmarks-7.4 source tree
#   --npb   NPB3.4-MPI tree (has IS/, common/, sys/, config/)
#   --imb   intel/mpi-benchmarks tree (has src_cpp/)
#   -w      scratch directory (default /tmp/ccmpi-validate)
#   --np    process counts for OSU and IMB (default "4 16")
#   --quick smaller messages / fewer iterations
# Prints PASS/FAIL per program and run, a summary, and exits non-zero if anything failed.
# Logs of every run are kept under <work dir>/logs.
set -u

BUILD="" OSU="" NPB="" IMB="" WORK=/tmp/ccmpi-validate NPS="4 16" QUICK=0
while [ $# -gt 0 ]; do
  case "$1" in
    -b) BUILD=$2; shift 2 ;;
    --osu) OSU=$2; shift 2 ;;
    --npb) NPB=$2; shift 2 ;;
    --imb) IMB=$2; shift 2 ;;
    -w) WORK=$2; shift 2 ;;
    --np) NPS=$2; shift 2 ;;
    --quick) QUICK=1; shift ;;
    -h|--help) sed -n 2,30p "$0"; exit 0 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$BUILD" ] || { echo "-b <ccmpi build dir> is required" >&2; exit 2; }
BUILD=$(cd "$BUILD" && pwd)
MPICC=$BUILD/bin/mpicc MPICXX=$BUILD/bin/mpicxx MPIRUN=$BUILD/bin/mpirun
for t in "$MPICC" "$MPICXX" "$MPIRUN"; do
  [ -x "$t" ] || { echo "missing $t (build the ccmpi and mpirun targets)" >&2; exit 2; }
done
mkdir -p "$WORK/logs"
WORK=$(cd "$WORK" && pwd)
LOGS=$WORK/logs
NICE="nice -n 10"
RUN_TIMEOUT=${RUN_TIMEOUT:-900}

npass=0 nfail=0 nxfail=0 failed=() xfailed=()
result() {  # result <PASS|FAIL|XFAIL> <name> [detail]
  case $1 in
    PASS) npass=$((npass + 1)) ;;
    XFAIL) nxfail=$((nxfail + 1)); xfailed+=("$2") ;;
    *) nfail=$((nfail + 1)); failed+=("$2") ;;
  esac
  printf '%-5s %-58s %s\n' "$1" "$2" "${3:-}"
}

# OSU 7.4 bug: osu_allreduce_persistent.c initializes the persistent allreduce with
# recvbuf_warmup but validates recvbuf, which the operation never writes, so -c reports
# "Fail" with every MPI library (MPICH 4.0.2 too). Its unmodified binary with -c is an
# expected failure (XFAIL, but a "Pass" there would be a FAIL: it would mean the check
# is not what we think); the unmodified binary must run without -c, and a copy with the
# one buffer fixed (made in the work directory, never in the source tree) must validate.
OSU_KNOWN_BAD="osu_allreduce_persistent"

# ---------------------------------------------------------------- OSU ----
# Builds <work>/osu/fixed/osu_allreduce_persistent: the OSU source with the persistent
# request bound to recvbuf (the buffer it validates), compiled like the original.
build_osu_fixed() {
  local bld=$1 src=$2 dir=$1/fixed defs
  mkdir -p "$dir"
  sed 's/sendbuf_warmup, recvbuf_warmup, num_elements/sendbuf, recvbuf, num_elements/' \
    "$src/c/mpi/collective/persistent/$OSU_KNOWN_BAD.c" > "$dir/$OSU_KNOWN_BAD.c"
  if cmp -s "$dir/$OSU_KNOWN_BAD.c" "$src/c/mpi/collective/persistent/$OSU_KNOWN_BAD.c"; then
    echo "the fix does not apply" > "$LOGS/osu-fixed-build.log"; return 1
  fi
  defs=$(sed -n 's/^DEFS = //p' "$bld/c/mpi/collective/persistent/Makefile")
  eval "\"$MPICC\" $defs -I\"$src/c/util\" -g -O2 -c -o \"$dir/$OSU_KNOWN_BAD.o\" \"$dir/$OSU_KNOWN_BAD.c\"" \
    > "$LOGS/osu-fixed-build.log" 2>&1 &&
    "$MPICXX" -g -O2 -o "$dir/$OSU_KNOWN_BAD" "$dir/$OSU_KNOWN_BAD.o" "$bld"/c/util/osu_util*.o \
      -lm >> "$LOGS/osu-fixed-build.log" 2>&1
}

# run_osu_known_bad <np> <options without -c>
run_osu_known_bad() {
  local np=$1 opts=$2 bld=$WORK/osu log rc
  log=$LOGS/osu-persistent-$OSU_KNOWN_BAD-novalidate-np$np.log
  timeout "$RUN_TIMEOUT" $NICE "$MPIRUN" -n "$np" "$bld/c/mpi/collective/persistent/$OSU_KNOWN_BAD" \
    $opts > "$log" 2>&1
  rc=$?
  if [ $rc -eq 0 ] && grep -qE '^[0-9]+ +[0-9]+\.[0-9]+' "$log"; then
    result PASS "osu persistent/$OSU_KNOWN_BAD np=$np (unmodified, no -c)"
  else
    result FAIL "osu persistent/$OSU_KNOWN_BAD np=$np (unmodified, no -c)" "exit $rc, see $log"
  fi
  if [ ! -x "$bld/fixed/$OSU_KNOWN_BAD" ]; then
    result FAIL "osu persistent/$OSU_KNOWN_BAD np=$np (buffer fixed, -c)" "not built, see $LOGS/osu-fixed-build.log"
    return
  fi
  log=$LOGS/osu-persistent-$OSU_KNOWN_BAD-fixed-np$np.log
  timeout "$RUN_TIMEOUT" $NICE "$MPIRUN" -n "$np" "$bld/fixed/$OSU_KNOWN_BAD" -c $opts > "$log" 2>&1
  rc=$?
  if [ $rc -eq 0 ] && ! grep -qw Fail "$log" && grep -qw Pass "$log"; then
    result PASS "osu persistent/$OSU_KNOWN_BAD np=$np (buffer fixed, -c)" "$(grep -cw Pass "$log") sizes validated"
  else
    result FAIL "osu persistent/$OSU_KNOWN_BAD np=$np (buffer fixed, -c)" "exit $rc, see $log"
  fi
}

run_osu() {
  local src=$OSU bld=$WORK/osu
  rm -rf "$bld" && mkdir -p "$bld"
  echo "== OSU Micro-Benchmarks: configure + build in $bld"
  if ! (cd "$bld" && $NICE "$src/configure" CC="$MPICC" CXX="$MPICXX") > "$LOGS/osu-configure.log" 2>&1; then
    result FAIL "osu configure" "see $LOGS/osu-configure.log"; return
  fi
  if grep -q '^#define _ENABLE_MPI4_ 1' "$bld/config.h" 2>/dev/null ||
     grep -q -- '-D_ENABLE_MPI4_=1' "$bld/config.log"; then
    result PASS "osu configure finds MPI-4 (MPI_Session_init)"
  else
    result FAIL "osu configure finds MPI-4 (MPI_Session_init)" "persistent benchmarks disabled"
  fi
  local d
  $NICE make -j2 -C "$bld/c/util" > "$LOGS/osu-make-util.log" 2>&1
  for d in blocking non_blocking persistent; do
    if $NICE make -j2 -C "$bld/c/mpi/collective/$d" > "$LOGS/osu-make-$d.log" 2>&1; then
      result PASS "osu build collective/$d"
    else
      result FAIL "osu build collective/$d" "see $LOGS/osu-make-$d.log"
    fi
  done
  build_osu_fixed "$bld" "$src"
  local np prog name opts log rc
  for np in $NPS; do
    for d in blocking non_blocking persistent; do
      for prog in $(cd "$src/c/mpi/collective/$d" && ls osu_*.c | sed 's/\.c$//'); do
        name="osu $d/$prog np=$np"
        if [ ! -x "$bld/c/mpi/collective/$d/$prog" ]; then result FAIL "$name" "not built"; continue; fi
        if [ "$QUICK" = 1 ]; then
          opts="-m 1:65536 -i 10 -x 2"
        elif [ "$np" -le 4 ]; then
          opts="-m 1:1048576 -i 20 -x 5"
        else
          opts="-m 1:262144 -i 10 -x 2"
        fi
        case $prog in
          *barrier*) opts="-i 20 -x 5" ;;         # no message sizes, no validation
          *) opts="-c $opts" ;;
        esac
        log=$LOGS/osu-$d-$prog-np$np.log
        local t0=$SECONDS
        timeout "$RUN_TIMEOUT" $NICE "$MPIRUN" -n "$np" "$bld/c/mpi/collective/$d/$prog" $opts \
          > "$log" 2>&1
        rc=$?
        local secs=$((SECONDS - t0))
        if [ "$prog" = "$OSU_KNOWN_BAD" ]; then
          if [ $rc -ne 0 ] && grep -q 'DATA VALIDATION ERROR' "$log"; then
            result XFAIL "$name" "OSU 7.4 bug: validates a buffer the op never writes"
          else
            result FAIL "$name" "expected the known OSU validation failure, exit $rc, see $log"
          fi
          run_osu_known_bad "$np" "${opts#-c }"
        elif [ $rc -ne 0 ]; then
          result FAIL "$name" "exit $rc (${secs}s), see $log"
        elif grep -qw Fail "$log"; then
          result FAIL "$name" "validation failed (${secs}s), see $log"
        elif [[ $prog != *barrier* ]] && ! grep -qw Pass "$log"; then
          result FAIL "$name" "no validated size (${secs}s), see $log"
        elif ! grep -qE '^[0-9 ]*[0-9]+\.[0-9]+' "$log"; then
          result FAIL "$name" "no timings (${secs}s), see $log"
        else
          result PASS "$name" "$(grep -cw Pass "$log") sizes validated (${secs}s)"
        fi
      done
    done
  done
  # MPI-4 sessions instead of MPI_Init (-I), validated, one program per kind.
  local np0=${NPS%% *}
  for prog in blocking/osu_allreduce non_blocking/osu_ialltoall persistent/osu_bcast_persistent; do
    name="osu $prog np=$np0 (-I sessions)"
    log=$LOGS/osu-session-${prog//\//-}-np$np0.log
    timeout "$RUN_TIMEOUT" $NICE "$MPIRUN" -n "$np0" "$bld/c/mpi/collective/$prog" -I -c \
      -m 1:65536 -i 10 -x 2 > "$log" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && ! grep -qw Fail "$log" && grep -qw Pass "$log"; then
      result PASS "$name"
    else
      result FAIL "$name" "exit $rc, see $log"
    fi
  done
}

# ---------------------------------------------------------------- NPB IS ----
run_npb() {
  local bld=$WORK/npb
  rm -rf "$bld" && cp -r "$NPB" "$bld"
  echo "== NPB 3.4 IS: build in $bld"
  cat > "$bld/config/make.def" << EOF
# Written by ccmpi bench/validate/run.sh
MPIFC = false
FLINK = \$(MPIFC)
FMPI_LIB =
FMPI_INC =
FFLAGS = -O3
FLINKFLAGS = \$(FFLAGS)
MPICC = $MPICC
CLINK = \$(MPICC)
CMPI_LIB =
CMPI_INC =
CFLAGS = -O3
CLINKFLAGS = \$(CFLAGS)
CC = cc -g
BINDIR = ../bin
RAND = randi8
EOF
  mkdir -p "$bld/bin"
  local class np log t
  for class in A B; do
    if ! (cd "$bld" && $NICE make is CLASS=$class) > "$LOGS/npb-make-is-$class.log" 2>&1 ||
       [ ! -x "$bld/bin/is.$class.x" ]; then
      result FAIL "npb IS class $class build" "see $LOGS/npb-make-is-$class.log"; continue
    fi
    result PASS "npb IS class $class build"
    for np in 2 4 8 16; do
      log=$LOGS/npb-is-$class-np$np.log
      timeout "$RUN_TIMEOUT" $NICE "$MPIRUN" -n "$np" "$bld/bin/is.$class.x" > "$log" 2>&1
      local rc=$?
      t=$(awk -F= '/Time in seconds/ {gsub(/ /, "", $2); print $2}' "$log")
      if [ $rc -eq 0 ] && grep -q 'Verification *= *SUCCESSFUL' "$log"; then
        result PASS "npb IS class $class np=$np" "time ${t}s"
      else
        result FAIL "npb IS class $class np=$np" "exit $rc, see $log"
      fi
    done
  done
}

# ---------------------------------------------------------------- IMB ----
IMB_COLLECTIVES="Bcast Allgather Allgatherv Gather Gatherv Scatter Scatterv Alltoall Alltoallv
Reduce Reduce_local Reduce_scatter Reduce_scatter_block Allreduce Barrier"

run_imb() {
  local bld=$WORK/imb
  rm -rf "$bld" && cp -r "$IMB" "$bld"
  echo "== Intel MPI Benchmarks: build IMB-MPI1 in $bld"
  if ! (cd "$bld" && $NICE make IMB-MPI1 CC="$MPICC" CXX="$MPICXX") > "$LOGS/imb-make.log" 2>&1 ||
     [ ! -x "$bld/IMB-MPI1" ]; then
    result FAIL "imb build IMB-MPI1 (-Werror)" "see $LOGS/imb-make.log"; return
  fi
  result PASS "imb build IMB-MPI1 (-Werror)"
  local np b log rc msglog=0:16 iter=10
  [ "$QUICK" = 1 ] && msglog=0:12
  for np in $NPS; do
    for b in $IMB_COLLECTIVES; do
      log=$LOGS/imb-$b-np$np.log
      timeout "$RUN_TIMEOUT" $NICE "$MPIRUN" -n "$np" "$bld/IMB-MPI1" -npmin "$np" -iter "$iter" \
        -msglog "$msglog" "$b" > "$log" 2>&1
      rc=$?
      if [ $rc -eq 0 ] && grep -q "Benchmarking $b" "$log" && grep -q 'All processes entering MPI_Finalize' "$log"; then
        result PASS "imb $b np=$np"
      else
        result FAIL "imb $b np=$np" "exit $rc, see $log"
      fi
    done
  done
  # The data-checking build (-DCHECK) of the same benchmarks is not part of IMB-MPI1's
  # Makefile; the OSU runs above carry the data validation.
}

main() {
  echo "ccmpi validation: build $BUILD, work $WORK, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores"
  [ -n "$OSU" ] && run_osu
  [ -n "$NPB" ] && run_npb
  [ -n "$IMB" ] && run_imb
  echo
  echo "SUMMARY: $npass passed, $nfail failed, $nxfail expected failures (bugs in the benchmark)"
  for f in "${failed[@]+"${failed[@]}"}"; do echo "  FAILED: $f"; done
  for f in "${xfailed[@]+"${xfailed[@]}"}"; do echo "  XFAIL:  $f"; done
  [ "$nfail" -eq 0 ]
}

# (One line, so editing this file while it runs does not confuse bash.)
main; exit $?
