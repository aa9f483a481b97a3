"""ccmpi-bench: benchmark scenarios on an emulated cluster (ccmpi-cluster) with ccmpi, Open
MPI and MPICH in one run (docs/cluster.md).

Modules: scenarios (one module per scenario: hosts, sizes, the plan of program runs, the
link bound), implementations (how each MPI is compiled and launched on the cluster, its
variants and algorithms), runner (the cluster, repetitions in shuffled order, timeouts,
reaping, progress), report (results.csv, README.md, the plot, the docs/results section)
and cli (the command line).
"""
