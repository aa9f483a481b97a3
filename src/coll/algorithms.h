#pragma once
// Signatures of every collective algorithm (one file each, coll/<coll>/<coll>_<alg>.cc)
// and the per-collective selectors (coll/<coll>/<coll>.cc). Counts are 64-bit inside the
// layer so that composed collectives (reduce_scatter_block = reduce of n*count + scatter)
// cannot overflow. Arguments are as in the MPI functions, already checked.
#include <mpi.h>

#include <cstdint>

#include "comm/comm.h"

namespace ccmpi::coll {

using BarrierFn = int (*)(comm::Comm& c);
using BcastFn = int (*)(void* buf, int64_t count, MPI_Datatype type, int root, comm::Comm& c);
using ReduceFn = int (*)(const void* sendbuf, void* recvbuf, int64_t count, MPI_Datatype type,
                         MPI_Op op, int root, comm::Comm& c);
using AllreduceFn = int (*)(const void* sendbuf, void* recvbuf, int64_t count, MPI_Datatype type,
                            MPI_Op op, comm::Comm& c);
using GatherFn = int (*)(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype,
                         void* recvbuf, int64_t recvcount, MPI_Datatype recvtype, int root,
                         comm::Comm& c);
using GathervFn = int (*)(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype,
                          void* recvbuf, const int* recvcounts, const int* displs,
                          MPI_Datatype recvtype, int root, comm::Comm& c);
using ScatterFn = GatherFn;
using ScattervFn = int (*)(const void* sendbuf, const int* sendcounts, const int* displs,
                           MPI_Datatype sendtype, void* recvbuf, int64_t recvcount,
                           MPI_Datatype recvtype, int root, comm::Comm& c);
using AllgatherFn = int (*)(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype,
                            void* recvbuf, int64_t recvcount, MPI_Datatype recvtype, comm::Comm& c);
using AllgathervFn = int (*)(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype,
                             void* recvbuf, const int* recvcounts, const int* displs,
                             MPI_Datatype recvtype, comm::Comm& c);
using AlltoallFn = AllgatherFn;
using AlltoallvFn = int (*)(const void* sendbuf, const int* sendcounts, const int* sdispls,
                            MPI_Datatype sendtype, void* recvbuf, const int* recvcounts,
                            const int* rdispls, MPI_Datatype recvtype, comm::Comm& c);
using AlltoallwFn = int (*)(const void* sendbuf, const int* sendcounts, const int* sdispls,
                            const MPI_Datatype* sendtypes, void* recvbuf, const int* recvcounts,
                            const int* rdispls, const MPI_Datatype* recvtypes, comm::Comm& c);
using ReduceScatterFn = int (*)(const void* sendbuf, void* recvbuf, const int* recvcounts,
                                MPI_Datatype type, MPI_Op op, comm::Comm& c);
using ReduceScatterBlockFn = int (*)(const void* sendbuf, void* recvbuf, int64_t recvcount,
                                     MPI_Datatype type, MPI_Op op, comm::Comm& c);
using ScanFn = AllreduceFn;

// --- algorithms ---
int barrierDissemination(comm::Comm& c);

int bcastBinomial(void* buf, int64_t count, MPI_Datatype type, int root, comm::Comm& c);
int bcastMcast(void* buf, int64_t count, MPI_Datatype type, int root, comm::Comm& c);

int reduceBinomial(const void* sendbuf, void* recvbuf, int64_t count, MPI_Datatype type, MPI_Op op,
                   int root, comm::Comm& c);
int reduceOrderedBinomial(const void* sendbuf, void* recvbuf, int64_t count, MPI_Datatype type,
                          MPI_Op op, int root, comm::Comm& c);

int allreduceRecursiveDoubling(const void* sendbuf, void* recvbuf, int64_t count, MPI_Datatype type,
                               MPI_Op op, comm::Comm& c);
int allreduceReduceBcast(const void* sendbuf, void* recvbuf, int64_t count, MPI_Datatype type,
                         MPI_Op op, comm::Comm& c);

int gatherLinear(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int64_t recvcount, MPI_Datatype recvtype, int root, comm::Comm& c);
int gathervLinear(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype, void* recvbuf,
                  const int* recvcounts, const int* displs, MPI_Datatype recvtype, int root,
                  comm::Comm& c);
int scatterMcast(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int64_t recvcount, MPI_Datatype recvtype, int root, comm::Comm& c);
int scattervMcast(const void* sendbuf, const int* sendcounts, const int* displs,
                  MPI_Datatype sendtype, void* recvbuf, int64_t recvcount, MPI_Datatype recvtype,
                  int root, comm::Comm& c);
int scattervMcastDynamic(const void* sendbuf, const int* sendcounts, const int* displs,
                         MPI_Datatype sendtype, void* recvbuf, int64_t recvcount,
                         MPI_Datatype recvtype, int root, comm::Comm& c);
int allgatherMcast(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int64_t recvcount, MPI_Datatype recvtype, comm::Comm& c);
int scatterLinear(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int64_t recvcount, MPI_Datatype recvtype, int root, comm::Comm& c);
int scattervLinear(const void* sendbuf, const int* sendcounts, const int* displs,
                   MPI_Datatype sendtype, void* recvbuf, int64_t recvcount, MPI_Datatype recvtype,
                   int root, comm::Comm& c);

int allgatherRing(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int64_t recvcount, MPI_Datatype recvtype, comm::Comm& c);
int allgathervRing(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const int* recvcounts, const int* displs, MPI_Datatype recvtype, comm::Comm& c);

int alltoallPairwise(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype, void* recvbuf,
                     int64_t recvcount, MPI_Datatype recvtype, comm::Comm& c);
int alltoallvLinear(const void* sendbuf, const int* sendcounts, const int* sdispls,
                    MPI_Datatype sendtype, void* recvbuf, const int* recvcounts, const int* rdispls,
                    MPI_Datatype recvtype, comm::Comm& c);
// DRS_N (alltoallv_drs.cc): test-and-set active messages before each message.
int alltoallvDrsN(const void* sendbuf, const int* sendcounts, const int* sdispls,
                  MPI_Datatype sendtype, void* recvbuf, const int* recvcounts, const int* rdispls,
                  MPI_Datatype recvtype, comm::Comm& c);
// DRS_N for messages of CCMPI_ALLTOALLV_LOCK_MIN bytes or more, smaller ones sent at once.
int alltoallvAdaptive(const void* sendbuf, const int* sendcounts, const int* sdispls,
                      MPI_Datatype sendtype, void* recvbuf, const int* recvcounts,
                      const int* rdispls, MPI_Datatype recvtype, comm::Comm& c);
int alltoallwLinear(const void* sendbuf, const int* sendcounts, const int* sdispls,
                    const MPI_Datatype* sendtypes, void* recvbuf, const int* recvcounts,
                    const int* rdispls, const MPI_Datatype* recvtypes, comm::Comm& c);

int reduceScatterReduceScatterv(const void* sendbuf, void* recvbuf, const int* recvcounts,
                                MPI_Datatype type, MPI_Op op, comm::Comm& c);
int reduceScatterBlockReduceScatter(const void* sendbuf, void* recvbuf, int64_t recvcount,
                                    MPI_Datatype type, MPI_Op op, comm::Comm& c);

int scanRecursiveDoubling(const void* sendbuf, void* recvbuf, int64_t count, MPI_Datatype type,
                          MPI_Op op, comm::Comm& c);
int scanLinear(const void* sendbuf, void* recvbuf, int64_t count, MPI_Datatype type, MPI_Op op,
               comm::Comm& c);
int exscanRecursiveDoubling(const void* sendbuf, void* recvbuf, int64_t count, MPI_Datatype type,
                            MPI_Op op, comm::Comm& c);

// --- node-aware algorithms (coll/node/): shared memory within one host ("shm"), and
// hierarchical across hosts ("node": within each host, then among the host leaders) ---
int barrierShm(comm::Comm& c);
int barrierNode(comm::Comm& c);
int bcastShm(void* buf, int64_t count, MPI_Datatype type, int root, comm::Comm& c);
int bcastNode(void* buf, int64_t count, MPI_Datatype type, int root, comm::Comm& c);
// The shm reduction behind allreduceShm (root < 0) and reduceShm.
int reduceShmCommon(const void* sendbuf, void* recvbuf, int64_t count, MPI_Datatype type, MPI_Op op,
                    int root, comm::Comm& c);
int reduceShm(const void* sendbuf, void* recvbuf, int64_t count, MPI_Datatype type, MPI_Op op,
              int root, comm::Comm& c);
int reduceNode(const void* sendbuf, void* recvbuf, int64_t count, MPI_Datatype type, MPI_Op op,
               int root, comm::Comm& c);
int allreduceShm(const void* sendbuf, void* recvbuf, int64_t count, MPI_Datatype type, MPI_Op op,
                 comm::Comm& c);
int allreduceNode(const void* sendbuf, void* recvbuf, int64_t count, MPI_Datatype type, MPI_Op op,
                  comm::Comm& c);
int gatherNode(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype, void* recvbuf,
               int64_t recvcount, MPI_Datatype recvtype, int root, comm::Comm& c);
int gathervNode(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype, void* recvbuf,
                const int* recvcounts, const int* displs, MPI_Datatype recvtype, int root,
                comm::Comm& c);
int scatterNode(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype, void* recvbuf,
                int64_t recvcount, MPI_Datatype recvtype, int root, comm::Comm& c);
int scattervNode(const void* sendbuf, const int* sendcounts, const int* displs,
                 MPI_Datatype sendtype, void* recvbuf, int64_t recvcount, MPI_Datatype recvtype,
                 int root, comm::Comm& c);
int allgatherShm(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int64_t recvcount, MPI_Datatype recvtype, comm::Comm& c);
int alltoallShm(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype, void* recvbuf,
                int64_t recvcount, MPI_Datatype recvtype, comm::Comm& c);
int allgatherNode(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int64_t recvcount, MPI_Datatype recvtype, comm::Comm& c);
int allgathervNode(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const int* recvcounts, const int* displs, MPI_Datatype recvtype, comm::Comm& c);
int alltoallNode(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int64_t recvcount, MPI_Datatype recvtype, comm::Comm& c);
int alltoallvNode(const void* sendbuf, const int* sendcounts, const int* sdispls,
                  MPI_Datatype sendtype, void* recvbuf, const int* recvcounts, const int* rdispls,
                  MPI_Datatype recvtype, comm::Comm& c);
int reduceScatterNode(const void* sendbuf, void* recvbuf, const int* recvcounts, MPI_Datatype type,
                      MPI_Op op, comm::Comm& c);
int reduceScatterBlockNode(const void* sendbuf, void* recvbuf, int64_t recvcount, MPI_Datatype type,
                           MPI_Op op, comm::Comm& c);

// --- selectors (what composed algorithms call; the public entry points wrap them) ---
int bcastSelect(void* buf, int64_t count, MPI_Datatype type, int root, comm::Comm& c);
int reduceSelect(const void* sendbuf, void* recvbuf, int64_t count, MPI_Datatype type, MPI_Op op,
                 int root, comm::Comm& c);
int scatterSelect(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int64_t recvcount, MPI_Datatype recvtype, int root, comm::Comm& c);
int scattervSelect(const void* sendbuf, const int* sendcounts, const int* displs,
                   MPI_Datatype sendtype, void* recvbuf, int64_t recvcount, MPI_Datatype recvtype,
                   int root, comm::Comm& c);

}  // namespace ccmpi::coll
