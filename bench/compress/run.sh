#!/usr/bin/env bash
# Benchmarks of ccmpi's on-the-fly compression of floating-point messages
# (docs/compression.md): CCMPI_COMPRESS=off|on|auto compared in one run, the order of the
# modes rotating between repetitions so that drifts in machine load hit all of them alike.
# Reports median [min-max] over the repetitions.
#
#   cluster   2 emulated hosts at RATE (ccmpi-cluster, default 100mbit): bench/compress/
#             bw.c (osu_bw's method, window 64) with the contents of each sample message
#             (DATA/msg_{bt,lu,sp,sweep3d,sppm}.f64, tiled) and random doubles; off, on,
#             auto. Goal (with on): bandwidth >= 0.9 x ratio x B, ratio = original bytes /
#             bytes on the wire (CCMPI_COMPRESS_STATS, per size from MPIX_Compress_get_stats)
#             and B the TCP payload rate of the link.
#   loopback  2 ranks on this machine (plain mpirun), random doubles that do not compress,
#             off vs auto in alternating runs. Goal: auto no more than 3% slower than off.
#   halo      HALO_HOSTS (16) emulated hosts at RATE: bench/compress/halo.c (2-D Jacobi
#             halo exchange on a smooth field); off, on, auto: time per iteration, speed-up,
#             and the final field's checksum, which must be identical in every run.
#
# Usage: bench/compress/run.sh [BUILD_DIR]     (default ./build; cluster and halo need root)
# A full run takes about 20-25 minutes (cluster ~17, loopback ~1.5, halo ~3); QUICK=1 ~1.
# Environment (defaults in brackets; QUICK=1 changes several):
#   REPS [3; QUICK 2]        repetitions of cluster and halo (each runs every mode once)
#   QUICK [0]                smoke run: few inputs and sizes, short runs, 4 halo hosts;
#                            the numbers only show that the harness works
#   EXPERIMENTS ["cluster loopback halo"]
#   INPUTS ["bt lu sp sweep3d sppm random"; QUICK "bt sppm random"]   cluster inputs
#   DATA [<repo>/../shared/data/fp]   folder of msg_<input>.f64
#   RATE [100mbit]           link rate of the emulated clusters
#   CLUSTER_SIZES [1024,4096,16384,65536,262144,1048576; QUICK 16384,262144]
#   BW_SECONDS [2; QUICK 0.5] time budget of bw.c per size (1 window at least)
#   LOOP_REPS [9; QUICK 2]   loopback pairs of runs (off, auto; about 8 s a pair)
#   LOOP_SIZES [powers of 2 from 1 KiB to 4 MiB; QUICK 65536,1048576]
#   LOOP_SECONDS [1; QUICK 0.3]
#   HALO_HOSTS [16; QUICK 4]
#   HALO_ARGS ["--nx 65536 --ny 512 --iters 100 --warmup 5"; QUICK "--nx 16384 --ny 256
#             --iters 10 --warmup 2"]   (16 ranks: 4x4 blocks of 16384x128, 128 KiB rows)
#   RUN_TIMEOUT [900]        seconds one mpirun may take (then it is killed)
#   OUT_DIR [<repo>/docs/results/compress]   results.csv, README.md, compress.svg
#   KEEP_WORK=1              keep the scratch directory (raw outputs)
# CCMPI_COMPRESS_CODEC, _MIN, _CHUNK in the environment are passed on to every run.
# The tables, README and plot are made by bench/compress/summarise.py.
# Exit status: 0 if every run succeeded and the halo checksums agree, else 1 (the outputs
# are written either way).
set -u -o pipefail

script_dir=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$script_dir/../.." && pwd)
build_dir=${1:-./build}
QUICK=${QUICK:-0}
if [ "$QUICK" = 1 ]; then
  REPS=${REPS:-2}
  INPUTS=${INPUTS:-"bt sppm random"}
  CLUSTER_SIZES=${CLUSTER_SIZES:-16384,262144}
  BW_SECONDS=${BW_SECONDS:-0.5}
  LOOP_REPS=${LOOP_REPS:-2}
  LOOP_SIZES=${LOOP_SIZES:-65536,1048576}
  LOOP_SECONDS=${LOOP_SECONDS:-0.3}
  HALO_HOSTS=${HALO_HOSTS:-4}
  HALO_ARGS=${HALO_ARGS:-"--nx 16384 --ny 256 --iters 10 --warmup 2"}
else
  REPS=${REPS:-3}
  INPUTS=${INPUTS:-"bt lu sp sweep3d sppm random"}
  CLUSTER_SIZES=${CLUSTER_SIZES:-1024,4096,16384,65536,262144,1048576}
  BW_SECONDS=${BW_SECONDS:-2}
  LOOP_REPS=${LOOP_REPS:-9}
  LOOP_SIZES=${LOOP_SIZES:-1024,2048,4096,8192,16384,32768,65536,131072,262144,524288,1048576,2097152,4194304}
  LOOP_SECONDS=${LOOP_SECONDS:-1}
  HALO_HOSTS=${HALO_HOSTS:-16}
  HALO_ARGS=${HALO_ARGS:-"--nx 65536 --ny 512 --iters 100 --warmup 5"}
fi
EXPERIMENTS=${EXPERIMENTS:-"cluster loopback halo"}
DATA=${DATA:-$repo/../shared/data/fp}
RATE=${RATE:-100mbit}
RUN_TIMEOUT=${RUN_TIMEOUT:-900}
DATA=$(cd "$DATA" 2>/dev/null && pwd || echo "$DATA")
OUT_DIR=${OUT_DIR:-$repo/docs/results/compress}

# die, run_capped, reap_session, first_error, harness_machine_facts, harness_init
harness_name=bench/compress/run.sh
# shellcheck source-path=SCRIPTDIR source=../common/harness.sh
. "$script_dir/../common/harness.sh"
harness_check_tools
bin=$build_dir/bin
want() { [[ " $EXPERIMENTS " == *" $1 "* ]]; }
for e in $EXPERIMENTS; do
  case $e in cluster | loopback | halo) ;; *) die "unknown experiment $e" ;; esac
done
if want cluster || want halo; then
  [ -x "$bin/ccmpi-cluster" ] || die "$bin/ccmpi-cluster missing (build ccmpi first)"
  [ "$(id -u)" = 0 ] || die "the cluster and halo experiments need root (or EXPERIMENTS=loopback)"
fi
if want cluster; then
  for input in $INPUTS; do
    [ "$input" = random ] || [ -r "$DATA/msg_$input.f64" ] || die "no $DATA/msg_$input.f64"
  done
fi
[[ $RATE =~ ^([0-9.]+)(kbit|mbit|gbit)$ ]] || die "RATE must look like 100mbit, 1gbit or 500kbit"
case ${BASH_REMATCH[2]} in kbit) mult=1e3 ;; mbit) mult=1e6 ;; gbit) mult=1e9 ;; esac
rate_bits=$(awk -v r="${BASH_REMATCH[1]}" -v m="$mult" 'BEGIN { printf "%.0f", r * m }')

harness_init ccmpi-compress-bench
cluster_name=cb$$
cluster_used=0
hostfile=""
cluster_down() {
  [ "$cluster_used" = 1 ] || return 0
  "$bin/ccmpi-cluster" down --name "$cluster_name" >/dev/null 2>"$work/down.err" ||
    echo "$harness_name: ccmpi-cluster down --name $cluster_name failed: $(tail -n1 "$work/down.err")" >&2
  cluster_used=0
}
# The cluster goes on every exit (harness_init's INT/TERM traps exit, which runs this);
# --owner $$ removes it at the next up/down even after a kill -9 of this script.
trap 'cluster_down; harness_cleanup' EXIT
trap 'echo "$harness_name: interrupted" >&2; exit 130' INT TERM HUP

fails=$work/failures.tsv # experiment input mode rep exit-code why
bw_raw=$work/bw.tsv      # experiment input mode rep size mbps windows ratio coded code decode
halo_raw=$work/halo.tsv  # mode rep ms comm_ms checksum sum dims block row_bytes col_bytes
stats_raw=$work/stats.tsv # experiment input mode rep codec sent_bytes sent_wire compress_s
#                           recv_bytes recv_wire decompress_s (sums over the ranks)
: >"$fails"
: >"$bw_raw"
: >"$halo_raw"
: >"$stats_raw"
declare -A commands_used

"$bin/mpicc" -O2 -o "$work/bw" "$script_dir/bw.c" || die "compiling bw.c failed"
"$bin/mpicc" -O2 -o "$work/halo" "$script_dir/halo.c" -lm || die "compiling halo.c failed"

# cluster_up HOSTS: a fresh cluster of HOSTS hosts at RATE; sets hostfile.
cluster_up() {
  cluster_down
  cluster_used=1
  echo "  ccmpi-cluster up --hosts $1 --rate $RATE --name $cluster_name ..." >&2
  if ! "$bin/ccmpi-cluster" up --hosts "$1" --rate "$RATE" --name "$cluster_name" --owner $$ \
    >"$work/up.out" 2>"$work/up.err"; then
    printf 'cluster\t%s hosts\t-\t-\t-\tccmpi-cluster up failed: %s\n' "$1" \
      "$(tail -n1 "$work/up.err")" >>"$fails"
    echo "$harness_name: ccmpi-cluster up failed:" >&2
    cat "$work/up.err" >&2
    return 1
  fi
  hostfile=$("$bin/ccmpi-cluster" hostfile --name "$cluster_name") || return 1
}

# rotate REP MODE...: the modes, rotated by REP-1 places.
rotate() {
  local rep=$1
  shift
  local m=("$@") i
  for ((i = 0; i < ${#m[@]}; i++)); do printf '%s ' "${m[$(((i + rep - 1) % ${#m[@]}))]}"; done
}

# run_mpi EXP INPUT MODE REP -- LAUNCH... : one mpirun under the time cap, with the mode
# and the counters on. Leaves the outputs in $out.out / $out.err; records a failure.
run_mpi() {
  local exp=$1 input=$2 mode=$3 rep=$4
  shift 5
  out=$work/$exp.$input.$mode.$rep
  if [ -z "${commands_used[$exp]:-}" ]; then
    local a line="CCMPI_COMPRESS=off|on|auto CCMPI_COMPRESS_STATS=1"
    for a in "$@"; do
      if [[ $a == *" "* ]]; then line+=" '$a'"; else line+=" $a"; fi
    done
    # shellcheck disable=SC2016 # the literal text is meant
    [ -n "$hostfile" ] && line=${line//"$hostfile"/'$(ccmpi-cluster hostfile --name NAME)'}
    commands_used[$exp]=$line
  fi
  printf '  %-8s %-8s %-5s rep %s ... ' "$exp" "$input" "$mode" "$rep" >&2
  local start=$SECONDS rc
  run_capped "$RUN_TIMEOUT" "$out.out" "$out.err" \
    env CCMPI_COMPRESS="$mode" CCMPI_COMPRESS_STATS=1 "$@"
  rc=$?
  # Counters of every rank, summed.
  awk -v pre="$exp\t$input\t$mode\t$rep" '
    $1 == "ccmpi-compress:" {
      for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
      codec = v["codec"]; sb += v["sent_bytes"]; sw += v["sent_wire"]; cs += v["compress_s"]
      rb += v["recv_bytes"]; rw += v["recv_wire"]; ds += v["decompress_s"]; n++ }
    END { if (n) printf "%s\t%s\t%.0f\t%.0f\t%.6f\t%.0f\t%.0f\t%.6f\n", pre, codec, sb, sw, cs,
                        rb, rw, ds }' "$out.err" >>"$stats_raw"
  if [ "$rc" -ne 0 ]; then
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$exp" "$input" "$mode" "$rep" "$rc" \
      "$(first_error "$out.err" "$rc" "$RUN_TIMEOUT")" >>"$fails"
    echo "FAILED (exit $rc, $((SECONDS - start)) s)" >&2
    return 1
  fi
  echo "ok ($((SECONDS - start)) s)" >&2
}

# run_bw EXP INPUT MODE REP SIZES SECONDS LAUNCH...
run_bw() {
  local exp=$1 input=$2 mode=$3 rep=$4 sizes=$5 secs=$6
  shift 6
  local src=(--file "$DATA/msg_$input.f64")
  [ "$input" = random ] && src=(--random)
  run_mpi "$exp" "$input" "$mode" "$rep" -- "$@" "$work/bw" "${src[@]}" --sizes "$sizes" \
    --seconds "$secs"
  # "size MB/s windows [ratio coded code decode]" lines; sizes that completed are kept
  # even when a later one failed (a failure is in failures.tsv).
  awk -v pre="$exp\t$input\t$mode\t$rep" '$1 ~ /^[0-9]+$/ && NF >= 3 {
      printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", pre, $1, $2, $3,
        NF >= 7 ? $4 : "-", NF >= 7 ? $5 : "-", NF >= 7 ? $6 : "-", NF >= 7 ? $7 : "-" }' \
    "$out.out" >>"$bw_raw"
}

started=$(date -u '+%Y-%m-%d %H:%M UTC')
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
echo "$harness_name: experiments: $EXPERIMENTS; REPS=$REPS QUICK=$QUICK RATE=$RATE" >&2

if want cluster && cluster_up 2; then
  launch=("$bin/mpirun" --hostfile "$hostfile" --launcher "$bin/ccmpi-cluster exec" --iface r0
    -n 2)
  for ((rep = 1; rep <= REPS; rep++)); do
    echo "cluster: repetition $rep/$REPS" >&2
    for input in $INPUTS; do
      for mode in $(rotate "$rep" off on auto); do
        run_bw cluster "$input" "$mode" "$rep" "$CLUSTER_SIZES" "$BW_SECONDS" "${launch[@]}"
      done
    done
  done
  cluster_down
fi

if want loopback; then
  for ((rep = 1; rep <= LOOP_REPS; rep++)); do
    echo "loopback: pair $rep/$LOOP_REPS" >&2
    for mode in $(rotate "$rep" off auto); do
      run_bw loopback random "$mode" "$rep" "$LOOP_SIZES" "$LOOP_SECONDS" "$bin/mpirun" -n 2
    done
  done
fi

if want halo && cluster_up "$HALO_HOSTS"; then
  read -r -a halo_args <<<"$HALO_ARGS"
  for ((rep = 1; rep <= REPS; rep++)); do
    echo "halo: repetition $rep/$REPS" >&2
    for mode in $(rotate "$rep" off on auto); do
      run_mpi halo "$HALO_HOSTS" "$mode" "$rep" -- "$bin/mpirun" --hostfile "$hostfile" \
        --launcher "$bin/ccmpi-cluster exec" --iface r0 -n "$HALO_HOSTS" "$work/halo" \
        "${halo_args[@]}"
      awk -v pre="$mode\t$rep" '/^ranks=/ {
          for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
          printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", pre, v["ms_per_iter"],
            v["comm_ms_per_iter"], v["checksum"], v["sum"], v["dims"], v["block"],
            v["row_bytes"], v["col_bytes"] }' "$out.out" >>"$halo_raw"
    done
  done
  cluster_down
fi
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

mkdir -p "$OUT_DIR" || die "cannot create $OUT_DIR"
{
  echo "started=$started"
  echo "load_before=$load_before"
  echo "load_after=$load_after"
  harness_machine_facts "$repo"
  echo "quick=$QUICK"
  echo "reps=$REPS"
  echo "loop_reps=$LOOP_REPS"
  echo "rate=$RATE"
  echo "rate_bits=$rate_bits"
  echo "experiments=$EXPERIMENTS"
  echo "halo_hosts=$HALO_HOSTS"
  echo "halo_args=$HALO_ARGS"
  echo "bw_seconds=$BW_SECONDS"
  echo "loop_seconds=$LOOP_SECONDS"
  echo "codec_env=${CCMPI_COMPRESS_CODEC:-}"
  inv=""
  for v in REPS QUICK EXPERIMENTS INPUTS RATE CLUSTER_SIZES BW_SECONDS LOOP_REPS LOOP_SIZES \
    LOOP_SECONDS HALO_HOSTS HALO_ARGS; do
    if [[ ${!v} == *" "* ]]; then inv+="$v=\"${!v}\" "; else inv+="$v=${!v} "; fi
  done
  echo "invocation=${inv}bench/compress/run.sh $build_dir"
} >"$work/facts"
{
  echo "# emulated clusters (cluster: --hosts 2, halo: --hosts $HALO_HOSTS; removed afterwards):"
  echo "ccmpi-cluster up --hosts N --rate $RATE --name NAME --owner PID"
  for exp in cluster loopback halo; do
    [ -n "${commands_used[$exp]:-}" ] && echo "# $exp" && echo "${commands_used[$exp]}"
  done
} >"$work/commands"

python3 "$script_dir/summarise.py" "$work" "$OUT_DIR" "$harness_common_dir" ||
  die "summarising failed"
if command -v gnuplot >/dev/null; then
  gnuplot "$work/compress.gp" || echo "$harness_name: gnuplot failed; no compress.svg" >&2
else
  echo "$harness_name: gnuplot not installed; no compress.svg" >&2
fi
echo "$harness_name: wrote $OUT_DIR/results.csv, README.md, compress.svg" >&2
status=0
if [ -s "$fails" ]; then
  echo "$harness_name: $(wc -l <"$fails") invocation(s) failed; see README.md" >&2
  status=1
fi
if [ -s "$halo_raw" ] && [ "$(cut -f5,6 "$halo_raw" | sort -u | wc -l)" -ne 1 ]; then
  echo "$harness_name: the halo runs' checksums differ; see README.md" >&2
  status=1
fi
exit $status
