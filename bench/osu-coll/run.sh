#!/usr/bin/env bash
# Collectives of ccmpi side by side with Open MPI (forced onto TCP) and MPICH on one machine,
# with the OSU Micro-Benchmarks (c/mpi/collective/blocking): osu_bcast, osu_allreduce,
# osu_alltoall and osu_allgather at 8 B, 64 KiB and 1 MiB, at 4 and 16 ranks (16 ranks
# share the cores of a small machine). Every repetition runs each point once per variant,
# the order of the variants rotating between repetitions so drifts in machine load hit all
# of them alike; reported are median/min/max over the repetitions of OSU's average latency.
#
# Variants of the measured run:
#   ccmpi          ccmpi's automatic choice (the algorithm it picked is recorded with one
#                  extra CCMPI_VERBOSE=3 invocation per point)
#   openmpi        Open MPI, --mca btl tcp,self --mca mpi_yield_when_idle 1, default rules
#   openmpi_best   the same with the fastest coll_tuned algorithm of the point forced
#                  (--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_<coll>_algorithm N),
#                  N read from OUT_DIR/openmpi_best.csv, which the sweep writes
#   mpich          mpiexec.mpich, defaults (it busy-polls: with more ranks than cores every
#                  call waits for time slices, so it runs MPICH_ITER_DIV times fewer
#                  iterations, capped at MPICH_TIMEOUT seconds per invocation)
#
# Sweep (--sweep, or SWEEP=1): instead of the measured run, every Open MPI coll_tuned
# algorithm of each collective and every ccmpi algorithm (forced with
# CCMPI_<COLL>_ALGORITHM=name, the list read from `ccmpi_info --algorithms`) is timed at
# every point, SWEEP_REPS times. Writes openmpi_sweep.csv, openmpi_best.csv (reused by later
# measured runs), ccmpi_sweep.csv and sweep.md. --sweep=openmpi / --sweep=ccmpi sweeps one.
#
# Usage: bench/osu-coll/run.sh [--sweep[=openmpi|ccmpi]] BUILD_DIR OSU_BUILDS
#   BUILD_DIR   ccmpi build tree with bin/mpicc, bin/mpirun, bin/ccmpi_info, lib/
#   OSU_BUILDS  a directory holding OSU Micro-Benchmarks 7.4 trees ALREADY BUILT for each
#               implementation: OSU_BUILDS/{ccmpi,openmpi,mpich}/c/mpi/collective/blocking/
#               osu_bcast ... (also accepted as $OSU_BUILDS). This script does not build or
#               fetch OSU; the README it writes says how to build them. ccmpi's OSU programs
#               run with LD_LIBRARY_PATH=BUILD_DIR/lib, so they use BUILD_DIR's library.
# Environment:
#   REPS=3            repetitions of the measured run
#   SWEEP_REPS=2      repetitions of the sweep
#   QUICK=1           smoke run: few iterations (numbers only prove the harness)
#   IMPLS="ccmpi openmpi mpich"            implementations (openmpi gives both of its variants)
#   COLLS="bcast allreduce alltoall allgather"  RANKS="4 16"  SIZES="8 65536 1048576"
#   ITERS="8:200:20 65536:50:5 1048576:10:2"    size:iterations:warm-up (-i, -x of OSU);
#                     sizes not listed use the entry of the next smaller listed size
#   MPICH_ITER_DIV=5  MPICH runs iterations/MPICH_ITER_DIV (at least 3)
#   RUN_TIMEOUT=300   seconds one invocation may take (then it is killed and recorded)
#   MPICH_TIMEOUT=120 the same for MPICH
#   OUT_DIR=<repo>/docs/results/osu-coll   results.csv, README.md, osu-coll.svg, sweep files
#   KEEP_WORK=1       keep the scratch directory (raw outputs) instead of deleting it
set -u -o pipefail

script_dir=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$script_dir/../.." && pwd)
SWEEP=${SWEEP:-0}
args=()
for a in "$@"; do
  case $a in
    --sweep) SWEEP=1 ;;
    --sweep=*) SWEEP=${a#--sweep=} ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) args+=("$a") ;;
  esac
done
build_dir=${args[0]:-./build}
osu_builds=${args[1]:-${OSU_BUILDS:-}}
REPS=${REPS:-3}
SWEEP_REPS=${SWEEP_REPS:-2}
QUICK=${QUICK:-0}
IMPLS=${IMPLS:-"ccmpi openmpi mpich"}
COLLS=${COLLS:-"bcast allreduce alltoall allgather"}
RANKS=${RANKS:-"4 16"}
SIZES=${SIZES:-"8 65536 1048576"}
if [ "$QUICK" = 1 ]; then ITERS=${ITERS:-"8:20:2 65536:5:1 1048576:3:1"}
else ITERS=${ITERS:-"8:200:20 65536:50:5 1048576:10:2"}; fi
MPICH_ITER_DIV=${MPICH_ITER_DIV:-5}
RUN_TIMEOUT=${RUN_TIMEOUT:-300}
MPICH_TIMEOUT=${MPICH_TIMEOUT:-120}
OUT_DIR=${OUT_DIR:-$repo/docs/results/osu-coll}

harness_name=osu-coll/run.sh
# shellcheck source-path=SCRIPTDIR source=../common/harness.sh
. "$script_dir/../common/harness.sh"
case $SWEEP in
  0|1|openmpi|ccmpi) ;;
  all) SWEEP=1 ;;
  *) die "--sweep takes openmpi or ccmpi, not $SWEEP" ;;
esac
harness_check_tools
harness_pick_impls
[ -n "$osu_builds" ] || die "give the directory of OSU builds (see --help)"
osu_builds=$(cd "$osu_builds" 2>/dev/null && pwd) || die "no directory $osu_builds"
declare -A bench_dir
for impl in "${impls[@]}"; do
  d=$osu_builds/$impl/c/mpi/collective/blocking
  for c in $COLLS; do
    [ -x "$d/osu_$c" ] || die "missing $d/osu_$c (OSU_BUILDS must hold built trees for ${impls[*]})"
  done
  bench_dir[$impl]=$d
done
has_impl() { [[ " ${impls[*]} " == *" $1 "* ]]; }
if has_impl ccmpi; then
  # The OSU tree for ccmpi should be linked against this build (mpi.h is compiled in).
  rp=$(readelf -d "${bench_dir[ccmpi]}/osu_bcast" 2>/dev/null | sed -n 's/.*R.*PATH.*\[\(.*\)\]/\1/p')
  [ -n "$rp" ] && [ "$(cd "$rp" 2>/dev/null && pwd)" != "$build_dir/lib" ] &&
    echo "$harness_name: note: ${bench_dir[ccmpi]} was linked against $rp; running it with" \
      "$build_dir/lib (rebuild OSU with $build_dir/bin/mpicc if mpi.h changed)" >&2
fi

# Open MPI 4.1 coll_tuned algorithm numbers and names (ompi_info --param coll tuned
# --level 9); two_proc ones only work with 2 ranks and are left out.
declare -A ompi_algs=(
  [bcast]="1:basic_linear 2:chain 3:pipeline 4:split_binary_tree 5:binary_tree 6:binomial 7:knomial 8:scatter_allgather 9:scatter_allgather_ring"
  [allreduce]="1:basic_linear 2:nonoverlapping 3:recursive_doubling 4:ring 5:segmented_ring 6:rabenseifner"
  [alltoall]="1:basic_linear 2:pairwise 3:modified_bruck 4:linear_sync"
  [allgather]="1:linear 2:bruck 3:recursive_doubling 4:ring 5:neighbor"
)
best_csv=$OUT_DIR/openmpi_best.csv
declare -A ompi_best # coll.ranks.size -> N:name
if [ "$SWEEP" = 0 ] && has_impl openmpi; then
  if [ -s "$best_csv" ]; then
    while IFS=, read -r c n s alg name _; do
      [ "$c" = coll ] && continue
      ompi_best[$c.$n.$s]=$alg:$name
    done <"$best_csv"
  else
    echo "$harness_name: no $best_csv (run with --sweep first); no openmpi_best column" >&2
  fi
fi

# ccmpi algorithms per collective, from ccmpi_info --algorithms.
declare -A ccmpi_algs
if [ "$SWEEP" = 1 ] || [ "$SWEEP" = ccmpi ]; then
  has_impl ccmpi || die "the ccmpi sweep needs ccmpi in IMPLS"
  [ -x "$build_dir/bin/ccmpi_info" ] || die "no $build_dir/bin/ccmpi_info"
  for c in $COLLS; do
    ccmpi_algs[$c]=$("$build_dir/bin/ccmpi_info" --algorithms | awk -v c="$c" '
      $0 ~ "^  " c "  \\[" { on = 1; next }
      /^  [^ ]/ { on = 0 }
      on && /^    [a-z0-9_]+ / && $1 != "rules" && $1 != "rules:" { printf "%s ", $1 }')
    [ -n "${ccmpi_algs[$c]}" ] || die "ccmpi_info lists no $c algorithm"
  done
fi

harness_init ccmpi-osu-coll

# iters_for SIZE -> "iterations warmup"
iters_for() {
  local best="" e s
  for e in $ITERS; do
    s=${e%%:*}
    [ "$s" -le "$1" ] && best=$e
  done
  [ -n "$best" ] || best=${ITERS%% *}
  echo "${best#*:}" | tr : ' '
}

raw=$work/raw.tsv        # variant coll ranks size value rep
fails=$work/failures.tsv # variant coll ranks size rep exit why
: >"$raw"
: >"$fails"
declare -a commands_used
declare -A failed_before # variant.coll.ranks.size -> 1 when MPICH hit its cap

# measure VARIANT COLL RANKS SIZE REP: one invocation. VARIANT: ccmpi, ccmpi:ALG, openmpi,
# openmpi:N, mpich.
measure() {
  local variant=$1 coll=$2 n=$3 size=$4 rep=$5
  local impl=${variant%%:*} alg=${variant#*:} cap=$RUN_TIMEOUT env_cmd=()
  [ "$alg" = "$variant" ] && alg=""
  local key="$variant.$coll.$n.$size"
  if [ -n "${failed_before[$key]:-}" ]; then
    echo "  $variant $coll $n ranks ${size} B rep $rep: skipped (timed out before)" >&2
    return
  fi
  # Open MPI always yields when idle (the brief of this comparison), also without oversubscription.
  launcher "$impl" "$n" 1
  read -r it warm <<<"$(iters_for "$size")"
  case $impl in
    ccmpi)
      env_cmd=(env "LD_LIBRARY_PATH=$build_dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
      [ -n "$alg" ] && env_cmd+=("CCMPI_${coll^^}_ALGORITHM=$alg") ;;
    openmpi)
      [ -n "$alg" ] && launch=("${launch[@]:0:${#launch[@]}-2}" --mca coll_tuned_use_dynamic_rules 1
        --mca "coll_tuned_${coll}_algorithm" "$alg" -n "$n") ;;
    mpich)
      cap=$MPICH_TIMEOUT
      it=$((it / MPICH_ITER_DIV)); [ "$it" -lt 3 ] && it=3
      warm=$((warm / MPICH_ITER_DIV)); [ "$warm" -lt 1 ] && warm=1 ;;
  esac
  local cmd=("${bench_dir[$impl]}/osu_$coll" -m "$size:$size" -i "$it" -x "$warm")
  local tag="$variant.$coll.$n.$size.$rep"
  [ "$rep" = 1 ] && commands_used+=("$variant $coll $n ranks ${size} B: ${env_cmd[*]:+${env_cmd[*]} }${launch[*]} ${cmd[*]}")
  printf '  %-24s %-9s %2s ranks %7s B rep %s ... ' "$variant" "$coll" "$n" "$size" "$rep" >&2
  local start=$SECONDS
  run_capped "$cap" "$work/$tag.out" "$work/$tag.err" "${env_cmd[@]}" "${launch[@]}" "${cmd[@]}"
  local rc=$?
  awk -v v="$variant" -v c="$coll" -v n="$n" -v s="$size" -v rep="$rep" '
    $1 == s && $2 ~ /^[0-9.]+$/ { print v "\t" c "\t" n "\t" s "\t" $2 "\t" rep }' \
    "$work/$tag.out" >>"$raw"
  if [ "$rc" -ne 0 ]; then
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$variant" "$coll" "$n" "$size" "$rep" "$rc" \
      "$(first_error "$work/$tag.err" "$rc" "$cap")" >>"$fails"
    { [ "$rc" = 124 ] || [ "$rc" = 137 ]; } && failed_before[$key]=1
    echo "FAILED (exit $rc, $((SECONDS - start)) s)" >&2
  else
    echo "ok ($((SECONDS - start)) s)" >&2
  fi
}

# The algorithm ccmpi's selector picks at each point (CCMPI_VERBOSE=3, one iteration).
choices=$work/choices.tsv # coll ranks size algorithm how
: >"$choices"
probe_choice() {
  local coll=$1 n=$2 size=$3
  launcher ccmpi "$n" 0
  run_capped 120 "$work/probe.out" "$work/probe.err" env CCMPI_VERBOSE=3 \
    "LD_LIBRARY_PATH=$build_dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "${launch[@]}" \
    "${bench_dir[ccmpi]}/osu_$coll" -m "$size:$size" -i 1 -x 0
  cat "$work/probe.out" "$work/probe.err" |
    sed -n "s/.*debug: $coll: \([a-z0-9_]*\) (\([a-z ]*\).*/\1\t\2/p" | sort | uniq -c |
    sort -rn | awk -v c="$coll" -v n="$n" -v s="$size" 'NR == 1 {
      sub(/^ *[0-9]+ /, ""); print c "\t" n "\t" s "\t" $0 }' >>"$choices"
}

# variants_for COLL RANKS SIZE -> ${variants[@]} for this point.
variants_for() {
  local coll=$1 n=$2 size=$3 impl e
  variants=()
  for impl in "${impls[@]}"; do
    if [ "$SWEEP" = 0 ]; then
      variants+=("$impl")
      [ "$impl" = openmpi ] && [ -n "${ompi_best[$coll.$n.$size]:-}" ] &&
        variants+=("openmpi:${ompi_best[$coll.$n.$size]%%:*}")
    elif [ "$impl" = openmpi ] && [ "$SWEEP" != ccmpi ]; then
      variants+=(openmpi)
      for e in ${ompi_algs[$coll]}; do variants+=("openmpi:${e%%:*}"); done
    elif [ "$impl" = ccmpi ] && [ "$SWEEP" != openmpi ]; then
      variants+=(ccmpi)
      for e in ${ccmpi_algs[$coll]}; do variants+=("ccmpi:$e"); done
    fi
  done
}

started=$(date -u '+%Y-%m-%d %H:%M UTC')
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
reps=$REPS
[ "$SWEEP" != 0 ] && reps=$SWEEP_REPS
echo "$harness_name: ${impls[*]}; sweep=$SWEEP; $reps repetitions; QUICK=$QUICK" >&2
if [ "$SWEEP" = 0 ] && has_impl ccmpi; then
  echo "probing ccmpi's choices (CCMPI_VERBOSE=3)" >&2
  for n in $RANKS; do for coll in $COLLS; do for size in $SIZES; do
    probe_choice "$coll" "$n" "$size"
  done; done; done
fi
for ((rep = 1; rep <= reps; rep++)); do
  echo "repetition $rep/$reps" >&2
  for n in $RANKS; do
    for coll in $COLLS; do
      for size in $SIZES; do
        variants_for "$coll" "$n" "$size"
        k=${#variants[@]}
        # Rotate the order of the variants by one each repetition.
        for ((i = 0; i < k; i++)); do
          measure "${variants[$(((i + rep - 1) % k))]}" "$coll" "$n" "$size" "$rep"
        done
      done
    done
  done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

mkdir -p "$OUT_DIR"
{
  echo "started=$started"
  echo "load_before=$load_before"
  echo "load_after=$load_after"
  harness_machine_facts "$repo"
  echo "osu=$(grep -ho 'Test v[0-9][0-9.]*' "$work"/*.out 2>/dev/null | head -n1 | cut -c7-)"
  echo "osu_builds=$osu_builds"
  echo "build_dir=$build_dir"
  echo "sweep=$SWEEP"
  echo "reps=$reps"
  echo "quick=$QUICK"
  echo "iters=$ITERS"
  echo "mpich_iter_div=$MPICH_ITER_DIV"
  echo "mpich_timeout=$MPICH_TIMEOUT"
  echo "run_timeout=$RUN_TIMEOUT"
  niceness=$(nice)
  [ "$niceness" -gt 0 ] && niceness="nice -n $niceness " || niceness=""
  if [ "$SWEEP" = 0 ]; then
    echo "invocation=REPS=$REPS QUICK=$QUICK ${niceness}bench/osu-coll/run.sh $*"
  else
    echo "invocation=SWEEP_REPS=$SWEEP_REPS QUICK=$QUICK ${niceness}bench/osu-coll/run.sh $*"
  fi
  for c in "${!ompi_algs[@]}"; do echo "ompi_algs_$c=${ompi_algs[$c]}"; done
} >"$work/facts"
printf '%s\n' "${commands_used[@]}" >"$work/commands"

python3 "$script_dir/summarise.py" "$work" "$OUT_DIR" "$harness_common_dir" ||
  die "summarising failed"

if [ "$SWEEP" = 0 ]; then
  if command -v gnuplot >/dev/null; then
    gnuplot "$work/osu-coll.gp" || echo "$harness_name: gnuplot failed; no osu-coll.svg" >&2
  else
    echo "$harness_name: gnuplot not installed; no osu-coll.svg" >&2
  fi
  echo "$harness_name: wrote $OUT_DIR/results.csv, README.md, osu-coll.svg" >&2
else
  echo "$harness_name: wrote the sweep files in $OUT_DIR (sweep.md)" >&2
fi
[ -s "$fails" ] && echo "$harness_name: $(wc -l <"$fails") invocation(s) failed; see the README" >&2
exit 0
