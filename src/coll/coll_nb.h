#pragma once
// Internal entry points of the nonblocking (MPI_I<coll>) and persistent (MPI_<Coll>_init)
// collectives. Arguments are as in the MPI functions, already checked by the API layer.
// Each builds a Plan (coll/plan.h) with the algorithm its table selects (the tunable
// CCMPI_I<COLL>_ALGORITHM forces one, as for the blocking collectives) and returns in
// *out either the running collective's request (Mode::kNonblocking) or an inactive
// persistent request (Mode::kPersistent) whose every start replays the plan.
#include <mpi.h>

#include "coll/plan.h"
#include "comm/comm.h"
#include "p2p/request.h"

namespace ccmpi::coll {

int ibarrier(comm::Comm& c, Mode mode, p2p::Request** out);
int ibcast(void* buf, int count, MPI_Datatype type, int root, comm::Comm& c, Mode mode,
           p2p::Request** out);
int ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
            comm::Comm& c, Mode mode, p2p::Request** out);
int iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
               comm::Comm& c, Mode mode, p2p::Request** out);
int igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
            MPI_Datatype recvtype, int root, comm::Comm& c, Mode mode, p2p::Request** out);
int igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
             comm::Comm& c, Mode mode, p2p::Request** out);
int iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, int root, comm::Comm& c, Mode mode,
             p2p::Request** out);
int iscatterv(const void* sendbuf, const int sendcounts[], const int displs[],
              MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
              comm::Comm& c, Mode mode, p2p::Request** out);
int iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, comm::Comm& c, Mode mode, p2p::Request** out);
int iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, comm::Comm& c,
                Mode mode, p2p::Request** out);
int ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, comm::Comm& c, Mode mode, p2p::Request** out);
int ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
               MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
               MPI_Datatype recvtype, comm::Comm& c, Mode mode, p2p::Request** out);
// Displacements in bytes, a datatype per peer (types of empty blocks must be valid).
int ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
               const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
               const int rdispls[], const MPI_Datatype recvtypes[], comm::Comm& c, Mode mode,
               p2p::Request** out);
int ireduceScatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype type,
                   MPI_Op op, comm::Comm& c, Mode mode, p2p::Request** out);
int ireduceScatterBlock(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type,
                        MPI_Op op, comm::Comm& c, Mode mode, p2p::Request** out);
int iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
          comm::Comm& c, Mode mode, p2p::Request** out);
int iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
            comm::Comm& c, Mode mode, p2p::Request** out);

}  // namespace ccmpi::coll
