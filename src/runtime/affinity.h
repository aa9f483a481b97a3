#pragma once
// Binding ranks to cores (CCMPI_BIND).
//
// Ranks that share a host through shared memory wait for each other by spinning, which is
// the fastest way to hear a peer while each has a core of its own. Left to the kernel, two
// ranks of a host can land on one core while other work of the machine holds another: the
// peer then waits for the spinner's time slice. So, as Open MPI does for small jobs, each
// local rank is bound to its own CPUs (local rank i to the i-th block of CPUs / ranks of
// those it may use), when nobody chose for it: in "auto" mode only where the host has at
// least 2 and at most as many ranks as CPUs, and the process may run on every online CPU
// (a mask set by Slurm, taskset or the user is kept). "core" binds in any case (one CPU
// each, round robin, when ranks outnumber CPUs), "none" never.
#include <string>

namespace ccmpi::runtime {

// Binds the calling process as above; `localIndex` is its place among the `localCount`
// ranks of its host. Returns the first CPU it was bound to, -1 (not bound; *why says why)
// or -2 (CCMPI_BIND is not a valid setting; *why says so).
int bindToCore(int localIndex, int localCount, std::string* why);

}  // namespace ccmpi::runtime
