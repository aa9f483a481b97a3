#!/usr/bin/env bash
# Multicast Bcast of 256 KiB to 16 emulated hosts (100 Mbit/s) with the mcast algorithm
# forced, under several pacing settings (CCMPI_MCAST_MBITS, CCMPI_MCAST_BURST), the
# settings alternating within each of REPS rounds. Prints one line per run: the median,
# mean and fastest iteration (µs, maximum over ranks, from bench/coll/coll_bench.c) and
# the iteration count. The link bound is M/B = 262144 / 11.769 MB/s = 22.3 ms.
#
# Usage (root): bench/mcast/pacing.sh [BUILD_DIR]    (default ./build; about 5 minutes)
# Environment: REPS [3], VARIANTS ["90 32768;95 32768;98 32768;98 65536;100 32768": Mbit/s
# and burst bytes per setting, optionally followed by more VAR=VALUE settings for the
# ranks, e.g. "90 32768 CCMPI_MCAST_BATCH_US=500"], SIZES [262144], HOSTS [16].
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$repo/build}" && pwd)
reps=${REPS:-3}
hosts=${HOSTS:-16}
variants=${VARIANTS:-"90 32768;95 32768;98 32768;98 65536;100 32768"}
cluster=$build/bin/ccmpi-cluster
[ "$(id -u)" = 0 ] || { echo "pacing.sh: needs root (network namespaces)" >&2; exit 1; }
work=$(mktemp -d)
name=pace$$
# shellcheck disable=SC2317 # called by the trap
cleanup() {
  "$cluster" down --name "$name" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
"$build/bin/mpicc" -O2 "$repo/bench/coll/coll_bench.c" -o "$work/coll_bench" || exit 1
hostfile=$("$cluster" up --hosts "$hosts" --rate 100mbit --name "$name" --owner $$ 2>/dev/null | tail -n1)
[ -r "$hostfile" ] || { echo "pacing.sh: cluster up failed" >&2; exit 1; }
IFS=';' read -r -a settings <<<"$variants"
for ((rep = 1; rep <= reps; rep++)); do
  for v in "${settings[@]}"; do
    read -r mbits burst extra <<<"$v"
    envs=()
    for e in $extra; do envs+=(--env "$e"); done
    out=$(timeout 120 "$build/bin/mpirun" --hostfile "$hostfile" \
      --launcher "$cluster exec --name $name" --iface r0 -n "$hosts" \
      --env CCMPI_BCAST_ALGORITHM=mcast --env CCMPI_MCAST_MBITS="$mbits" \
      --env CCMPI_MCAST_BURST="$burst" "${envs[@]}" "$work/coll_bench" bcast --sizes "${SIZES:-262144}" \
      --target-ms 2000 --warmup 3 --min-iters 10 --max-iters 200 2>&1)
    echo "rep=$rep mbits=$mbits burst=$burst $extra :: $(echo "$out" | awk '$1 == "result" {
      printf "size=%s median_us=%s mean_us=%s min_us=%s iters=%s ", $4, $5, $6, $7, $9 }')"
  done
done
