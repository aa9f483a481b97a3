#!/usr/bin/env bash
# Every C/C++ source of the project follows .clang-format: lists the files that do not
# (and how clang-format would change them) and fails. Usage: format_check.sh SOURCE_DIR
# CLANG_FORMAT
set -uo pipefail
src=$1 cf=$2
if [ ! -x "$cf" ]; then
  echo "format_check: clang-format not found (scripts/deps.sh installs it)" >&2
  exit 1
fi
cd "$src" || exit 1
files=()
while IFS= read -r -d '' f; do files+=("$f"); done < <(find src include tests bench tools -type f \
  \( -name '*.cc' -o -name '*.h' -o -name '*.c' -o -name '*.cpp' \) -print0)
n=${#files[@]}
# One clang-format process for all files (a process per file took minutes on a loaded
# 2-core machine); only when that finds something, each file again to name it.
if "$cf" --dry-run --Werror "${files[@]}" >/dev/null 2>&1; then
  echo "format_check: $n files, 0 not formatted"
  [ "$n" -gt 0 ]
  exit
fi
bad=0
for f in "${files[@]}"; do
  if ! "$cf" --dry-run --Werror "$f" >/dev/null 2>&1; then
    echo "not formatted: $f"
    "$cf" "$f" | diff -u "$f" - | head -20
    bad=$((bad + 1))
  fi
done
echo "format_check: $n files, $bad not formatted"
[ "$bad" -gt 0 ] && exit 1
# The whole run failed but no single file does: a file changed meanwhile, or
# clang-format itself failed.
echo "format_check: clang-format failed on the whole set but on no single file" >&2
exit 1
