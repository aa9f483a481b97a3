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
bad=0 n=0
while IFS= read -r -d '' f; do
  n=$((n + 1))
  if ! "$cf" --dry-run --Werror "$f" >/dev/null 2>&1; then
    echo "not formatted: $f"
    "$cf" "$f" | diff -u "$f" - | head -20
    bad=$((bad + 1))
  fi
done < <(find src include tests bench tools -type f \
  \( -name '*.cc' -o -name '*.h' -o -name '*.c' -o -name '*.cpp' \) -print0)
echo "format_check: $n files, $bad not formatted"
[ "$n" -gt 0 ] && [ "$bad" -eq 0 ]
