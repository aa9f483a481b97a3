#!/bin/bash
# ccmpi-codec front end: `list` names every codec; `compress`/`decompress` round-trip
# files exactly (sample messages, an odd-sized file, an empty file, 1 MiB of one value); `bench` prints one
# line per file and a geomean line in the documented format, with spx-fast's ratio on the
# four application messages at least 1.40; bad input is an error, never a crash.
# Usage: codec_cli.sh CCMPI_CODEC DATA_DIR
set -u
codec_bin=$1
data=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() {
  echo "FAIL: $*"
  exit 1
}

names=$("$codec_bin" list) || fail "list exited $?"
for c in raw cmpi fpc spx spx-fast; do
  grep -qx "$c" <<<"$names" || fail "list lacks $c: $names"
done

head -c 12345 "$data/msg_lu.f64" >"$work/odd.f64"
: >"$work/empty.f64"
# 1 MiB of one value: codecs that code runs reach thousands to one on it (decompress once
# refused such messages as "implausible").
head -c 1048576 /dev/zero | tr '\0' '\101' >"$work/const.f64"
for c in $names; do
  for f in "$data/msg_bt.f64" "$data/msg_sppm.f64" "$work/odd.f64" "$work/empty.f64" \
    "$work/const.f64"; do
    "$codec_bin" compress --codec "$c" "$f" "$work/x.cc" || fail "$c: compress $f"
    "$codec_bin" decompress "$work/x.cc" "$work/x.back" || fail "$c: decompress $f"
    cmp -s "$f" "$work/x.back" || fail "$c: $f does not round-trip"
  done
done

out=$("$codec_bin" bench --codec spx-fast --repeat 2 "$data"/msg_{bt,lu,sp,sweep3d}.f64) ||
  fail "bench exited $?"
echo "$out"
[ "$(grep -c '^file=.* codec=spx-fast ratio=[0-9.]* compress_gbps=[0-9.]* decompress_gbps=[0-9.]*$' <<<"$out")" = 4 ] ||
  fail "bench: expected 4 file lines"
geo=$(sed -n 's/^geomean_ratio=\([0-9.]*\) codec=spx-fast compress_gbps=[0-9.]* decompress_gbps=[0-9.]*$/\1/p' <<<"$out")
[ -n "$geo" ] || fail "bench: no geomean line"
awk -v g="$geo" 'BEGIN { exit !(g >= 1.40) }' || fail "spx-fast geomean ratio $geo < 1.40"

# Corrupt and foreign input: an error message and a non-zero exit, no crash.
"$codec_bin" compress --codec spx-fast "$data/msg_sp.f64" "$work/sp.cc" || fail "compress sp"
size=$(stat -c %s "$work/sp.cc")
cp "$work/sp.cc" "$work/bad.cc"
printf '\xff\xff\xff\xff' | dd of="$work/bad.cc" bs=1 seek=$((size / 2)) conv=notrunc status=none
"$codec_bin" decompress "$work/bad.cc" "$work/bad.out" 2>"$work/err"
rc=$?
if [ "$rc" -eq 0 ] || [ "$rc" -ge 128 ]; then fail "corrupt input: exit $rc"; fi
[ -s "$work/err" ] || fail "corrupt input: no message"
# A header claiming 2^50 original bytes (the empty message's length byte, 0, replaced by
# that varint): refused with a message, not allocated.
"$codec_bin" compress --codec spx "$work/empty.f64" "$work/e.cc" || fail "compress empty"
{
  head -c 3 "$work/e.cc"
  printf '\x80\x80\x80\x80\x80\x80\x80\x02'
  tail -c +5 "$work/e.cc"
} >"$work/huge.cc"
"$codec_bin" decompress "$work/huge.cc" "$work/bad.out" 2>"$work/err"
rc=$?
if [ "$rc" -eq 0 ] || [ "$rc" -ge 128 ]; then fail "huge length: exit $rc"; fi
grep -q "more than this machine's memory" "$work/err" || fail "huge length: $(cat "$work/err")"
head -c 100 "$work/sp.cc" >"$work/short.cc"
"$codec_bin" decompress "$work/short.cc" "$work/bad.out" 2>/dev/null
rc=$?
if [ "$rc" -eq 0 ] || [ "$rc" -ge 128 ]; then fail "truncated input: exit $rc"; fi
"$codec_bin" bench --codec nosuch "$data/msg_bt.f64" 2>/dev/null && fail "unknown codec accepted"
echo "codec_cli: ok"
