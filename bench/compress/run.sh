#!/usr/bin/env bash
# `A && B || die` is meant.
# shellcheck disable=SC2015
# Compression of floating-point messages end to end (docs/compression.md), three
# experiments, each repetition running the modes in an order that rotates:
#
#   cluster  2 emulated hosts at 100 Mbit/s (ccmpi-cluster): bw.c (osu_bw's method,
#            window 16) with the contents of each sample message file of shared/data/fp
#            (and random doubles), CCMPI_COMPRESS=off|on|auto, 64 KiB and 1 MiB messages.
#            Goal: with `on`, bandwidth >= 0.9 x ratio x link rate (ratio = sent bytes /
#            bytes on the wire, from CCMPI_COMPRESS_STATS).
#   loopback 2 ranks on this machine, random doubles that do not compress, off vs auto.
#            Goal: auto no more than 3% slower than off.
#   halo     16 emulated hosts at 100 Mbit/s: halo.c (a 1-D halo-exchange stencil on a
#            smooth field, 512 KiB halos), off vs on vs auto: time per iteration and the
#            speed-up; the result must be bit-identical in every mode.
#
# Usage: bench/compress/run.sh [BUILD_DIR]        (default ./build; needs root for the
#        emulated cluster)
# Environment: REPS=3, QUICK=1 (one repetition, short runs: proves the harness only),
#   EXPERIMENTS="cluster loopback halo", DATA=<repo>/../shared/data/fp,
#   OUT_DIR=<repo>/docs/results/compress, KEEP_WORK=1 keeps the raw outputs.
# Writes OUT_DIR/results.csv, README.md and compress.svg (gnuplot).
set -u -o pipefail

script_dir=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$script_dir/../.." && pwd)
build_dir=${1:-./build}
REPS=${REPS:-3}
QUICK=${QUICK:-0}
EXPERIMENTS=${EXPERIMENTS:-"cluster loopback halo"}
DATA=${DATA:-$(cd "$repo/../shared/data/fp" 2>/dev/null && pwd)}
OUT_DIR=${OUT_DIR:-$repo/docs/results/compress}
[ "$QUICK" = 1 ] && REPS=1

die() { echo "bench/compress/run.sh: $*" >&2; exit 1; }
build_dir=$(cd "$build_dir" 2>/dev/null && pwd) || die "no build directory $1"
bin=$build_dir/bin
[ -x "$bin/mpicc" ] && [ -x "$bin/mpirun" ] && [ -x "$bin/ccmpi-cluster" ] || die "build ccmpi first"
[ -n "$DATA" ] && [ -r "$DATA/msg_bt.f64" ] || die "no sample messages in ${DATA:-shared/data/fp}"
command -v python3 >/dev/null || die "python3 is needed"

work=$(mktemp -d /tmp/ccmpi-compress-bench.XXXXXX)
cluster_name=cz$$
cleanup() {
  "$bin/ccmpi-cluster" down --name "$cluster_name" >/dev/null 2>&1
  if [ "${KEEP_WORK:-0}" = 1 ]; then echo "raw outputs kept in $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

"$bin/mpicc" -O2 -o "$work/bw" "$script_dir/bw.c" || die "cannot build bw.c"
"$bin/mpicc" -O2 -o "$work/halo" "$script_dir/halo.c" -lm || die "cannot build halo.c"
csv=$work/results.csv
echo "experiment,input,mode,rep,size,value,sent_bytes,sent_wire" >"$csv"

# run_bw EXPERIMENT INPUT MODE REP ARGS...: one bw.c run; one CSV row per size.
run_bw() {
  local exp=$1 input=$2 mode=$3 rep=$4
  shift 4
  local out=$work/$exp-$input-$mode-$rep
  CCMPI_COMPRESS=$mode CCMPI_COMPRESS_STATS=1 timeout 600 "$@" >"$out.out" 2>"$out.err" ||
    { cat "$out.err" >&2; die "$exp run failed: $input $mode (rep $rep)"; }
  local sb sw
  read -r sb sw < <(sed -n 's/.*rank=0 .*sent_bytes=\([0-9]*\) sent_wire=\([0-9]*\).*/\1 \2/p' "$out.err")
  sed -n 's/^size=\([0-9]*\) mbps=\([0-9.]*\).*/\1 \2/p' "$out.out" | while read -r size mbps; do
    echo "$exp,$input,$mode,$rep,$size,$mbps,${sb:-0},${sw:-0}" >>"$csv"
  done
}

modes_for_rep() { # rotating order
  local rep=$1
  shift
  local m=("$@") k=$((rep % $#)) i
  for ((i = 0; i < $#; ++i)); do echo "${m[$(((i + k) % $#))]}"; done
}

inputs=(bt lu sp sweep3d sppm random)
secs=2
[ "$QUICK" = 1 ] && { inputs=(bt random); secs=0.3; }

if [[ " $EXPERIMENTS " == *" cluster "* ]]; then
  hostfile=$("$bin/ccmpi-cluster" up --hosts 2 --rate 100mbit --name "$cluster_name" --owner $$ 2>"$work/up.err") ||
    { cat "$work/up.err" >&2; die "could not build the 2-host cluster"; }
  for ((rep = 0; rep < REPS; ++rep)); do
    for input in "${inputs[@]}"; do
      if [ "$input" = random ]; then src=(--random); else src=(--file "$DATA/msg_$input.f64"); fi
      for mode in $(modes_for_rep "$rep" off on auto); do
        # One run per size, so that the counters give each size's ratio.
        for size in 65536 1048576; do
          echo "cluster: $input $mode $size (rep $rep)" >&2
          run_bw cluster "$input-$size" "$mode" "$rep" "$bin/mpirun" --hostfile "$hostfile" \
            --launcher "$bin/ccmpi-cluster exec" --iface r0 -n 2 \
            "$work/bw" "${src[@]}" --sizes "$size" --window 16 --seconds "$secs"
        done
      done
    done
  done
  "$bin/ccmpi-cluster" down --name "$cluster_name" >/dev/null 2>&1
fi

if [[ " $EXPERIMENTS " == *" loopback "* ]]; then
  lreps=$((REPS * 3))
  [ "$QUICK" = 1 ] && lreps=2
  for ((rep = 0; rep < lreps; ++rep)); do
    for mode in $(modes_for_rep "$rep" off auto); do
      echo "loopback: random $mode (rep $rep)" >&2
      run_bw loopback random "$mode" "$rep" "$bin/mpirun" -n 2 "$work/bw" --random \
        --sizes 65536,1048576,4194304 --window 64 --seconds "$secs"
    done
  done
fi

if [[ " $EXPERIMENTS " == *" halo "* ]]; then
  hosts=16 iters=20
  [ "$QUICK" = 1 ] && { hosts=4; iters=3; }
  hostfile=$("$bin/ccmpi-cluster" up --hosts "$hosts" --rate 100mbit --name "$cluster_name" --owner $$ 2>"$work/up.err") ||
    { cat "$work/up.err" >&2; die "could not build the $hosts-host cluster"; }
  for ((rep = 0; rep < REPS; ++rep)); do
    for mode in $(modes_for_rep "$rep" off on auto); do
      echo "halo: $mode (rep $rep)" >&2
      out=$work/halo-$mode-$rep
      CCMPI_COMPRESS=$mode CCMPI_COMPRESS_STATS=1 timeout 900 "$bin/mpirun" --hostfile "$hostfile" \
        --launcher "$bin/ccmpi-cluster exec" --iface r0 -n "$hosts" "$work/halo" --nx 16384 \
        --rows 64 --depth 4 --iters "$iters" >"$out.out" 2>"$out.err" ||
        { cat "$out.err" >&2; die "halo failed ($mode)"; }
      ms=$(sed -n 's/.*ms_per_iter=\([0-9.]*\).*/\1/p' "$out.out")
      sum=$(sed -n 's/.*checksum=\([0-9a-f]*\).*/\1/p' "$out.out")
      read -r sb sw < <(awk '/ccmpi-compress:/ { for (i = 1; i <= NF; i++) { split($i, kv, "=");
        if (kv[1] == "sent_bytes") b += kv[2]; if (kv[1] == "sent_wire") w += kv[2] } }
        END { print b + 0, w + 0 }' "$out.err")
      echo "halo,$sum,$mode,$rep,$hosts,$ms,$sb,$sw" >>"$csv"
    done
  done
  "$bin/ccmpi-cluster" down --name "$cluster_name" >/dev/null 2>&1
fi

mkdir -p "$OUT_DIR"
python3 - "$csv" "$OUT_DIR" "$QUICK" "$REPS" <<'PY' || die "summarising failed"
import csv, os, statistics, subprocess, sys, datetime, platform
src, out, quick, reps = sys.argv[1], sys.argv[2], sys.argv[3] == "1", int(sys.argv[4])
rows = list(csv.DictReader(open(src)))
link = 100e6 / 8 * 1448 / 1538 / 1e6  # MB/s of TCP payload on a 100 Mbit/s cable
def med(v): return statistics.median(v) if v else float("nan")
lines = ["# Compression of floating-point messages, end to end", ""]
if quick:
    lines += ["**QUICK smoke run (one short repetition): these numbers only prove the harness.**", ""]
lines += ["Generated by `bench/compress/run.sh` on %s (%d repetition(s), modes in rotating order; "
          "medians, min–max in brackets). Machine: %s, %d cores; see docs/compression.md."
          % (datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC"), reps, platform.machine(),
             os.cpu_count()), ""]
csv_out = open(os.path.join(out, "results.csv"), "w")
csv_out.write(open(src).read())
plot = []
cl = [r for r in rows if r["experiment"] == "cluster"]
if cl:
    lines += ["## 2 emulated hosts at 100 Mbit/s: bandwidth of MPI_DOUBLE messages (MB/s of data)", "",
              "Link rate B = %.2f MB/s of TCP payload. ratio = bytes sent / bytes on the wire with `on` "
              "(rank 0's counters, one run per size). Goal: `on` >= 0.9 x ratio x B. Where ratio x B "
              "exceeds what the codec and the machine can do (sppm: constant data), the bandwidth is "
              "bounded by them instead." % link, "",
              "| input | size | off | on | auto | ratio | on / (ratio x B) |", "|---|---:|---:|---:|---:|---:|---:|"]
    for inp in dict.fromkeys(r["input"] for r in cl):
        for size in dict.fromkeys(r["size"] for r in cl if r["input"] == inp):
            name = inp.rsplit("-", 1)[0]
            cell, vals = {}, {}
            for m in ("off", "on", "auto"):
                v = [float(r["value"]) for r in cl if r["input"] == inp and r["size"] == size and r["mode"] == m]
                vals[m] = med(v)
                cell[m] = "%.2f [%.2f–%.2f]" % (med(v), min(v), max(v)) if v else "-"
            on = [r for r in cl if r["input"] == inp and r["mode"] == "on"]
            sb = sum(float(r["sent_bytes"]) for r in on); sw = sum(float(r["sent_wire"]) for r in on)
            ratio = sb / sw if sw else float("nan")
            goal = vals["on"] / (ratio * link) if ratio == ratio else float("nan")
            lines.append("| %s | %d KiB | %s | %s | %s | %.3f | %.2f |" % (name, int(size) // 1024, cell["off"], cell["on"],
                                                                    cell["auto"], ratio, goal))
            if size == "1048576":
                plot.append((name, vals["off"], vals["on"], vals["auto"], ratio * link))
    lines.append("")
lo = [r for r in rows if r["experiment"] == "loopback"]
if lo:
    lines += ["## Loopback, 2 ranks, random doubles (do not compress): off vs auto (MB/s)", "",
              "Goal: auto no more than 3% slower than off.", "",
              "| size | off | auto | auto / off |", "|---:|---:|---:|---:|"]
    for size in dict.fromkeys(r["size"] for r in lo):
        o = [float(r["value"]) for r in lo if r["size"] == size and r["mode"] == "off"]
        a = [float(r["value"]) for r in lo if r["size"] == size and r["mode"] == "auto"]
        lines.append("| %d KiB | %.0f [%.0f–%.0f] | %.0f [%.0f–%.0f] | %.3f |" % (
            int(size) // 1024, med(o), min(o), max(o), med(a), min(a), max(a), med(a) / med(o)))
    lines.append("")
ha = [r for r in rows if r["experiment"] == "halo"]
if ha:
    hosts = ha[0]["size"]
    sums = set(r["input"] for r in ha)
    lines += ["## Halo-exchange stencil on %s emulated hosts at 100 Mbit/s (halo.c, 512 KiB halos)" % hosts, "",
              "| mode | ms per iteration | speed-up vs off | ratio on the wire |", "|---|---:|---:|---:|"]
    off = med([float(r["value"]) for r in ha if r["mode"] == "off"])
    for m in ("off", "on", "auto"):
        v = [float(r["value"]) for r in ha if r["mode"] == m]
        sb = sum(float(r["sent_bytes"]) for r in ha if r["mode"] == m)
        sw = sum(float(r["sent_wire"]) for r in ha if r["mode"] == m)
        lines.append("| %s | %.1f [%.1f–%.1f] | %.2f | %s |" % (m, med(v), min(v), max(v), off / med(v),
                                                            "%.2f" % (sb / sw) if sw else "-"))
    lines += ["", "Result checksum (bits of every value): %s in every run." %
              ("identical (%s)" % next(iter(sums)) if len(sums) == 1 else "DIFFERENT: " + ", ".join(sorted(sums))), ""]
lines += ["Rerun: `bench/compress/run.sh build` (as root, a quiet machine; about 15 minutes). "
          "Raw rows: `results.csv` (value = MB/s, or ms per iteration for halo)."]
if plot:
    dat = os.path.join(out, "compress.dat")
    with open(dat, "w") as f:
        for p in plot: f.write("%s %.3f %.3f %.3f %.3f\n" % p)
    gp = ('set terminal svg size 800,420\nset output "%s"\nset style data histograms\n'
          'set style histogram clustered\nset style fill solid 0.8\nset ylabel "MB/s of data (1 MiB messages)"\n'
          'set title "2 hosts, 100 Mbit/s: bandwidth by input and compression mode"\nset key top left\n'
          'plot "%s" using 2:xtic(1) title "off", "" using 3 title "on", "" using 4 title "auto", '
          '"" using 5 title "ratio x link"\n' % (os.path.join(out, "compress.svg"), dat))
    try:
        subprocess.run(["gnuplot"], input=gp.encode(), check=True)
        lines.append("Plot: `compress.svg`.")
    except Exception as e:
        lines.append("(no plot: %s)" % e)
    os.remove(dat)
open(os.path.join(out, "README.md"), "w").write("\n".join(lines) + "\n")
print("wrote", out)
PY
