#pragma once
// Alltoallv as compiled communication (CC-MPI section 4.2): the network control, which
// computes the phases of a pattern once, apart from the data transmission, which only
// moves data by them. Level 1 gathers the pattern at run time, Level 2 takes the global
// pattern every rank already holds, Level 3 a precomputed schedule (a `ccmpi-schedule`
// file). Used by the MPIX_Alltoallv_* routines (include/mpix_ccmpi.h) and by
// MPI_Alltoallv_init with the ccmpi_alltoallv_level / ccmpi_pattern_file /
// ccmpi_schedule_file info keys.
#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "coll/phased/phased.h"
#include "coll/plan.h"
#include "comm/comm.h"
#include "sched/sched.h"

namespace ccmpi::coll {

// A schedule may serve any communicator of its size: `mine` is the part of the rank it
// was made on, and the data transmission derives the part of another rank when needed.
struct CompiledAlltoallv {
  int size = 0;                        // communicator size the phases are for
  int rank = 0;                        // the rank `mine` belongs to
  int level = 0;                       // 1, 2 or 3: how it was made
  sched::Phases phases;                // the whole schedule (same on every rank)
  RankPhases mine;                     // rank `rank`'s part
  PhaseSync sync = PhaseSync::kReady;  // phaseSyncFor(phases)
  // Bytes rank `rank` sends to / receives from each peer by the schedule (-1: no
  // message), so that the data transmission checks the counts in O(size).
  std::vector<int64_t> sendBytes, recvBytes;
};
using CompiledPtr = std::shared_ptr<const CompiledAlltoallv>;

// Level 1 (collective): allgathers every rank's send sizes in bytes, then schedules.
int compileAlltoallvLevel1(const int sendcounts[], MPI_Datatype sendtype, comm::Comm& c,
                           CompiledPtr* out);
// Level 2 (local): pattern is the global pattern, the same on every rank (at most one
// message per ordered pair of ranks, as in an Alltoallv).
int compileAlltoallvLevel2(const sched::Pattern& pattern, comm::Comm& c, CompiledPtr* out);
// Level 3 (local): checks a precomputed schedule for c (hosts == size, contention-free).
int compileAlltoallvLevel3(int hosts, const sched::Phases& phases, comm::Comm& c, CompiledPtr* out);
// Reads a pattern file (Level 2) or a ccmpi-schedule file (Level 3).
int loadAlltoallvPattern(const std::string& path, comm::Comm& c, CompiledPtr* out);
int loadAlltoallvSchedule(const std::string& path, comm::Comm& c, CompiledPtr* out);

// Data transmission. Linear: point-to-point, no scheduling (blocking). Phased: by `plan`,
// whose messages must be this rank's counts in bytes (else MPI_ERR_ARG naming the
// difference); mode kNonblocking runs it to completion before returning (the blocking
// MPIX routine), kPersistent makes the MPI_Alltoallv_init request in *req.
int alltoallvLinearNow(const void* sendbuf, const int sendcounts[], const int sdispls[],
                       MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                       const int rdispls[], MPI_Datatype recvtype, comm::Comm& c);
int alltoallvCompiled(const void* sendbuf, const int sendcounts[], const int sdispls[],
                      MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                      const int rdispls[], MPI_Datatype recvtype, comm::Comm& c,
                      const CompiledPtr& plan, Mode mode, p2p::Request** req);

// MPI_Alltoallv_init with compiled-communication info keys: *handled is false (and
// nothing done) when info names none; else the persistent request or an error that every
// rank of c returns alike (the ranks agree on failure at init).
int alltoallvInitCompiled(const void* sendbuf, const int sendcounts[], const int sdispls[],
                          MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                          const int rdispls[], MPI_Datatype recvtype, comm::Comm& c, MPI_Info info,
                          bool* handled, p2p::Request** req);

}  // namespace ccmpi::coll
