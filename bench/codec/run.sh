#!/usr/bin/env bash
# Kept for the old command line: the codec benchmark is bench/codec/run.py.
#   bench/codec/run.sh [BUILD_DIR] [run.py options...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
shift || true
exec /usr/bin/python3 "$here/run.py" --build "$build" "$@"
