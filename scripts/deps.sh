#!/usr/bin/env bash
# Installs the Debian 12 packages ccmpi needs to build and test (only the missing ones).
# Needs root (or sudo). Extra package names may be passed as arguments.
set -euo pipefail
# libzstd-dev liblz4-dev: the zstd/lz4 codecs (optional at build time); python3-zstandard
# python3-lz4 python3-numpy: the codec benchmark's references and corpus generator.
# libpmix-dev: the PMIx client (srun --mpi=pmix; optional at build time). slurmctld slurmd
# slurm-client munge: tests/slurm stands up a private one-node Slurm (it never uses the
# system's daemons or configuration).
pkgs=(build-essential cmake ninja-build pkg-config libgtest-dev clang clang-format libclang-rt-14-dev
      mpich iproute2 libnl-route-3-dev procps gawk python3 python3-pyroute2 python3-matplotlib gnuplot-nox
      libpmix-dev libzstd-dev liblz4-dev python3-zstandard python3-lz4 python3-numpy slurmctld slurmd slurm-client munge gfortran "$@")
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "deps: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
