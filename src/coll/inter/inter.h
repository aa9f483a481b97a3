#pragma once
// Blocking collectives on intercommunicators (MPI-4.0 section 6.2.2): each group receives
// the other group's contributions. Rooted operations take root = MPI_ROOT at the root,
// MPI_PROC_NULL at the other members of the root's group, and the root's rank in the
// remote group at the members of the other group. Arguments were checked by the API
// layer (no MPI_IN_PLACE on intercommunicators). Scan and Exscan are not defined.
#include <mpi.h>

#include "comm/comm.h"

namespace ccmpi::coll::inter {

int barrier(comm::Comm& c);
int bcast(void* buf, int count, MPI_Datatype type, int root, comm::Comm& c);
int reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
           comm::Comm& c);
int allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
              comm::Comm& c);
int gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
           MPI_Datatype recvtype, int root, comm::Comm& c);
int gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
            const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
            comm::Comm& c);
int scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
            MPI_Datatype recvtype, int root, comm::Comm& c);
int scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
             void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, comm::Comm& c);
int allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, comm::Comm& c);
int allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               const int recvcounts[], const int displs[], MPI_Datatype recvtype, comm::Comm& c);
int alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, comm::Comm& c);
int alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
              MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
              MPI_Datatype recvtype, comm::Comm& c);
int alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
              const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
              const int rdispls[], const MPI_Datatype recvtypes[], comm::Comm& c);
// recvcounts has one entry per process of the local group.
int reduceScatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype type,
                  MPI_Op op, comm::Comm& c);
int reduceScatterBlock(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type,
                       MPI_Op op, comm::Comm& c);

}  // namespace ccmpi::coll::inter

// Nonblocking (Mode::kNonblocking) and persistent (Mode::kPersistent) versions, as
// schedules of one or two rounds of p2p between the groups (inter_nb.cc).
#include "coll/plan.h"

namespace ccmpi::coll::inter {

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
int ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
               const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
               const int rdispls[], const MPI_Datatype recvtypes[], comm::Comm& c, Mode mode,
               p2p::Request** out);
int ireduceScatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype type,
                   MPI_Op op, comm::Comm& c, Mode mode, p2p::Request** out);
int ireduceScatterBlock(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type,
                        MPI_Op op, comm::Comm& c, Mode mode, p2p::Request** out);

}  // namespace ccmpi::coll::inter
