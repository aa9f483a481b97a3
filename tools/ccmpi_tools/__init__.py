"""ccmpi's emulated-cluster tools: `ccmpi-cluster` (package cluster) builds a switched
Ethernet cluster of network namespaces on one Linux machine, `ccmpi-bench` (package bench)
runs benchmark scenarios on it with ccmpi, Open MPI and MPICH and writes the results
(docs/cluster.md). The launchers build/bin/ccmpi-cluster and build/bin/ccmpi-bench
(tools/launcher.in) import this package from the source tree or from its installed copy.
"""
