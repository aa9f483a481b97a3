#pragma once
// The node topology of a communicator: which of its ranks share a host, and the hidden
// communicators the node-aware (hierarchical) algorithms run their phases on.
//
// Computed once per communicator and cached on it (Comm::nodeState). Hosts are numbered
// 0..hosts-1 in the order of their lowest comm rank; a host's leader is its lowest comm
// rank. The node communicator holds my host's ranks in comm-rank order (the communicator
// itself when it spans one host); the leaders' communicator holds one leader per host in
// host order (leader of host h = its rank h). Both are built lazily, collectively over the
// communicator (every rank of it is in the collective that asks), registered as hidden
// communicators and freed with it (Comm::hiddenComms).
//
// The host identity of a rank is behind one function (hostKeys): the host mpirun placed
// it on (CCMPI_RANK_HOSTS: different host names, real or emulated, are different hosts;
// tests declare hosts this way through a fake launch agent), else an allgather of a hash
// of its processor name (the notion of MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)).
#include <cstdint>
#include <memory>
#include <vector>

#include "comm/comm.h"

namespace ccmpi::coll::node {

class Segment;

struct Topology {
  int hosts = 1;
  int myHost = 0;
  int localRank = 0;          // my rank on my host
  int localSize = 1;          // ranks of my host
  int maxLocal = 1;           // ranks on the busiest host
  bool uniform = true;        // every host has the same number of ranks
  bool contiguous = true;     // host h's ranks are consecutive comm ranks, after host h-1's
  std::vector<int> hostOf;    // comm rank -> host
  std::vector<int> localOf;   // comm rank -> rank on its host
  std::vector<int> leaders;   // host -> its leader's comm rank
  std::vector<int> hostSize;  // host -> ranks on it
  std::vector<int> firstOf;   // host -> position of its first rank in host order
  std::vector<int> byHost;    // comm ranks in host order (host 0's, then host 1's, ...)
  bool isLeader() const { return localRank == 0; }
  bool trivial() const { return hosts == 1 || maxLocal == 1; }

  // Lazily built (nodeComms); MPI_COMM_NULL until then.
  MPI_Comm nodeHandle = MPI_COMM_NULL;     // my host's ranks (may be the comm itself)
  MPI_Comm leadersHandle = MPI_COMM_NULL;  // leaders only; NULL on the others
  bool commsBuilt = false;
  bool building = false;  // nodeComms is running: node algorithms decline (no recursion)

  // The shared-memory segment of this communicator (one host only; coll/node/segment.h).
  std::unique_ptr<Segment> segment;
  bool segmentFailed = false;  // creation failed once: the shm algorithms decline
  uint64_t shmPhase = 0;       // phases run on the segment (the same on every local rank)

  ~Topology();
};

// The topology of c (collective on first use when hosts must be asked for; afterwards
// free). nullptr on error (the cause is recorded) — callers decline then.
Topology* topology(comm::Comm& c, int* rc);
// The topology rank `rank` sees, from every rank's host key. topology() keeps it in
// c.nodeState; a tool that builds schedules for a communicator it does not run
// (ccmpi-sim) puts it there itself.
std::shared_ptr<Topology> makeTopology(const std::vector<uint64_t>& keys, int rank);

// The host identity of every rank of c (keys[i] equal <=> same host); collective on c
// when the launcher's placement does not cover it.
int hostKeys(comm::Comm& c, std::vector<uint64_t>* keys);

// Builds the node and leaders' communicators of t (collective over c). *node is my host's
// communicator, *leaders the leaders' (nullptr unless I lead my host).
int nodeComms(comm::Comm& c, Topology& t, comm::Comm** node, comm::Comm** leaders);

}  // namespace ccmpi::coll::node
