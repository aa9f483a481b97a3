#!/usr/bin/env bash
# Point-to-point comparison of ccmpi with Open MPI (forced onto TCP) and MPICH on one
# machine, measured in one run: for every repetition each test runs once per
# implementation, the order of implementations rotating between repetitions, so drifts in
# machine load hit all of them alike. Reports median/min/max over the repetitions.
#
#   latency     2 ranks, ping-pong, sizes 1 B .. 4 MiB            (osu_latency)
#   bw, bibw    2 ranks, window of 64, sizes 1 B .. 4 MiB         (osu_bw, osu_bibw)
#   multilat16  16 ranks (oversubscribed on small machines), 8 pairs at once, 1 B and
#               64 KiB; Open MPI with mpi_yield_when_idle; MPICH only with
#               MULTILAT_MPICH=1 (it busy-polls: minutes per point when oversubscribed)
#
# Usage: bench/p2p/run.sh [BUILD_DIR] [OSU_BUILDS]
#   BUILD_DIR   ccmpi build tree with bin/mpicc and bin/mpirun (default ./build)
#   OSU_BUILDS  optional: a directory holding OSU Micro-Benchmarks trees ALREADY BUILT
#               for each implementation: OSU_BUILDS/{ccmpi,openmpi,mpich}/c/mpi/pt2pt/
#               standard/osu_latency ... (also accepted as $OSU_BUILDS or $OSU_DIR).
#               This script does not build or fetch OSU. Without it, bench/p2p/p2p_bench.c
#               (same methodology) is compiled with each implementation's mpicc and used.
# Environment:
#   REPS=5           repetitions per (test, implementation)
#   QUICK=1          smoke run: few iterations per size (numbers only prove the harness)
#   IMPLS="ccmpi openmpi mpich"   subset/order of implementations
#   MULTILAT_RANKS=16, MULTILAT_MPICH=0
#   RUN_TIMEOUT=900  seconds one benchmark invocation may take (then it is killed)
#   OUT_DIR=<repo>/docs/results/p2p    results.csv, README.md, p2p.svg are written here
#   KEEP_WORK=1      keep the scratch directory (raw outputs) instead of deleting it
set -u -o pipefail

script_dir=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$script_dir/../.." && pwd)
build_dir=${1:-./build}
osu_builds=${2:-${OSU_BUILDS:-${OSU_DIR:-}}}
REPS=${REPS:-5}
QUICK=${QUICK:-0}
IMPLS=${IMPLS:-"ccmpi openmpi mpich"}
MULTILAT_RANKS=${MULTILAT_RANKS:-16}
MULTILAT_MPICH=${MULTILAT_MPICH:-0}
RUN_TIMEOUT=${RUN_TIMEOUT:-900}
OUT_DIR=${OUT_DIR:-$repo/docs/results/p2p}
MAX_BYTES=$((4 << 20))

# die, launcher, run_capped, reap_session, first_error, harness_machine_facts
harness_name=run.sh
# shellcheck source-path=SCRIPTDIR source=../common/harness.sh
. "$script_dir/../common/harness.sh"
harness_check_tools
harness_pick_impls
harness_init ccmpi-p2p-bench

# Benchmark programs: OSU builds given, or p2p_bench compiled with each mpicc.
declare -A bench_dir
if [ -n "$osu_builds" ]; then
  source_name="OSU Micro-Benchmarks (prebuilt in $osu_builds)"
  for impl in "${impls[@]}"; do
    d=$osu_builds/$impl/c/mpi/pt2pt/standard
    for p in osu_latency osu_bw osu_bibw osu_multi_lat; do
      [ -x "$d/$p" ] || die "missing $d/$p (OSU_BUILDS must hold built trees for ${impls[*]})"
    done
    bench_dir[$impl]=$d
  done
else
  source_name="bench/p2p/p2p_bench.c"
  for impl in "${impls[@]}"; do
    case $impl in
      ccmpi) cc=$build_dir/bin/mpicc ;;
      openmpi) cc=mpicc.openmpi ;;
      mpich) cc=mpicc.mpich ;;
    esac
    mkdir -p "$work/bin/$impl"
    "$cc" -O2 -o "$work/bin/$impl/p2p_bench" "$script_dir/p2p_bench.c" ||
      die "compiling p2p_bench.c with $cc failed"
    bench_dir[$impl]=$work/bin/$impl
  done
fi

# Iterations: OSU defaults for a real run, few for QUICK=1 (osu: -i N -x N/10).
if [ "$QUICK" = 1 ]; then lat_iters=200; bw_iters=10; ml_iters=200; else
  lat_iters=0; bw_iters=0; ml_iters=0; fi

# bench_cmd IMPL TEST SIZE_MIN SIZE_MAX ITERS -> ${cmd[@]} (program and arguments)
bench_cmd() {
  local impl=$1 test=$2 lo=$3 hi=$4 it=$5 d=${bench_dir[$1]}
  if [ -n "$osu_builds" ]; then
    local prog
    case $test in
      latency) prog=osu_latency ;; bw) prog=osu_bw ;; bibw) prog=osu_bibw ;;
      multilat*) prog=osu_multi_lat ;;
    esac
    cmd=("$d/$prog" -m "$lo:$hi")
    [ "$it" -gt 0 ] && cmd+=(-i "$it" -x $((it / 10 > 0 ? it / 10 : 1)))
  else
    local t=$test
    [[ $test == multilat* ]] && t=multilat
    cmd=("$d/p2p_bench" "$t" "$hi" "$it" "$lo")
  fi
}

raw=$work/raw.tsv        # impl test size value rep
fails=$work/failures.tsv # impl test sizes rep exit-code last-error-line
: >"$raw"
: >"$fails"
declare -a commands_used

# measure IMPL TEST NRANKS OVERSUB LO HI ITERS REP
measure() {
  local impl=$1 test=$2 n=$3 over=$4 lo=$5 hi=$6 it=$7 rep=$8
  launcher "$impl" "$n" "$over"
  bench_cmd "$impl" "$test" "$lo" "$hi" "$it"
  local tag="$impl.$test.$lo.$rep"
  [ "$rep" = 1 ] && commands_used+=("$impl $test: ${launch[*]} ${cmd[*]}")
  printf '  %-8s %-10s %8s..%-8s rep %s ... ' "$impl" "$test" "$lo" "$hi" "$rep" >&2
  local start=$SECONDS
  run_capped "$RUN_TIMEOUT" "$work/$tag.out" "$work/$tag.err" "${launch[@]}" "${cmd[@]}"
  local rc=$?
  # OSU lines: "<size> <value> ..."; p2p_bench lines: "<test> <size> <value>".
  awk -v impl="$impl" -v test="$test" -v rep="$rep" '
    $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9.]+$/ { print impl "\t" test "\t" $1 "\t" $2 "\t" rep; next }
    $2 ~ /^[0-9]+$/ && $3 ~ /^[0-9.]+$/ { print impl "\t" test "\t" $2 "\t" $3 "\t" rep }' \
    "$work/$tag.out" >>"$raw"
  if [ "$rc" -ne 0 ]; then
    local why
    why=$(first_error "$work/$tag.err" "$rc" "$RUN_TIMEOUT")
    printf '%s\t%s\t%s..%s\t%s\t%s\t%s\n' "$impl" "$test" "$lo" "$hi" "$rep" "$rc" "$why" \
      >>"$fails"
    echo "FAILED (exit $rc, $((SECONDS - start)) s)" >&2
  else
    echo "ok ($((SECONDS - start)) s)" >&2
  fi
}

started=$(date -u '+%Y-%m-%d %H:%M UTC')
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
echo "run.sh: ${impls[*]}; $REPS repetitions; source $source_name; QUICK=$QUICK" >&2
for ((rep = 1; rep <= REPS; rep++)); do
  # Rotate the implementation order each repetition.
  order=()
  for ((i = 0; i < ${#impls[@]}; i++)); do
    order+=("${impls[$(((i + rep - 1) % ${#impls[@]}))]}")
  done
  echo "repetition $rep/$REPS (order: ${order[*]})" >&2
  for test in latency bw bibw; do
    it=$lat_iters
    [ "$test" != latency ] && it=$bw_iters
    for impl in "${order[@]}"; do measure "$impl" "$test" 2 0 1 "$MAX_BYTES" "$it" "$rep"; done
  done
  for size in 1 65536; do
    for impl in "${order[@]}"; do
      [ "$impl" = mpich ] && [ "$MULTILAT_MPICH" != 1 ] && continue
      measure "$impl" "multilat$MULTILAT_RANKS" "$MULTILAT_RANKS" 1 "$size" "$size" \
        "$ml_iters" "$rep"
    done
  done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# Facts for the README.
mkdir -p "$OUT_DIR"
{
  echo "started=$started"
  echo "load_before=$load_before"
  echo "load_after=$load_after"
  harness_machine_facts "$repo"
  if [ -n "$osu_builds" ]; then
    osu_version=$(grep -ho 'Test v[0-9][0-9.]*' "$work"/*.out 2>/dev/null | head -n1 | cut -c6-)
    source_name="OSU Micro-Benchmarks ${osu_version:-(version unknown)}, trees prebuilt in $osu_builds"
  fi
  echo "source=$source_name"
  echo "reps=$REPS"
  echo "quick=$QUICK"
  echo "invocation=REPS=$REPS QUICK=$QUICK MULTILAT_RANKS=$MULTILAT_RANKS bench/p2p/run.sh $*"
  echo "multilat_ranks=$MULTILAT_RANKS"
  echo "multilat_mpich=$MULTILAT_MPICH"
} >"$work/facts"
printf '%s\n' "${commands_used[@]}" >"$work/commands"

python3 - "$work" "$OUT_DIR" "$harness_common_dir" <<'PY' || die "summarising failed"
import collections, os, statistics, sys

work, out = sys.argv[1], sys.argv[2]
sys.path.insert(0, sys.argv[3])
from report import failures_section, fmt, machine_section, read_facts, read_tsv
facts = read_facts(work)
vals = collections.defaultdict(list)
for line in open(os.path.join(work, "raw.tsv")):
    impl, test, size, value, _rep = line.split("\t")
    vals[(impl, test, int(size))].append(float(value))
fails = read_tsv(os.path.join(work, "failures.tsv"))
commands = [l.rstrip("\n") for l in open(os.path.join(work, "commands")) if l.strip()]
impl_order = ["ccmpi", "openmpi", "mpich"]
names = {"ccmpi": "ccmpi", "openmpi": "Open MPI (TCP)", "mpich": "MPICH"}
stats = {}
with open(os.path.join(out, "results.csv"), "w") as f:
    f.write("impl,test,size,median,min,max,reps\n")
    for key in sorted(vals, key=lambda k: (impl_order.index(k[0]), k[1], k[2])):
        v = vals[key]
        stats[key] = (statistics.median(v), min(v), max(v), len(v))
        f.write("%s,%s,%d,%.2f,%.2f,%.2f,%d\n" % (key + stats[key]))

# Per-implementation data files for gnuplot: size median min max.
impls = [i for i in impl_order if any(k[0] == i for k in stats)]
series = []
for impl in impls:
    for test in ("latency", "bw", "bibw"):
        rows = sorted((k[2], s) for k, s in stats.items() if k[0] == impl and k[1] == test)
        path = os.path.join(work, "%s.%s.dat" % (impl, test))
        with open(path, "w") as f:
            for size, s in rows:
                f.write("%d %g %g %g\n" % (size, s[0], s[1], s[2]))
        series.append((impl, test, path, len(rows)))

colors = {"ccmpi": "#d62728", "openmpi": "#1f77b4", "mpich": "#2ca02c"}
def plots(tests):
    parts = []
    for impl, test, path, n in series:
        if test in tests and n:
            dash = " dt 2" if test == "bibw" else ""
            label = names[impl] + (" bibw" if test == "bibw" else "")
            parts.append("'%s' using 1:2 with linespoints lc rgb '%s' lw 2 pt 7 ps 0.4%s"
                         " title '%s'" % (path, colors[impl], dash, label))
    return ", \\\n  ".join(parts) or "NaN notitle"
quick = " (QUICK smoke run, not a measurement)" if facts["quick"] == "1" else ""
gp = """set terminal svg size 1100,440 dynamic noenhanced font 'sans,11'
set output '%s'
set multiplot layout 1,2 title 'ccmpi vs Open MPI (TCP) vs MPICH, one machine, medians of %s runs%s'
set logscale x 2
set logscale y
set format x '%%.0b%%B'
set xlabel 'message size (bytes)'
set grid
set key top left
set title 'latency (osu_latency method), lower is better'
set ylabel 'one-way latency (us)'
plot %s
set title 'bandwidth: bw solid, bibw dashed; higher is better'
set key bottom right
set ylabel 'MB/s (1e6 bytes/s)'
plot %s
unset multiplot
""" % (os.path.join(out, "p2p.svg"), facts["reps"], quick,
       plots(("latency",)), plots(("bw", "bibw")))
with open(os.path.join(work, "p2p.gp"), "w") as f:
    f.write(gp)

def med(impl, test, size):
    s = stats.get((impl, test, size))
    return s[0] if s else None
ml = "multilat" + facts["multilat_ranks"]
headline = [
    ("latency, 1 B (us)", "latency", 1, "lower"),
    ("latency, 64 KiB (us)", "latency", 65536, "lower"),
    ("bw, 1 MiB (MB/s)", "bw", 1 << 20, "higher"),
    ("bw, 4 MiB (MB/s)", "bw", 4 << 20, "higher"),
    ("bibw, 1 MiB (MB/s)", "bibw", 1 << 20, "higher"),
    ("bibw, 4 MiB (MB/s)", "bibw", 4 << 20, "higher"),
    ("multi_lat %s ranks, 1 B (us)" % facts["multilat_ranks"], ml, 1, "lower"),
    ("multi_lat %s ranks, 64 KiB (us)" % facts["multilat_ranks"], ml, 65536, "lower"),
]
lines = ["# Point-to-point: ccmpi vs Open MPI (TCP) vs MPICH", ""]
if facts["quick"] == "1":
    lines += ["**QUICK smoke run: few iterations on a loaded machine. These numbers only show",
              "that the harness works; they are not a measurement.**", ""]
lines += ["Generated by `bench/p2p/run.sh` on %s. Medians of %s repetition(s); the"
          % (facts["started"], facts["reps"]),
          "implementations alternate within each repetition. Ratio = ccmpi / Open MPI of the",
          "medians (for latency below 1 is better, for bandwidth above 1 is better).", "",
          "| metric | ccmpi | Open MPI (TCP) | MPICH | ccmpi / Open MPI | better |",
          "| --- | ---: | ---: | ---: | ---: | --- |"]
for label, test, size, better in headline:
    c, o, m = (med(i, test, size) for i in impl_order)
    ratio = "%.2f" % (c / o) if c is not None and o else "n/a"
    lines.append("| %s | %s | %s | %s | %s | %s |" % (label, fmt(c), fmt(o), fmt(m), ratio, better))
lines += ["", "Benchmark source: %s. Units: latency in microseconds (one way), bandwidth in"
          % facts["source"],
          "MB/s with MB = 10^6 bytes. MPICH runs with its default (shared-memory) transport, so",
          "it is a same-node reference rather than a TCP one. Full data: `results.csv`",
          "(impl,test,size,median,min,max,reps; reps = successful repetitions); plot: `p2p.svg`.",
          ""]
if facts["multilat_mpich"] != "1":
    lines += ["MPICH is left out of multi_lat: it busy-polls, and with %s ranks on %s cores one"
              % (facts["multilat_ranks"], facts["cores"]),
              "1-byte exchange takes milliseconds (set MULTILAT_MPICH=1 to include it).", ""]
lines += failures_section(fails, ["impl", "test", "sizes", "rep", "exit", "first error line"])
lines += ["## How it was run", "", "```", facts["invocation"], "```", "",
          "Per implementation (first repetition; sizes/iterations vary per test):", "", "```"]
lines += [c.replace(work, "$WORK") for c in commands]
lines += ["```", ""] + machine_section(facts)
with open(os.path.join(out, "README.md"), "w") as f:
    f.write("\n".join(lines))
PY

if command -v gnuplot >/dev/null; then
  gnuplot "$work/p2p.gp" || echo "run.sh: gnuplot failed; no p2p.svg" >&2
else
  echo "run.sh: gnuplot not installed; no p2p.svg" >&2
fi
echo "run.sh: wrote $OUT_DIR/results.csv, README.md, p2p.svg" >&2
[ -s "$fails" ] && echo "run.sh: $(wc -l <"$fails") invocation(s) failed; see README.md" >&2
exit 0
