#pragma once
// Binding ranks to cores (CCMPI_BIND).
//
// Ranks that share a host through shared memory wait for each other by spinning. With
// CCMPI_BIND=auto each local rank is bound to its own CPUs (local rank i to the i-th block
// of CPUs / ranks of those it may use), as Open MPI binds small jobs: only where the host
// has at least 2 and at most as many ranks as CPUs, and the process may run on every
// online CPU (a mask set by Slurm, taskset or the user is kept), and the machine is not
// busy (at most CCMPI_BIND_RUNNABLE tasks runnable, by default as many as CPUs). A rank
// bound by auto that keeps being pushed off its CPU while it spins (another process
// arrived later) lets go of the binding (Engine::setStarvedHook). "core" binds in any case
// (one CPU each, round robin, when ranks outnumber CPUs); "socket" widens that block to every
// CPU of its socket (mpirun --bind-to core|socket sets CCMPI_BIND). The default is "none": measured
// on this project's 2-core machine (docs/shared-memory.md), binding steadies the 1-byte
// latency a little but makes the 64 KiB one bimodal from run to run (4.4 or 22 us against
// 4.5-6.5 unbound), and with another busy process on the machine a bound rank cannot
// leave its CPU: 64 KiB ping-pong 1350-1890 us bound against 25-33 unbound.
#include <string>

namespace ccmpi::runtime {

// Binds the calling process as above; `localIndex` is its place among the `localCount`
// ranks of its host. Returns the first CPU it was bound to, -1 (not bound; *why says why)
// or -2 (CCMPI_BIND is not a valid setting; *why says so).
int bindToCore(int localIndex, int localCount, std::string* why);
// bindToCore bound this process by CCMPI_BIND=auto (which may let go again).
bool bound();
// Gives the process back the CPUs it had before CCMPI_BIND=auto bound it. False if it was
// not so bound or the kernel refused.
bool releaseBinding();
// The CPUs the calling thread may run on, as ranges: "0-3,8".
std::string describeAffinity();

}  // namespace ccmpi::runtime
