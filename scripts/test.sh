#!/usr/bin/env bash
# Command 2 of the README (and of CI): install what is needed, build, and run the whole
# test suite. Extra arguments go to ctest (e.g. -L unit, -R p2p). Set BUILD_DIR and
# CMAKE_ARGS to test another configuration, e.g. the sanitizer build:
#   BUILD_DIR=build-asan CMAKE_ARGS=-DCCMPI_SANITIZE=address,undefined scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/deps.sh
BUILD_DIR=${BUILD_DIR:-build}
# shellcheck disable=SC2086
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCCMPI_BUILD_TESTS=ON ${CMAKE_ARGS:-} >/dev/null
cmake --build "$BUILD_DIR"
cd "$BUILD_DIR"
ctest --output-on-failure --timeout 300 -j2 "$@"
