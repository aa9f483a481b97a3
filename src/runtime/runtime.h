#pragma once
// Process-wide state of the library: world rank/size, bootstrap, progress engine and
// transport; MPI_Init / MPI_Finalize / MPI_Abort and MPI_Session_init / _finalize do their
// work here. The world model and every session hold a reference to the infrastructure.
#include <mpi.h>

#include <cstdint>
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

// Puts key=value into the job's PMI key-value space (0, or non-zero when it failed).
int pmiPut(const std::string& key, const std::string& value);

int init(int* argc, char*** argv, int required, int* provided);
int finalize();
// MPI_Session_init / MPI_Session_finalize: take / drop a reference to the infrastructure
// (bringing it up if needed). sessionInit fails after the library was torn down.
int sessionInit(int required, int* provided);
void sessionFinalize();
// Dynamic processes (docs/dynamic.md). Processes are numbered 0..processCount()-1 in this
// process ("world ranks" in comm/ and p2p/): the ranks of MPI_COMM_WORLD first, then the
// processes of other jobs this one was connected to (MPI_Comm_accept/connect/join), in the
// order they became known here.
int processCount();
// What another job needs to reach a process: its job's identity and secret, its rank there
// and its TCP listener ("ip:port", NUL-terminated).
struct ProcessCard {
  uint64_t job = 0;
  int64_t rank = 0;
  uint64_t key[2] = {0, 0};
  char addr[48] = {};
};
static_assert(sizeof(ProcessCard) == 80);
// This process's card; opens its TCP listener first if it has none (a one-rank job).
int myCard(ProcessCard* card);
// The process number of the process `card` describes (its world rank when it belongs to
// this job); a process of another job seen for the first time is added.
int addProcess(const ProcessCard& card, int* index);
// The job identity of this process (ProcessCard::job).
uint64_t jobIdentity();

// Terminates every process of the job with exit code `code` (through the launcher).
[[noreturn]] void abortJob(int code, const std::string& message);

}  // namespace ccmpi::runtime
