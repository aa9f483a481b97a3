#pragma once
// Process-wide state of the library: world rank/size, bootstrap, progress engine and
// transport; MPI_Init / MPI_Finalize / MPI_Abort and MPI_Session_init / _finalize do their
// work here. The world model and every session hold a reference to the infrastructure.
#include <mpi.h>

#include <string>
#include <vector>

#include "runtime/active.h"

namespace ccmpi::transport {
class TcpTransport;
class ShmTransport;
}  // namespace ccmpi::transport

namespace ccmpi::runtime {

// The TCP transport of this process (tests and diagnostics).
transport::TcpTransport& tcpTransport();
// The shared-memory transport (ranks of this host).
transport::ShmTransport& shmTransport();

bool initialized();  // MPI_Init has completed
bool finalized();    // MPI_Finalize has completed
int worldRank();
int worldSize();
const std::string& processorName();
// The host of every world rank, numbered 0, 1, ... in order of the lowest rank on each; the
// same at every rank. Ranks share a host when they share memory (transport/shm.h: boot id,
// network namespace, host name; CCMPI_SHM_ISLAND splits hosts) and the launcher placed
// them on one host (launcherPlacement). Gathered through PMI on the first call (one
// lookup per rank), so call it only where hosts matter.
const std::vector<int>& worldHosts();
// The launcher's host of every world rank (mpirun's CCMPI_RANK_HOSTS, "HOST*COUNT,..." in
// rank order); empty when missing or malformed (another launcher).
const std::vector<int>& launcherPlacement();
// The number of hosts in worldHosts().
int worldHostCount();

int init(int* argc, char*** argv, int required, int* provided);
int finalize();
// MPI_Session_init / MPI_Session_finalize: take / drop a reference to the infrastructure
// (bringing it up if needed). sessionInit fails after the library was torn down.
int sessionInit(int required, int* provided);
void sessionFinalize();
// Terminates every process of the job with exit code `code` (through the launcher).
[[noreturn]] void abortJob(int code, const std::string& message);

}  // namespace ccmpi::runtime
