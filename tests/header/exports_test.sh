#!/usr/bin/env bash
# exports_test.sh LIBCCMPI MPI_FUNCTIONS_TXT MPI_H
# Checks the dynamic symbol table of libccmpi.so against the header:
#  - every name in docs/dev/mpi_functions.txt is exported as a defined function;
#  - every function that mpi.h declares with a PMPI_ twin is exported as PMPI_X (a strong
#    definition) and MPI_X (a weak alias, so a profiling library can replace it);
#  - no PMPI_X is exported without its MPI_X being in the list.
# Prints every problem, then exits 1 if there was any.
set -u
lib=$1 list=$2 header=$3
for f in "$lib" "$list" "$header"; do
  [ -r "$f" ] || { echo "FAIL: cannot read $f"; exit 1; }
done

syms=$(mktemp) twins=$(mktemp)
trap 'rm -f "$syms" "$twins"' EXIT
# "<type> <name>" for every defined dynamic symbol (nm -D prints "address type name").
nm -D --defined-only "$lib" | awk 'NF == 3 { print $2, $3 }' | sort -k2 >"$syms"
# Functions declared with a PMPI_ twin in mpi.h.
grep -oE '\bPMPI_[A-Za-z0-9_]+\(' "$header" | sed 's/^P//; s/($//' | sort -u >"$twins"

total=$(grep -c . "$list")
[ "$total" -gt 300 ] || { echo "FAIL: $list lists only $total names"; exit 1; }
[ "$(grep -c . "$twins")" -gt 300 ] || { echo "FAIL: found too few PMPI_ twins in $header"; exit 1; }

# One pass over the three lists: symbol types, twins, then the function list.
problems=$(awk '
  FILENAME == ARGV[1] { type[$2] = $1; next }
  FILENAME == ARGV[2] { twin[$1] = 1; next }
  {
    listed[$1] = 1
    t = type[$1]
    if (t == "") { print "missing: " $1 " is not exported"; next }
    if ($1 in twin) {
      if (t != "W") print "not weak: " $1 " has symbol type " t " (expected W, an alias of P" $1 ")"
      pt = type["P" $1]
      if (pt == "") print "missing: P" $1 " is not exported"
      else if (pt != "T") print "wrong type: P" $1 " has symbol type " pt " (expected T)"
    } else if (t != "T" && t != "W") {
      print "wrong type: " $1 " has symbol type " t
    }
  }
  END {
    # The list and the header agree, and no PMPI_ name is exported without a declaration.
    for (f in twin) if (!(f in listed)) print "unlisted: mpi.h declares P" f " but the list lacks " f
    for (s in type) if (s ~ /^PMPI_/ && !(substr(s, 2) in listed))
      print "stray: " s " is exported but " substr(s, 2) " is not in the list"
  }' "$syms" "$twins" "$list" | sort)
bad=0
if [ -n "$problems" ]; then
  echo "$problems"
  bad=$(echo "$problems" | wc -l)
fi

if [ "$bad" -ne 0 ]; then
  echo "FAIL: $bad problem(s) with the exports of $lib"
  exit 1
fi
echo "PASS: all $total names of $(basename "$list") exported, $(grep -c . "$twins") with PMPI_ twins"
