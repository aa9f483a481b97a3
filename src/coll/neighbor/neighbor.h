#pragma once
// Neighbourhood collectives (MPI_Neighbor_*, MPI_Ineighbor_*, MPI_Neighbor_*_init and their
// large-count forms) on communicators with a Cartesian, graph or distributed-graph topology.
//
// The neighbours are known when the communicator is made (comm/topology.h), so a call is
// compiled into a schedule (coll/plan.h) once: a persistent request replays it, a blocking
// or nonblocking call runs it once. Every call is one round: a receive from each source
// into its block, then a send of each block to its destination. Messages between one pair
// of ranks are told apart by their order alone (one tag per call), as the standard defines
// for graphs with repeated edges; on a Cartesian topology a rank sends along each dimension
// to its +1 neighbour before its -1 neighbour and receives from its -1 neighbour before its
// +1 neighbour, so that where both are the same rank (a periodic dimension of 1 or 2
// processes) the block sent "up" lands in the block received "from below". MPI_PROC_NULL
// neighbours exchange nothing and their receive blocks are left alone.
#include <mpi.h>

#include <cstdint>

#include "coll/plan.h"
#include "comm/comm.h"
#include "p2p/request.h"

namespace ccmpi::coll {

// One neighbourhood collective call, as the API layer checked it. Counts and
// displacements are per neighbour (sources for receive arrays, destinations for send
// arrays); displacements are in elements of the type, except for alltoallw (bytes).
struct NeighborCall {
  enum class Kind : uint8_t { kAllgather, kAllgatherv, kAlltoall, kAlltoallv, kAlltoallw };
  Kind kind = Kind::kAllgather;
  const void* sendbuf = nullptr;
  void* recvbuf = nullptr;
  int64_t sendcount = 0, recvcount = 0;  // allgather, allgatherv (send), alltoall
  MPI_Datatype sendtype = MPI_DATATYPE_NULL, recvtype = MPI_DATATYPE_NULL;
  // v and w forms: element i of `count(i)`/`displ(i)`, read through these so that int and
  // MPI_Count arrays both fit.
  const void* sendcounts = nullptr;
  const void* sdispls = nullptr;
  const void* recvcounts = nullptr;
  const void* rdispls = nullptr;
  bool largeCounts = false;            // counts are MPI_Count, displacements MPI_Aint
  const MPI_Aint* sdisplsW = nullptr;  // alltoallw (bytes; also for the large-count form)
  const MPI_Aint* rdisplsW = nullptr;
  const MPI_Datatype* sendtypes = nullptr;
  const MPI_Datatype* recvtypes = nullptr;

  // Element i of a counts or displacements array of this call.
  int64_t countAt(const void* a, size_t i) const {
    return largeCounts ? static_cast<const MPI_Count*>(a)[i] : static_cast<const int*>(a)[i];
  }
  int64_t displAt(const void* a, size_t i) const {
    return largeCounts ? static_cast<const MPI_Aint*>(a)[i] : static_cast<const int*>(a)[i];
  }
};

// The collective's name in its algorithm table ("neighbor_alltoallv").
const char* neighborCollective(NeighborCall::Kind k);

// Blocking: runs the call to completion.
int neighbor(const NeighborCall& call, comm::Comm& c);
// Nonblocking (Mode::kNonblocking) or persistent (Mode::kPersistent, replays the schedule
// compiled here at every start): *out is the request.
int ineighbor(const NeighborCall& call, comm::Comm& c, Mode mode, p2p::Request** out);

}  // namespace ccmpi::coll
