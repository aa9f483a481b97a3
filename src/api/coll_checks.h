#pragma once
// Argument checks of the collectives, shared by the blocking (coll_api.cc), nonblocking
// and persistent (coll_nb_api.cc) entry points: one function per collective, checking
// what MPI_<Coll>, MPI_I<coll> and MPI_<Coll>_init have in common.
//
// Checks follow the standard's "significant only at root" rules: arguments a rank does
// not use are not looked at (non-root ranks of MPI_Gather may pass anything as recvtype).
// Every failure is raised on the communicator naming the function, the class and the
// cause; the functions return the raised code (0 when the arguments are fine).
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "comm/comm.h"

#define CCMPI_TRY(expr)               \
  do {                                \
    if (int rc_ = (expr)) return rc_; \
  } while (0)

namespace ccmpi::api {

// The communicator of a collective; MPI_ERR_COMM for an intercommunicator (the entry points
// take their intercommunicator path first; what reaches this is Scan/Exscan, undefined on
// intercommunicators, or a collective without an intercommunicator version).
int checkCollComm(const char* func, MPI_Comm comm, comm::Comm** out);
// The communicator if `comm` is an intercommunicator, else nullptr.
comm::Comm* interOf(MPI_Comm comm);
// The whole argument checks of a collective on an intercommunicator, shared by the
// blocking, nonblocking and persistent entry points: root = MPI_ROOT, MPI_PROC_NULL or a
// remote rank; buffers without MPI_IN_PLACE. Rooted: the root's buffer (count or
// counts/displs) and the other group's buffer. All-to-all family: counts arrays (or NULL
// for the single count).
int checkInterBcast(const char* func, MPI_Comm comm, const comm::Comm& c, const void* buffer,
                    int count, MPI_Datatype type, int root);
int checkInterReduce(const char* func, MPI_Comm comm, const comm::Comm& c, const void* sendbuf,
                     const void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root);
int checkInterAllreduce(const char* func, MPI_Comm comm, const void* sendbuf, const void* recvbuf,
                        int sendcount, int recvcount, MPI_Datatype type, MPI_Op op);
int checkInterReduceScatter(const char* func, MPI_Comm comm, const comm::Comm& c,
                            const void* sendbuf, const void* recvbuf, const int recvcounts[],
                            MPI_Datatype type, MPI_Op op);
int checkInterRooted(const char* func, MPI_Comm comm, const comm::Comm& c, int root,
                     const void* rootbuf, int rootcount, const int* rootcounts,
                     const int* rootdispls, MPI_Datatype roottype, const void* buf, int count,
                     MPI_Datatype type);
int checkInterAll(const char* func, MPI_Comm comm, const comm::Comm& c, const void* sendbuf,
                  int sendcount, const int* sendcounts, const int* sdispls, MPI_Datatype sendtype,
                  const void* recvbuf, int recvcount, const int* recvcounts, const int* rdispls,
                  MPI_Datatype recvtype);
int checkInterAlltoallw(const char* func, MPI_Comm comm, const comm::Comm& c, const void* sendbuf,
                        const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                        const int recvcounts[], const int rdispls[],
                        const MPI_Datatype recvtypes[]);
// The request pointer of a nonblocking or persistent collective, and the info argument of
// a persistent one.
int checkRequestOut(const char* func, MPI_Comm comm, const MPI_Request* request);
int checkInfo(const char* func, MPI_Comm comm, MPI_Info info);
// count >= 0 (MPI_ERR_COUNT), and a valid committed datatype (MPI_ERR_TYPE); `what` names
// the argument in the message.
int checkCount(const char* func, MPI_Comm comm, int64_t count, const char* what);
int checkType(const char* func, MPI_Comm comm, MPI_Datatype type, const char* what);
// Raises rc (an algorithm's error) on comm, or returns MPI_SUCCESS.
int finish(const char* func, MPI_Comm comm, int rc);

int checkBcast(const char* func, MPI_Comm comm, const comm::Comm& c, const void* buffer, int count,
               MPI_Datatype type, int root);
int checkReduce(const char* func, MPI_Comm comm, const comm::Comm& c, const void* sendbuf,
                const void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root);
// Allreduce, Scan and Exscan.
int checkAllreduce(const char* func, MPI_Comm comm, const void* sendbuf, const void* recvbuf,
                   int count, MPI_Datatype type, MPI_Op op);
int checkReduceScatterBlock(const char* func, MPI_Comm comm, const void* sendbuf,
                            const void* recvbuf, int recvcount, MPI_Datatype type, MPI_Op op);
int checkReduceScatter(const char* func, MPI_Comm comm, const comm::Comm& c, const void* sendbuf,
                       const void* recvbuf, const int recvcounts[], MPI_Datatype type, MPI_Op op);
int checkGather(const char* func, MPI_Comm comm, const comm::Comm& c, const void* sendbuf,
                int sendcount, MPI_Datatype sendtype, const void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root);
int checkGatherv(const char* func, MPI_Comm comm, const comm::Comm& c, const void* sendbuf,
                 int sendcount, MPI_Datatype sendtype, const int recvcounts[], const int displs[],
                 const void* recvbuf, MPI_Datatype recvtype, int root);
int checkScatter(const char* func, MPI_Comm comm, const comm::Comm& c, const void* sendbuf,
                 int sendcount, MPI_Datatype sendtype, const void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root);
int checkScatterv(const char* func, MPI_Comm comm, const comm::Comm& c, const void* sendbuf,
                  const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                  const void* recvbuf, int recvcount, MPI_Datatype recvtype, int root);
// Allgather and Alltoall.
int checkAllgather(const char* func, MPI_Comm comm, const void* sendbuf, int sendcount,
                   MPI_Datatype sendtype, const void* recvbuf, int recvcount,
                   MPI_Datatype recvtype);
int checkAllgatherv(const char* func, MPI_Comm comm, const comm::Comm& c, const void* sendbuf,
                    int sendcount, MPI_Datatype sendtype, const void* recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype);
int checkAlltoallv(const char* func, MPI_Comm comm, const comm::Comm& c, const void* sendbuf,
                   const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                   const void* recvbuf, const int recvcounts[], const int rdispls[],
                   MPI_Datatype recvtype);
// Also gives the type arrays the algorithms get: the types of empty blocks may be anything
// (even invalid handles), so *stypes/*rtypes point at copies with MPI_BYTE in their place
// (*stypes = sendtypes when sendbuf is MPI_IN_PLACE).
int checkAlltoallw(const char* func, MPI_Comm comm, const comm::Comm& c, const void* sendbuf,
                   const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                   const void* recvbuf, const int recvcounts[], const int rdispls[],
                   const MPI_Datatype recvtypes[], std::vector<MPI_Datatype>* sendCopy,
                   std::vector<MPI_Datatype>* recvCopy, const MPI_Datatype** stypes,
                   const MPI_Datatype** rtypes);

}  // namespace ccmpi::api
