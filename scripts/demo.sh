#!/usr/bin/env bash
# Command 1 of the README: install what is needed, build, and run a demo job of 4 ranks
# on this machine.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build --target ccmpi mpirun ccmpi_info
build/bin/mpicc examples/hello.c -o build/hello
build/bin/mpirun -n 4 build/hello
