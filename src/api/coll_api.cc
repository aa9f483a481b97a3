// Blocking collective entry points: argument checks (api/coll_checks.h, shared with the
// nonblocking and persistent ones), then the collective layer. Errors from the algorithms
// are raised on the communicator with the cause they recorded. On an intercommunicator
// each collective (but Scan and Exscan, undefined there) takes its own checks and
// coll/inter/inter.h.
#include <vector>

#include "api/api.h"
#include "api/coll_checks.h"
#include "coll/coll.h"
#include "coll/inter/inter.h"
#include "comm/comm.h"

using namespace ccmpi;
using api::checkCollComm;
using api::finish;

extern "C" int PMPI_Barrier(MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Barrier");
  if (comm::Comm* ic = api::interOf(comm)) {
    return finish(kFunc, comm, coll::inter::barrier(*ic));
  }
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkCollComm(kFunc, comm, &c));
  return finish(kFunc, comm, coll::barrier(*c));
}
CCMPI_MPI_ALIAS(MPI_Barrier)

extern "C" int PMPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Bcast");
  if (comm::Comm* ic = api::interOf(comm)) {
    CCMPI_TRY(api::checkInterBcast(kFunc, comm, *ic, buffer, count, datatype, root));
    return finish(kFunc, comm, coll::inter::bcast(buffer, count, datatype, root, *ic));
  }
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkCollComm(kFunc, comm, &c));
  CCMPI_TRY(api::checkBcast(kFunc, comm, *c, buffer, count, datatype, root));
  return finish(kFunc, comm, coll::bcast(buffer, count, datatype, root, *c));
}
CCMPI_MPI_ALIAS(MPI_Bcast)

extern "C" int PMPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                           MPI_Op op, int root, MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Reduce");
  if (comm::Comm* ic = api::interOf(comm)) {
    CCMPI_TRY(api::checkInterReduce(kFunc, comm, *ic, sendbuf, recvbuf, count, datatype, op, root));
    return finish(kFunc, comm,
                  coll::inter::reduce(sendbuf, recvbuf, count, datatype, op, root, *ic));
  }
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkCollComm(kFunc, comm, &c));
  CCMPI_TRY(api::checkReduce(kFunc, comm, *c, sendbuf, recvbuf, count, datatype, op, root));
  return finish(kFunc, comm, coll::reduce(sendbuf, recvbuf, count, datatype, op, root, *c));
}
CCMPI_MPI_ALIAS(MPI_Reduce)

extern "C" int PMPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                              MPI_Op op, MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Allreduce");
  if (comm::Comm* ic = api::interOf(comm)) {
    CCMPI_TRY(api::checkInterAllreduce(kFunc, comm, sendbuf, recvbuf, count, count, datatype, op));
    return finish(kFunc, comm, coll::inter::allreduce(sendbuf, recvbuf, count, datatype, op, *ic));
  }
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkCollComm(kFunc, comm, &c));
  CCMPI_TRY(api::checkAllreduce(kFunc, comm, sendbuf, recvbuf, count, datatype, op));
  return finish(kFunc, comm, coll::allreduce(sendbuf, recvbuf, count, datatype, op, *c));
}
CCMPI_MPI_ALIAS(MPI_Allreduce)

extern "C" int PMPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Reduce_scatter_block");
  if (comm::Comm* ic = api::interOf(comm)) {
    CCMPI_TRY(api::checkInterAllreduce(kFunc, comm, sendbuf, recvbuf, recvcount * ic->size,
                                       recvcount, datatype, op));
    return finish(kFunc, comm,
                  coll::inter::reduceScatterBlock(sendbuf, recvbuf, recvcount, datatype, op, *ic));
  }
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkCollComm(kFunc, comm, &c));
  CCMPI_TRY(api::checkReduceScatterBlock(kFunc, comm, sendbuf, recvbuf, recvcount, datatype, op));
  return finish(kFunc, comm,
                coll::reduceScatterBlock(sendbuf, recvbuf, recvcount, datatype, op, *c));
}
CCMPI_MPI_ALIAS(MPI_Reduce_scatter_block)

extern "C" int PMPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Reduce_scatter");
  if (comm::Comm* ic = api::interOf(comm)) {
    CCMPI_TRY(
        api::checkInterReduceScatter(kFunc, comm, *ic, sendbuf, recvbuf, recvcounts, datatype, op));
    return finish(kFunc, comm,
                  coll::inter::reduceScatter(sendbuf, recvbuf, recvcounts, datatype, op, *ic));
  }
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkCollComm(kFunc, comm, &c));
  CCMPI_TRY(api::checkReduceScatter(kFunc, comm, *c, sendbuf, recvbuf, recvcounts, datatype, op));
  return finish(kFunc, comm, coll::reduceScatter(sendbuf, recvbuf, recvcounts, datatype, op, *c));
}
CCMPI_MPI_ALIAS(MPI_Reduce_scatter)

extern "C" int PMPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Scan");
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkCollComm(kFunc, comm, &c));
  CCMPI_TRY(api::checkAllreduce(kFunc, comm, sendbuf, recvbuf, count, datatype, op));
  return finish(kFunc, comm, coll::scan(sendbuf, recvbuf, count, datatype, op, *c));
}
CCMPI_MPI_ALIAS(MPI_Scan)

extern "C" int PMPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                           MPI_Op op, MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Exscan");
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkCollComm(kFunc, comm, &c));
  CCMPI_TRY(api::checkAllreduce(kFunc, comm, sendbuf, recvbuf, count, datatype, op));
  return finish(kFunc, comm, coll::exscan(sendbuf, recvbuf, count, datatype, op, *c));
}
CCMPI_MPI_ALIAS(MPI_Exscan)

extern "C" int PMPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                           int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Gather");
  if (comm::Comm* ic = api::interOf(comm)) {
    CCMPI_TRY(api::checkInterRooted(kFunc, comm, *ic, root, recvbuf, recvcount, nullptr, nullptr,
                                    recvtype, sendbuf, sendcount, sendtype));
    return finish(
        kFunc, comm,
        coll::inter::gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, *ic));
  }
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkCollComm(kFunc, comm, &c));
  CCMPI_TRY(api::checkGather(kFunc, comm, *c, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                             recvtype, root));
  return finish(kFunc, comm,
                coll::gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, *c));
}
CCMPI_MPI_ALIAS(MPI_Gather)

extern "C" int PMPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype, int root, MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Gatherv");
  if (comm::Comm* ic = api::interOf(comm)) {
    CCMPI_TRY(api::checkInterRooted(kFunc, comm, *ic, root, recvbuf, 0, recvcounts, displs,
                                    recvtype, sendbuf, sendcount, sendtype));
    return finish(kFunc, comm,
                  coll::inter::gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                       recvtype, root, *ic));
  }
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkCollComm(kFunc, comm, &c));
  CCMPI_TRY(api::checkGatherv(kFunc, comm, *c, sendbuf, sendcount, sendtype, recvcounts, displs,
                              recvbuf, recvtype, root));
  return finish(
      kFunc, comm,
      coll::gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, *c));
}
CCMPI_MPI_ALIAS(MPI_Gatherv)

extern "C" int PMPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                            MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Scatter");
  if (comm::Comm* ic = api::interOf(comm)) {
    CCMPI_TRY(api::checkInterRooted(kFunc, comm, *ic, root, sendbuf, sendcount, nullptr, nullptr,
                                    sendtype, recvbuf, recvcount, recvtype));
    return finish(kFunc, comm,
                  coll::inter::scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                       root, *ic));
  }
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkCollComm(kFunc, comm, &c));
  CCMPI_TRY(api::checkScatter(kFunc, comm, *c, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                              recvtype, root));
  return finish(
      kFunc, comm,
      coll::scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, *c));
}
CCMPI_MPI_ALIAS(MPI_Scatter)

extern "C" int PMPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                             MPI_Datatype sendtype, void* recvbuf, int recvcount,
                             MPI_Datatype recvtype, int root, MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Scatterv");
  if (comm::Comm* ic = api::interOf(comm)) {
    CCMPI_TRY(api::checkInterRooted(kFunc, comm, *ic, root, sendbuf, 0, sendcounts, displs,
                                    sendtype, recvbuf, recvcount, recvtype));
    return finish(kFunc, comm,
                  coll::inter::scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                                        recvtype, root, *ic));
  }
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkCollComm(kFunc, comm, &c));
  CCMPI_TRY(api::checkScatterv(kFunc, comm, *c, sendbuf, sendcounts, displs, sendtype, recvbuf,
                               recvcount, recvtype, root));
  return finish(kFunc, comm,
                coll::scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                               root, *c));
}
CCMPI_MPI_ALIAS(MPI_Scatterv)

extern "C" int PMPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                              void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Allgather");
  if (comm::Comm* ic = api::interOf(comm)) {
    CCMPI_TRY(api::checkInterAll(kFunc, comm, *ic, sendbuf, sendcount, nullptr, nullptr, sendtype,
                                 recvbuf, recvcount, nullptr, nullptr, recvtype));
    return finish(
        kFunc, comm,
        coll::inter::allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, *ic));
  }
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkCollComm(kFunc, comm, &c));
  CCMPI_TRY(
      api::checkAllgather(kFunc, comm, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype));
  return finish(kFunc, comm,
                coll::allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, *c));
}
CCMPI_MPI_ALIAS(MPI_Allgather)

extern "C" int PMPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                               void* recvbuf, const int recvcounts[], const int displs[],
                               MPI_Datatype recvtype, MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Allgatherv");
  if (comm::Comm* ic = api::interOf(comm)) {
    CCMPI_TRY(api::checkInterAll(kFunc, comm, *ic, sendbuf, sendcount, nullptr, nullptr, sendtype,
                                 recvbuf, 0, recvcounts, displs, recvtype));
    return finish(kFunc, comm,
                  coll::inter::allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                          recvtype, *ic));
  }
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkCollComm(kFunc, comm, &c));
  CCMPI_TRY(api::checkAllgatherv(kFunc, comm, *c, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                 displs, recvtype));
  return finish(
      kFunc, comm,
      coll::allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, *c));
}
CCMPI_MPI_ALIAS(MPI_Allgatherv)

extern "C" int PMPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                             void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Alltoall");
  if (comm::Comm* ic = api::interOf(comm)) {
    CCMPI_TRY(api::checkInterAll(kFunc, comm, *ic, sendbuf, sendcount, nullptr, nullptr, sendtype,
                                 recvbuf, recvcount, nullptr, nullptr, recvtype));
    return finish(
        kFunc, comm,
        coll::inter::alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, *ic));
  }
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkCollComm(kFunc, comm, &c));
  CCMPI_TRY(
      api::checkAllgather(kFunc, comm, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype));
  return finish(kFunc, comm,
                coll::alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, *c));
}
CCMPI_MPI_ALIAS(MPI_Alltoall)

extern "C" int PMPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                              MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                              const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Alltoallv");
  if (comm::Comm* ic = api::interOf(comm)) {
    CCMPI_TRY(api::checkInterAll(kFunc, comm, *ic, sendbuf, 0, sendcounts, sdispls, sendtype,
                                 recvbuf, 0, recvcounts, rdispls, recvtype));
    return finish(kFunc, comm,
                  coll::inter::alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                         recvcounts, rdispls, recvtype, *ic));
  }
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkCollComm(kFunc, comm, &c));
  CCMPI_TRY(api::checkAlltoallv(kFunc, comm, *c, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                recvcounts, rdispls, recvtype));
  return finish(kFunc, comm,
                coll::alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                rdispls, recvtype, *c));
}
CCMPI_MPI_ALIAS(MPI_Alltoallv)

extern "C" int PMPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                              const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                              const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Alltoallw");
  if (comm::Comm* ic = api::interOf(comm)) {
    CCMPI_TRY(api::checkInterAlltoallw(kFunc, comm, *ic, sendbuf, sendcounts, sdispls, sendtypes,
                                       recvcounts, rdispls, recvtypes));
    return finish(kFunc, comm,
                  coll::inter::alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                         recvcounts, rdispls, recvtypes, *ic));
  }
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkCollComm(kFunc, comm, &c));
  std::vector<MPI_Datatype> st, rt;
  const MPI_Datatype* stypes = nullptr;
  const MPI_Datatype* rtypes = nullptr;
  CCMPI_TRY(api::checkAlltoallw(kFunc, comm, *c, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                recvcounts, rdispls, recvtypes, &st, &rt, &stypes, &rtypes));
  return finish(kFunc, comm,
                coll::alltoallw(sendbuf, sendcounts, sdispls, stypes, recvbuf, recvcounts, rdispls,
                                rtypes, *c));
}
CCMPI_MPI_ALIAS(MPI_Alltoallw)
