// Nonblocking (MPI_I<coll>) and persistent (MPI_<Coll>_init) collective entry points: the
// argument checks the blocking collectives use (api/coll_checks.h), then the collective
// layer's plan for the call (coll/coll_nb.h), handed back as an MPI_Request. The request of
// a nonblocking collective completes with it; a persistent one starts inactive, runs at
// every MPI_Start/MPI_Startall and is completed and freed like a persistent send. On an
// intercommunicator the collectives (but Scan and Exscan, undefined there) take their own
// checks and coll/inter/inter.h.
#include <vector>

#include "api/api.h"
#include "api/coll_checks.h"
#include "api/request_table.h"
#include "coll/alltoallv/alltoallv_levels.h"
#include "coll/coll_nb.h"
#include "coll/inter/inter.h"
#include "comm/comm.h"

namespace ccmpi::api {
namespace {

// Gives the caller the request the collective layer made, or raises its error.
int deliver(const char* func, MPI_Comm comm, int rc, p2p::Request* r, MPI_Request* request) {
  if (rc) return raiseComm(comm, func, rc);
  r->commHandle = comm;
  *request = requestHandle(r);
  return MPI_SUCCESS;
}

// make<Coll>: the checks and the request of MPI_I<coll> (mode kNonblocking, info unused)
// and MPI_<Coll>_init (mode kPersistent).

// The arguments every nonblocking and persistent collective has: the persistent form's
// info and the request pointer.
int checkStart(const char* kFunc, MPI_Comm comm, coll::Mode mode, MPI_Info info,
               MPI_Request* request) {
  if (mode == coll::Mode::kPersistent) CCMPI_TRY(checkInfo(kFunc, comm, info));
  return checkRequestOut(kFunc, comm, request);
}

int makeBarrier(const char* kFunc, MPI_Comm comm, MPI_Info info, coll::Mode mode,
                MPI_Request* request) {
  if (comm::Comm* ic = interOf(comm)) {
    CCMPI_TRY(checkStart(kFunc, comm, mode, info, request));
    p2p::Request* r = nullptr;
    const int rc = coll::inter::ibarrier(*ic, mode, &r);
    return deliver(kFunc, comm, rc, r, request);
  }
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkCollComm(kFunc, comm, &c));
  CCMPI_TRY(checkStart(kFunc, comm, mode, info, request));
  p2p::Request* r = nullptr;
  const int rc = coll::ibarrier(*c, mode, &r);
  return deliver(kFunc, comm, rc, r, request);
}

int makeBcast(const char* kFunc, void* buffer, int count, MPI_Datatype datatype, int root,
              MPI_Comm comm, MPI_Info info, coll::Mode mode, MPI_Request* request) {
  if (comm::Comm* ic = interOf(comm)) {
    CCMPI_TRY(checkInterBcast(kFunc, comm, *ic, buffer, count, datatype, root));
    CCMPI_TRY(checkStart(kFunc, comm, mode, info, request));
    p2p::Request* r = nullptr;
    const int rc = coll::inter::ibcast(buffer, count, datatype, root, *ic, mode, &r);
    return deliver(kFunc, comm, rc, r, request);
  }
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkCollComm(kFunc, comm, &c));
  CCMPI_TRY(checkBcast(kFunc, comm, *c, buffer, count, datatype, root));
  CCMPI_TRY(checkStart(kFunc, comm, mode, info, request));
  p2p::Request* r = nullptr;
  const int rc = coll::ibcast(buffer, count, datatype, root, *c, mode, &r);
  return deliver(kFunc, comm, rc, r, request);
}

int makeGather(const char* kFunc, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
               void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
               MPI_Info info, coll::Mode mode, MPI_Request* request) {
  if (comm::Comm* ic = interOf(comm)) {
    CCMPI_TRY(checkInterRooted(kFunc, comm, *ic, root, recvbuf, recvcount, nullptr, nullptr,
                               recvtype, sendbuf, sendcount, sendtype));
    CCMPI_TRY(checkStart(kFunc, comm, mode, info, request));
    p2p::Request* r = nullptr;
    const int rc = coll::inter::igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                        root, *ic, mode, &r);
    return deliver(kFunc, comm, rc, r, request);
  }
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkCollComm(kFunc, comm, &c));
  CCMPI_TRY(checkGather(kFunc, comm, *c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                        root));
  CCMPI_TRY(checkStart(kFunc, comm, mode, info, request));
  p2p::Request* r = nullptr;
  const int rc =
      coll::igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, *c, mode, &r);
  return deliver(kFunc, comm, rc, r, request);
}

int makeGatherv(const char* kFunc, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                void* recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                int root, MPI_Comm comm, MPI_Info info, coll::Mode mode, MPI_Request* request) {
  if (comm::Comm* ic = interOf(comm)) {
    CCMPI_TRY(checkInterRooted(kFunc, comm, *ic, root, recvbuf, 0, recvcounts, displs, recvtype,
                               sendbuf, sendcount, sendtype));
    CCMPI_TRY(checkStart(kFunc, comm, mode, info, request));
    p2p::Request* r = nullptr;
    const int rc = coll::inter::igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                         recvtype, root, *ic, mode, &r);
    return deliver(kFunc, comm, rc, r, request);
  }
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkCollComm(kFunc, comm, &c));
  CCMPI_TRY(checkGatherv(kFunc, comm, *c, sendbuf, sendcount, sendtype, recvcounts, displs, recvbuf,
                         recvtype, root));
  CCMPI_TRY(checkStart(kFunc, comm, mode, info, request));
  p2p::Request* r = nullptr;
  const int rc = coll::igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                                root, *c, mode, &r);
  return deliver(kFunc, comm, rc, r, request);
}

int makeScatter(const char* kFunc, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                MPI_Info info, coll::Mode mode, MPI_Request* request) {
  if (comm::Comm* ic = interOf(comm)) {
    CCMPI_TRY(checkInterRooted(kFunc, comm, *ic, root, sendbuf, sendcount, nullptr, nullptr,
                               sendtype, recvbuf, recvcount, recvtype));
    CCMPI_TRY(checkStart(kFunc, comm, mode, info, request));
    p2p::Request* r = nullptr;
    const int rc = coll::inter::iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                         root, *ic, mode, &r);
    return deliver(kFunc, comm, rc, r, request);
  }
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkCollComm(kFunc, comm, &c));
  CCMPI_TRY(checkScatter(kFunc, comm, *c, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                         recvtype, root));
  CCMPI_TRY(checkStart(kFunc, comm, mode, info, request));
  p2p::Request* r = nullptr;
  const int rc = coll::iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                                *c, mode, &r);
  return deliver(kFunc, comm, rc, r, request);
}

int makeScatterv(const char* kFunc, const void* sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm, MPI_Info info, coll::Mode mode, MPI_Request* request) {
  if (comm::Comm* ic = interOf(comm)) {
    CCMPI_TRY(checkInterRooted(kFunc, comm, *ic, root, sendbuf, 0, sendcounts, displs, sendtype,
                               recvbuf, recvcount, recvtype));
    CCMPI_TRY(checkStart(kFunc, comm, mode, info, request));
    p2p::Request* r = nullptr;
    const int rc = coll::inter::iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                                          recvtype, root, *ic, mode, &r);
    return deliver(kFunc, comm, rc, r, request);
  }
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkCollComm(kFunc, comm, &c));
  CCMPI_TRY(checkScatterv(kFunc, comm, *c, sendbuf, sendcounts, displs, sendtype, recvbuf,
                          recvcount, recvtype, root));
  CCMPI_TRY(checkStart(kFunc, comm, mode, info, request));
  p2p::Request* r = nullptr;
  const int rc = coll::iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                                 recvtype, root, *c, mode, &r);
  return deliver(kFunc, comm, rc, r, request);
}

int makeAllgather(const char* kFunc, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                  void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                  coll::Mode mode, MPI_Request* request) {
  if (comm::Comm* ic = interOf(comm)) {
    CCMPI_TRY(checkInterAll(kFunc, comm, *ic, sendbuf, sendcount, nullptr, nullptr, sendtype,
                            recvbuf, recvcount, nullptr, nullptr, recvtype));
    CCMPI_TRY(checkStart(kFunc, comm, mode, info, request));
    p2p::Request* r = nullptr;
    const int rc = coll::inter::iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                           recvtype, *ic, mode, &r);
    return deliver(kFunc, comm, rc, r, request);
  }
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkCollComm(kFunc, comm, &c));
  CCMPI_TRY(
      checkAllgather(kFunc, comm, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype));
  CCMPI_TRY(checkStart(kFunc, comm, mode, info, request));
  p2p::Request* r = nullptr;
  const int rc =
      coll::iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, *c, mode, &r);
  return deliver(kFunc, comm, rc, r, request);
}

int makeAllgatherv(const char* kFunc, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                   void* recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm, MPI_Info info, coll::Mode mode, MPI_Request* request) {
  if (comm::Comm* ic = interOf(comm)) {
    CCMPI_TRY(checkInterAll(kFunc, comm, *ic, sendbuf, sendcount, nullptr, nullptr, sendtype,
                            recvbuf, 0, recvcounts, displs, recvtype));
    CCMPI_TRY(checkStart(kFunc, comm, mode, info, request));
    p2p::Request* r = nullptr;
    const int rc = coll::inter::iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                            displs, recvtype, *ic, mode, &r);
    return deliver(kFunc, comm, rc, r, request);
  }
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkCollComm(kFunc, comm, &c));
  CCMPI_TRY(checkAllgatherv(kFunc, comm, *c, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                            displs, recvtype));
  CCMPI_TRY(checkStart(kFunc, comm, mode, info, request));
  p2p::Request* r = nullptr;
  const int rc = coll::iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                   recvtype, *c, mode, &r);
  return deliver(kFunc, comm, rc, r, request);
}

int makeAlltoall(const char* kFunc, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                 void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                 coll::Mode mode, MPI_Request* request) {
  if (comm::Comm* ic = interOf(comm)) {
    CCMPI_TRY(checkInterAll(kFunc, comm, *ic, sendbuf, sendcount, nullptr, nullptr, sendtype,
                            recvbuf, recvcount, nullptr, nullptr, recvtype));
    CCMPI_TRY(checkStart(kFunc, comm, mode, info, request));
    p2p::Request* r = nullptr;
    const int rc = coll::inter::ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                          recvtype, *ic, mode, &r);
    return deliver(kFunc, comm, rc, r, request);
  }
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkCollComm(kFunc, comm, &c));
  CCMPI_TRY(
      checkAllgather(kFunc, comm, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype));
  CCMPI_TRY(checkStart(kFunc, comm, mode, info, request));
  p2p::Request* r = nullptr;
  const int rc =
      coll::ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, *c, mode, &r);
  return deliver(kFunc, comm, rc, r, request);
}

int makeAlltoallv(const char* kFunc, const void* sendbuf, const int sendcounts[],
                  const int sdispls[], MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                  coll::Mode mode, MPI_Request* request) {
  if (comm::Comm* ic = interOf(comm)) {
    CCMPI_TRY(checkInterAll(kFunc, comm, *ic, sendbuf, 0, sendcounts, sdispls, sendtype, recvbuf, 0,
                            recvcounts, rdispls, recvtype));
    CCMPI_TRY(checkStart(kFunc, comm, mode, info, request));
    p2p::Request* r = nullptr;
    const int rc = coll::inter::ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                           recvcounts, rdispls, recvtype, *ic, mode, &r);
    return deliver(kFunc, comm, rc, r, request);
  }
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkCollComm(kFunc, comm, &c));
  CCMPI_TRY(checkAlltoallv(kFunc, comm, *c, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                           recvcounts, rdispls, recvtype));
  CCMPI_TRY(checkStart(kFunc, comm, mode, info, request));
  p2p::Request* r = nullptr;
  if (mode == coll::Mode::kPersistent) {
    // Compiled communication requested through info keys (include/mpix_ccmpi.h).
    bool handled = false;
    const int crc =
        coll::alltoallvInitCompiled(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                    rdispls, recvtype, *c, info, &handled, &r);
    if (handled) return deliver(kFunc, comm, crc, r, request);
  }
  const int rc = coll::ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                  rdispls, recvtype, *c, mode, &r);
  return deliver(kFunc, comm, rc, r, request);
}

int makeAlltoallw(const char* kFunc, const void* sendbuf, const int sendcounts[],
                  const int sdispls[], const MPI_Datatype sendtypes[], void* recvbuf,
                  const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                  MPI_Comm comm, MPI_Info info, coll::Mode mode, MPI_Request* request) {
  if (comm::Comm* ic = interOf(comm)) {
    CCMPI_TRY(checkInterAlltoallw(kFunc, comm, *ic, sendbuf, sendcounts, sdispls, sendtypes,
                                  recvcounts, rdispls, recvtypes));
    CCMPI_TRY(checkStart(kFunc, comm, mode, info, request));
    p2p::Request* r = nullptr;
    const int rc = coll::inter::ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                           recvcounts, rdispls, recvtypes, *ic, mode, &r);
    return deliver(kFunc, comm, rc, r, request);
  }
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkCollComm(kFunc, comm, &c));
  std::vector<MPI_Datatype> st, rt;
  const MPI_Datatype* stypes = nullptr;
  const MPI_Datatype* rtypes = nullptr;
  CCMPI_TRY(checkAlltoallw(kFunc, comm, *c, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                           recvcounts, rdispls, recvtypes, &st, &rt, &stypes, &rtypes));
  CCMPI_TRY(checkStart(kFunc, comm, mode, info, request));
  p2p::Request* r = nullptr;
  const int rc = coll::ialltoallw(sendbuf, sendcounts, sdispls, stypes, recvbuf, recvcounts,
                                  rdispls, rtypes, *c, mode, &r);
  return deliver(kFunc, comm, rc, r, request);
}

int makeReduce(const char* kFunc, const void* sendbuf, void* recvbuf, int count,
               MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Info info,
               coll::Mode mode, MPI_Request* request) {
  if (comm::Comm* ic = interOf(comm)) {
    CCMPI_TRY(checkInterReduce(kFunc, comm, *ic, sendbuf, recvbuf, count, datatype, op, root));
    CCMPI_TRY(checkStart(kFunc, comm, mode, info, request));
    p2p::Request* r = nullptr;
    const int rc = coll::inter::ireduce(sendbuf, recvbuf, count, datatype, op, root, *ic, mode, &r);
    return deliver(kFunc, comm, rc, r, request);
  }
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkCollComm(kFunc, comm, &c));
  CCMPI_TRY(checkReduce(kFunc, comm, *c, sendbuf, recvbuf, count, datatype, op, root));
  CCMPI_TRY(checkStart(kFunc, comm, mode, info, request));
  p2p::Request* r = nullptr;
  const int rc = coll::ireduce(sendbuf, recvbuf, count, datatype, op, root, *c, mode, &r);
  return deliver(kFunc, comm, rc, r, request);
}

int makeAllreduce(const char* kFunc, const void* sendbuf, void* recvbuf, int count,
                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, coll::Mode mode,
                  MPI_Request* request) {
  if (comm::Comm* ic = interOf(comm)) {
    CCMPI_TRY(checkInterAllreduce(kFunc, comm, sendbuf, recvbuf, count, count, datatype, op));
    CCMPI_TRY(checkStart(kFunc, comm, mode, info, request));
    p2p::Request* r = nullptr;
    const int rc = coll::inter::iallreduce(sendbuf, recvbuf, count, datatype, op, *ic, mode, &r);
    return deliver(kFunc, comm, rc, r, request);
  }
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkCollComm(kFunc, comm, &c));
  CCMPI_TRY(checkAllreduce(kFunc, comm, sendbuf, recvbuf, count, datatype, op));
  CCMPI_TRY(checkStart(kFunc, comm, mode, info, request));
  p2p::Request* r = nullptr;
  const int rc = coll::iallreduce(sendbuf, recvbuf, count, datatype, op, *c, mode, &r);
  return deliver(kFunc, comm, rc, r, request);
}

int makeReducescatterblock(const char* kFunc, const void* sendbuf, void* recvbuf, int recvcount,
                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                           coll::Mode mode, MPI_Request* request) {
  if (comm::Comm* ic = interOf(comm)) {
    CCMPI_TRY(checkInterAllreduce(kFunc, comm, sendbuf, recvbuf, recvcount * ic->size, recvcount,
                                  datatype, op));
    CCMPI_TRY(checkStart(kFunc, comm, mode, info, request));
    p2p::Request* r = nullptr;
    const int rc =
        coll::inter::ireduceScatterBlock(sendbuf, recvbuf, recvcount, datatype, op, *ic, mode, &r);
    return deliver(kFunc, comm, rc, r, request);
  }
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkCollComm(kFunc, comm, &c));
  CCMPI_TRY(checkReduceScatterBlock(kFunc, comm, sendbuf, recvbuf, recvcount, datatype, op));
  CCMPI_TRY(checkStart(kFunc, comm, mode, info, request));
  p2p::Request* r = nullptr;
  const int rc = coll::ireduceScatterBlock(sendbuf, recvbuf, recvcount, datatype, op, *c, mode, &r);
  return deliver(kFunc, comm, rc, r, request);
}

int makeReducescatter(const char* kFunc, const void* sendbuf, void* recvbuf, const int recvcounts[],
                      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                      coll::Mode mode, MPI_Request* request) {
  if (comm::Comm* ic = interOf(comm)) {
    CCMPI_TRY(
        checkInterReduceScatter(kFunc, comm, *ic, sendbuf, recvbuf, recvcounts, datatype, op));
    CCMPI_TRY(checkStart(kFunc, comm, mode, info, request));
    p2p::Request* r = nullptr;
    const int rc =
        coll::inter::ireduceScatter(sendbuf, recvbuf, recvcounts, datatype, op, *ic, mode, &r);
    return deliver(kFunc, comm, rc, r, request);
  }
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkCollComm(kFunc, comm, &c));
  CCMPI_TRY(checkReduceScatter(kFunc, comm, *c, sendbuf, recvbuf, recvcounts, datatype, op));
  CCMPI_TRY(checkStart(kFunc, comm, mode, info, request));
  p2p::Request* r = nullptr;
  const int rc = coll::ireduceScatter(sendbuf, recvbuf, recvcounts, datatype, op, *c, mode, &r);
  return deliver(kFunc, comm, rc, r, request);
}

int makeScan(const char* kFunc, const void* sendbuf, void* recvbuf, int count,
             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, coll::Mode mode,
             MPI_Request* request) {
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkCollComm(kFunc, comm, &c));
  CCMPI_TRY(checkAllreduce(kFunc, comm, sendbuf, recvbuf, count, datatype, op));
  CCMPI_TRY(checkStart(kFunc, comm, mode, info, request));
  p2p::Request* r = nullptr;
  const int rc = coll::iscan(sendbuf, recvbuf, count, datatype, op, *c, mode, &r);
  return deliver(kFunc, comm, rc, r, request);
}

int makeExscan(const char* kFunc, const void* sendbuf, void* recvbuf, int count,
               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, coll::Mode mode,
               MPI_Request* request) {
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkCollComm(kFunc, comm, &c));
  CCMPI_TRY(checkAllreduce(kFunc, comm, sendbuf, recvbuf, count, datatype, op));
  CCMPI_TRY(checkStart(kFunc, comm, mode, info, request));
  p2p::Request* r = nullptr;
  const int rc = coll::iexscan(sendbuf, recvbuf, count, datatype, op, *c, mode, &r);
  return deliver(kFunc, comm, rc, r, request);
}

}  // namespace
}  // namespace ccmpi::api

using namespace ccmpi;

extern "C" int PMPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Ibarrier");
  return api::makeBarrier(kFunc, comm, MPI_INFO_NULL, coll::Mode::kNonblocking, request);
}
CCMPI_MPI_ALIAS(MPI_Ibarrier)

extern "C" int PMPI_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                           MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Ibcast");
  return api::makeBcast(kFunc, buffer, count, datatype, root, comm, MPI_INFO_NULL,
                        coll::Mode::kNonblocking, request);
}
CCMPI_MPI_ALIAS(MPI_Ibcast)

extern "C" int PMPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                            MPI_Comm comm, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Igather");
  return api::makeGather(kFunc, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                         comm, MPI_INFO_NULL, coll::Mode::kNonblocking, request);
}
CCMPI_MPI_ALIAS(MPI_Igather)

extern "C" int PMPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                             void* recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Igatherv");
  return api::makeGatherv(kFunc, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                          recvtype, root, comm, MPI_INFO_NULL, coll::Mode::kNonblocking, request);
}
CCMPI_MPI_ALIAS(MPI_Igatherv)

extern "C" int PMPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                             void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                             MPI_Comm comm, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Iscatter");
  return api::makeScatter(kFunc, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                          comm, MPI_INFO_NULL, coll::Mode::kNonblocking, request);
}
CCMPI_MPI_ALIAS(MPI_Iscatter)

extern "C" int PMPI_Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                              MPI_Datatype sendtype, void* recvbuf, int recvcount,
                              MPI_Datatype recvtype, int root, MPI_Comm comm,
                              MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Iscatterv");
  return api::makeScatterv(kFunc, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                           recvtype, root, comm, MPI_INFO_NULL, coll::Mode::kNonblocking, request);
}
CCMPI_MPI_ALIAS(MPI_Iscatterv)

extern "C" int PMPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                               void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                               MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Iallgather");
  return api::makeAllgather(kFunc, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                            MPI_INFO_NULL, coll::Mode::kNonblocking, request);
}
CCMPI_MPI_ALIAS(MPI_Iallgather)

extern "C" int PMPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                void* recvbuf, const int recvcounts[], const int displs[],
                                MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Iallgatherv");
  return api::makeAllgatherv(kFunc, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                             recvtype, comm, MPI_INFO_NULL, coll::Mode::kNonblocking, request);
}
CCMPI_MPI_ALIAS(MPI_Iallgatherv)

extern "C" int PMPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                              void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                              MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Ialltoall");
  return api::makeAlltoall(kFunc, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                           MPI_INFO_NULL, coll::Mode::kNonblocking, request);
}
CCMPI_MPI_ALIAS(MPI_Ialltoall)

extern "C" int PMPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                               MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                               const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                               MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Ialltoallv");
  return api::makeAlltoallv(kFunc, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                            rdispls, recvtype, comm, MPI_INFO_NULL, coll::Mode::kNonblocking,
                            request);
}
CCMPI_MPI_ALIAS(MPI_Ialltoallv)

extern "C" int PMPI_Ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                               const MPI_Datatype sendtypes[], void* recvbuf,
                               const int recvcounts[], const int rdispls[],
                               const MPI_Datatype recvtypes[], MPI_Comm comm,
                               MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Ialltoallw");
  return api::makeAlltoallw(kFunc, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                            rdispls, recvtypes, comm, MPI_INFO_NULL, coll::Mode::kNonblocking,
                            request);
}
CCMPI_MPI_ALIAS(MPI_Ialltoallw)

extern "C" int PMPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                            MPI_Op op, int root, MPI_Comm comm, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Ireduce");
  return api::makeReduce(kFunc, sendbuf, recvbuf, count, datatype, op, root, comm, MPI_INFO_NULL,
                         coll::Mode::kNonblocking, request);
}
CCMPI_MPI_ALIAS(MPI_Ireduce)

extern "C" int PMPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                               MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Iallreduce");
  return api::makeAllreduce(kFunc, sendbuf, recvbuf, count, datatype, op, comm, MPI_INFO_NULL,
                            coll::Mode::kNonblocking, request);
}
CCMPI_MPI_ALIAS(MPI_Iallreduce)

extern "C" int PMPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                          MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Ireduce_scatter_block");
  return api::makeReducescatterblock(kFunc, sendbuf, recvbuf, recvcount, datatype, op, comm,
                                     MPI_INFO_NULL, coll::Mode::kNonblocking, request);
}
CCMPI_MPI_ALIAS(MPI_Ireduce_scatter_block)

extern "C" int PMPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                    MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Ireduce_scatter");
  return api::makeReducescatter(kFunc, sendbuf, recvbuf, recvcounts, datatype, op, comm,
                                MPI_INFO_NULL, coll::Mode::kNonblocking, request);
}
CCMPI_MPI_ALIAS(MPI_Ireduce_scatter)

extern "C" int PMPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                          MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Iscan");
  return api::makeScan(kFunc, sendbuf, recvbuf, count, datatype, op, comm, MPI_INFO_NULL,
                       coll::Mode::kNonblocking, request);
}
CCMPI_MPI_ALIAS(MPI_Iscan)

extern "C" int PMPI_Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                            MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Iexscan");
  return api::makeExscan(kFunc, sendbuf, recvbuf, count, datatype, op, comm, MPI_INFO_NULL,
                         coll::Mode::kNonblocking, request);
}
CCMPI_MPI_ALIAS(MPI_Iexscan)

extern "C" int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Barrier_init");
  return api::makeBarrier(kFunc, comm, info, coll::Mode::kPersistent, request);
}
CCMPI_MPI_ALIAS(MPI_Barrier_init)

extern "C" int PMPI_Bcast_init(void* buffer, int count, MPI_Datatype datatype, int root,
                               MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Bcast_init");
  return api::makeBcast(kFunc, buffer, count, datatype, root, comm, info, coll::Mode::kPersistent,
                        request);
}
CCMPI_MPI_ALIAS(MPI_Bcast_init)

extern "C" int PMPI_Gather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                                MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Gather_init");
  return api::makeGather(kFunc, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                         comm, info, coll::Mode::kPersistent, request);
}
CCMPI_MPI_ALIAS(MPI_Gather_init)

extern "C" int PMPI_Gatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void* recvbuf, const int recvcounts[], const int displs[],
                                 MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                                 MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Gatherv_init");
  return api::makeGatherv(kFunc, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                          recvtype, root, comm, info, coll::Mode::kPersistent, request);
}
CCMPI_MPI_ALIAS(MPI_Gatherv_init)

extern "C" int PMPI_Scatter_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                                 MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Scatter_init");
  return api::makeScatter(kFunc, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                          comm, info, coll::Mode::kPersistent, request);
}
CCMPI_MPI_ALIAS(MPI_Scatter_init)

extern "C" int PMPI_Scatterv_init(const void* sendbuf, const int sendcounts[], const int displs[],
                                  MPI_Datatype sendtype, void* recvbuf, int recvcount,
                                  MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                                  MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Scatterv_init");
  return api::makeScatterv(kFunc, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                           recvtype, root, comm, info, coll::Mode::kPersistent, request);
}
CCMPI_MPI_ALIAS(MPI_Scatterv_init)

extern "C" int PMPI_Allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                   void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                   MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Allgather_init");
  return api::makeAllgather(kFunc, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                            info, coll::Mode::kPersistent, request);
}
CCMPI_MPI_ALIAS(MPI_Allgather_init)

extern "C" int PMPI_Allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                    void* recvbuf, const int recvcounts[], const int displs[],
                                    MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                    MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Allgatherv_init");
  return api::makeAllgatherv(kFunc, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                             recvtype, comm, info, coll::Mode::kPersistent, request);
}
CCMPI_MPI_ALIAS(MPI_Allgatherv_init)

extern "C" int PMPI_Alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Alltoall_init");
  return api::makeAlltoall(kFunc, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                           info, coll::Mode::kPersistent, request);
}
CCMPI_MPI_ALIAS(MPI_Alltoall_init)

extern "C" int PMPI_Alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                   MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                   MPI_Info info, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Alltoallv_init");
  return api::makeAlltoallv(kFunc, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                            rdispls, recvtype, comm, info, coll::Mode::kPersistent, request);
}
CCMPI_MPI_ALIAS(MPI_Alltoallv_init)

extern "C" int PMPI_Alltoallw_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                   const MPI_Datatype sendtypes[], void* recvbuf,
                                   const int recvcounts[], const int rdispls[],
                                   const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                   MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Alltoallw_init");
  return api::makeAlltoallw(kFunc, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                            rdispls, recvtypes, comm, info, coll::Mode::kPersistent, request);
}
CCMPI_MPI_ALIAS(MPI_Alltoallw_init)

extern "C" int PMPI_Reduce_init(const void* sendbuf, void* recvbuf, int count,
                                MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                                MPI_Info info, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Reduce_init");
  return api::makeReduce(kFunc, sendbuf, recvbuf, count, datatype, op, root, comm, info,
                         coll::Mode::kPersistent, request);
}
CCMPI_MPI_ALIAS(MPI_Reduce_init)

extern "C" int PMPI_Allreduce_init(const void* sendbuf, void* recvbuf, int count,
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                   MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Allreduce_init");
  return api::makeAllreduce(kFunc, sendbuf, recvbuf, count, datatype, op, comm, info,
                            coll::Mode::kPersistent, request);
}
CCMPI_MPI_ALIAS(MPI_Allreduce_init)

extern "C" int PMPI_Reduce_scatter_block_init(const void* sendbuf, void* recvbuf, int recvcount,
                                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                              MPI_Info info, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Reduce_scatter_block_init");
  return api::makeReducescatterblock(kFunc, sendbuf, recvbuf, recvcount, datatype, op, comm, info,
                                     coll::Mode::kPersistent, request);
}
CCMPI_MPI_ALIAS(MPI_Reduce_scatter_block_init)

extern "C" int PMPI_Reduce_scatter_init(const void* sendbuf, void* recvbuf, const int recvcounts[],
                                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                        MPI_Info info, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Reduce_scatter_init");
  return api::makeReducescatter(kFunc, sendbuf, recvbuf, recvcounts, datatype, op, comm, info,
                                coll::Mode::kPersistent, request);
}
CCMPI_MPI_ALIAS(MPI_Reduce_scatter_init)

extern "C" int PMPI_Scan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                              MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Scan_init");
  return api::makeScan(kFunc, sendbuf, recvbuf, count, datatype, op, comm, info,
                       coll::Mode::kPersistent, request);
}
CCMPI_MPI_ALIAS(MPI_Scan_init)

extern "C" int PMPI_Exscan_init(const void* sendbuf, void* recvbuf, int count,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Exscan_init");
  return api::makeExscan(kFunc, sendbuf, recvbuf, count, datatype, op, comm, info,
                         coll::Mode::kPersistent, request);
}
CCMPI_MPI_ALIAS(MPI_Exscan_init)
