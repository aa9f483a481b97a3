// Neighbourhood collectives (MPI-3.1 section 7.6; MPI-4.0 persistent and large-count forms):
// MPI_Neighbor_<x>, MPI_Ineighbor_<x>, MPI_Neighbor_<x>_init, and the general path of their
// _c twins (api/large_count.h; the twins themselves are generated). Each entry point
// describes its call as a coll::NeighborCall; one function checks it against the
// communicator's topology and runs it blocking, nonblocking or persistent
// (coll/neighbor/neighbor.h).
#include <vector>

#include "api/api.h"
#include "api/coll_checks.h"
#include "api/large_count.h"
#include "api/request_table.h"
#include "coll/neighbor/neighbor.h"
#include "comm/comm.h"
#include "comm/topology.h"
#include "datatype/datatype.h"

using namespace ccmpi;
using Kind = coll::NeighborCall::Kind;

namespace ccmpi::api {
namespace {

// Per-neighbour arrays: present when there is a neighbour, counts >= 0, and (w form) a
// valid type wherever a count is positive. A type of an empty block may be anything: it
// is replaced by MPI_BYTE in *types.
int checkPerNeighbor(const char* func, MPI_Comm comm, const coll::NeighborCall& k, size_t n,
                     const void* counts, const void* displs, const MPI_Datatype* types,
                     std::vector<MPI_Datatype>* typesOut, const char* side) {
  if (n == 0) return MPI_SUCCESS;
  if (!counts) return raiseCommf(comm, func, MPI_ERR_ARG, "%s counts array is NULL", side);
  if (!displs) return raiseCommf(comm, func, MPI_ERR_ARG, "%s displacements array is NULL", side);
  const bool w = k.kind == Kind::kAlltoallw;
  if (w && !types) return raiseCommf(comm, func, MPI_ERR_ARG, "%s types array is NULL", side);
  for (size_t i = 0; i < n; ++i) {
    const int64_t c = k.countAt(counts, i);
    if (c < 0)
      return raiseCommf(comm, func, MPI_ERR_COUNT, "%s count %lld (neighbour %zu) is negative",
                        side, static_cast<long long>(c), i);
    if (w && c > 0) CCMPI_TRY(checkType(func, comm, types[i], side));
  }
  if (w) {
    typesOut->assign(types, types + n);
    for (size_t i = 0; i < n; ++i)
      if (k.countAt(counts, i) == 0 && !datatype::lookup((*typesOut)[i])) (*typesOut)[i] = MPI_BYTE;
  }
  return MPI_SUCCESS;
}

// How a call runs: blocking, or nonblocking/persistent with its request (and info).
struct Run {
  bool blocking = true;
  coll::Mode mode = coll::Mode::kNonblocking;
  MPI_Info info = MPI_INFO_NULL;
  MPI_Request* request = nullptr;
};

int runNeighbor(const char* func, MPI_Comm comm, coll::NeighborCall k, const Run& run) {
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkCollComm(func, comm, &c));
  std::vector<int> sources, destinations;
  if (!comm::topologyNeighbors(*c, &sources, &destinations))
    return raiseCommf(comm, func, MPI_ERR_TOPOLOGY,
                      "the communicator has no process topology (Cartesian, graph or "
                      "distributed graph)");
  if (k.sendbuf == MPI_IN_PLACE || k.recvbuf == MPI_IN_PLACE)
    return raiseCommf(comm, func, MPI_ERR_BUFFER,
                      "MPI_IN_PLACE is not allowed in a neighbourhood collective");
  std::vector<MPI_Datatype> st, rt;
  switch (k.kind) {
    case Kind::kAllgather:
    case Kind::kAlltoall:
      CCMPI_TRY(checkCount(func, comm, k.sendcount, "sendcount"));
      CCMPI_TRY(checkType(func, comm, k.sendtype, "sendtype"));
      CCMPI_TRY(checkCount(func, comm, k.recvcount, "recvcount"));
      CCMPI_TRY(checkType(func, comm, k.recvtype, "recvtype"));
      break;
    case Kind::kAllgatherv:
      CCMPI_TRY(checkCount(func, comm, k.sendcount, "sendcount"));
      CCMPI_TRY(checkType(func, comm, k.sendtype, "sendtype"));
      CCMPI_TRY(checkType(func, comm, k.recvtype, "recvtype"));
      CCMPI_TRY(checkPerNeighbor(func, comm, k, sources.size(), k.recvcounts, k.rdispls, nullptr,
                                 &rt, "receive"));
      break;
    case Kind::kAlltoallv:
      CCMPI_TRY(checkType(func, comm, k.sendtype, "sendtype"));
      CCMPI_TRY(checkType(func, comm, k.recvtype, "recvtype"));
      CCMPI_TRY(checkPerNeighbor(func, comm, k, destinations.size(), k.sendcounts, k.sdispls,
                                 nullptr, &st, "send"));
      CCMPI_TRY(checkPerNeighbor(func, comm, k, sources.size(), k.recvcounts, k.rdispls, nullptr,
                                 &rt, "receive"));
      break;
    case Kind::kAlltoallw:
      CCMPI_TRY(checkPerNeighbor(func, comm, k, destinations.size(), k.sendcounts, k.sdisplsW,
                                 k.sendtypes, &st, "send"));
      CCMPI_TRY(checkPerNeighbor(func, comm, k, sources.size(), k.recvcounts, k.rdisplsW,
                                 k.recvtypes, &rt, "receive"));
      k.sendtypes = st.data();
      k.recvtypes = rt.data();
      break;
  }
  if (run.blocking) return finish(func, comm, coll::neighbor(k, *c));
  if (run.mode == coll::Mode::kPersistent) CCMPI_TRY(checkInfo(func, comm, run.info));
  CCMPI_TRY(checkRequestOut(func, comm, run.request));
  p2p::Request* r = nullptr;
  if (int rc = coll::ineighbor(k, *c, run.mode, &r)) return raiseComm(comm, func, rc);
  r->commHandle = comm;
  *run.request = requestHandle(r);
  return MPI_SUCCESS;
}

Run blocking() {
  return Run{};
}
Run nonblocking(MPI_Request* request) {
  return Run{false, coll::Mode::kNonblocking, MPI_INFO_NULL, request};
}
Run persistent(MPI_Info info, MPI_Request* request) {
  return Run{false, coll::Mode::kPersistent, info, request};
}
Run runOf(const large::Form& f) {
  switch (f.kind) {
    case large::Form::kBlocking:
      return blocking();
    case large::Form::kNonblocking:
      return nonblocking(f.request);
    case large::Form::kPersistent:
      break;
  }
  return persistent(f.info, f.request);
}

// The calls, from the arguments every form shares.
coll::NeighborCall gatherCall(Kind kind, const void* sendbuf, int64_t sendcount,
                              MPI_Datatype sendtype, void* recvbuf, int64_t recvcount,
                              MPI_Datatype recvtype) {
  coll::NeighborCall k;
  k.kind = kind;
  k.sendbuf = sendbuf;
  k.sendcount = sendcount;
  k.sendtype = sendtype;
  k.recvbuf = recvbuf;
  k.recvcount = recvcount;
  k.recvtype = recvtype;
  return k;
}
coll::NeighborCall allgathervCall(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype,
                                  void* recvbuf, const void* recvcounts, const void* displs,
                                  MPI_Datatype recvtype, bool large) {
  coll::NeighborCall k =
      gatherCall(Kind::kAllgatherv, sendbuf, sendcount, sendtype, recvbuf, 0, recvtype);
  k.recvcounts = recvcounts;
  k.rdispls = displs;
  k.largeCounts = large;
  return k;
}
coll::NeighborCall alltoallvCall(const void* sendbuf, const void* sendcounts, const void* sdispls,
                                 MPI_Datatype sendtype, void* recvbuf, const void* recvcounts,
                                 const void* rdispls, MPI_Datatype recvtype, bool large) {
  coll::NeighborCall k = gatherCall(Kind::kAlltoallv, sendbuf, 0, sendtype, recvbuf, 0, recvtype);
  k.sendcounts = sendcounts;
  k.sdispls = sdispls;
  k.recvcounts = recvcounts;
  k.rdispls = rdispls;
  k.largeCounts = large;
  return k;
}
coll::NeighborCall alltoallwCall(const void* sendbuf, const void* sendcounts,
                                 const MPI_Aint* sdispls, const MPI_Datatype* sendtypes,
                                 void* recvbuf, const void* recvcounts, const MPI_Aint* rdispls,
                                 const MPI_Datatype* recvtypes, bool large) {
  coll::NeighborCall k;
  k.kind = Kind::kAlltoallw;
  k.sendbuf = sendbuf;
  k.recvbuf = recvbuf;
  k.sendcounts = sendcounts;
  k.recvcounts = recvcounts;
  k.sdisplsW = sdispls;
  k.rdisplsW = rdispls;
  k.sendtypes = sendtypes;
  k.recvtypes = recvtypes;
  k.largeCounts = large;
  return k;
}

}  // namespace

// ---------- the general paths of the _c twins (api/large_count.h) ----------

namespace large {

int neighborAllgather(const char* func, const void* sendbuf, MPI_Count sendcount,
                      MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                      MPI_Datatype recvtype, MPI_Comm comm, Form form) {
  return runNeighbor(
      func, comm,
      gatherCall(Kind::kAllgather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype),
      runOf(form));
}

int neighborAllgatherv(const char* func, const void* sendbuf, MPI_Count sendcount,
                       MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                       const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm, Form form) {
  return runNeighbor(
      func, comm,
      allgathervCall(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, true),
      runOf(form));
}

int neighborAlltoall(const char* func, const void* sendbuf, MPI_Count sendcount,
                     MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                     MPI_Datatype recvtype, MPI_Comm comm, Form form) {
  return runNeighbor(
      func, comm,
      gatherCall(Kind::kAlltoall, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype),
      runOf(form));
}

int neighborAlltoallv(const char* func, const void* sendbuf, const MPI_Count sendcounts[],
                      const MPI_Aint sdispls[], MPI_Datatype sendtype, void* recvbuf,
                      const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype,
                      MPI_Comm comm, Form form) {
  return runNeighbor(func, comm,
                     alltoallvCall(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                   rdispls, recvtype, true),
                     runOf(form));
}

int neighborAlltoallw(const char* func, const void* sendbuf, const MPI_Count sendcounts[],
                      const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void* recvbuf,
                      const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                      const MPI_Datatype recvtypes[], MPI_Comm comm, Form form) {
  return runNeighbor(func, comm,
                     alltoallwCall(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                   rdispls, recvtypes, true),
                     runOf(form));
}

}  // namespace large
}  // namespace ccmpi::api

using namespace ccmpi::api;

// ---------- MPI_Neighbor_allgather ----------

extern "C" int PMPI_Neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                       void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                       MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Neighbor_allgather");
  return runNeighbor(
      kFunc, comm,
      gatherCall(Kind::kAllgather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype),
      blocking());
}
CCMPI_MPI_ALIAS(MPI_Neighbor_allgather)

extern "C" int PMPI_Ineighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                        void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                        MPI_Comm comm, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Ineighbor_allgather");
  return runNeighbor(
      kFunc, comm,
      gatherCall(Kind::kAllgather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype),
      nonblocking(request));
}
CCMPI_MPI_ALIAS(MPI_Ineighbor_allgather)

extern "C" int PMPI_Neighbor_allgather_init(const void* sendbuf, int sendcount,
                                            MPI_Datatype sendtype, void* recvbuf, int recvcount,
                                            MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                            MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Neighbor_allgather_init");
  return runNeighbor(
      kFunc, comm,
      gatherCall(Kind::kAllgather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype),
      persistent(info, request));
}
CCMPI_MPI_ALIAS(MPI_Neighbor_allgather_init)

// ---------- MPI_Neighbor_allgatherv ----------

extern "C" int PMPI_Neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                        void* recvbuf, const int recvcounts[], const int displs[],
                                        MPI_Datatype recvtype, MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Neighbor_allgatherv");
  return runNeighbor(
      kFunc, comm,
      allgathervCall(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, false),
      blocking());
}
CCMPI_MPI_ALIAS(MPI_Neighbor_allgatherv)

extern "C" int PMPI_Ineighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                         void* recvbuf, const int recvcounts[], const int displs[],
                                         MPI_Datatype recvtype, MPI_Comm comm,
                                         MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Ineighbor_allgatherv");
  return runNeighbor(
      kFunc, comm,
      allgathervCall(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, false),
      nonblocking(request));
}
CCMPI_MPI_ALIAS(MPI_Ineighbor_allgatherv)

extern "C" int PMPI_Neighbor_allgatherv_init(const void* sendbuf, int sendcount,
                                             MPI_Datatype sendtype, void* recvbuf,
                                             const int recvcounts[], const int displs[],
                                             MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                             MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Neighbor_allgatherv_init");
  return runNeighbor(
      kFunc, comm,
      allgathervCall(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, false),
      persistent(info, request));
}
CCMPI_MPI_ALIAS(MPI_Neighbor_allgatherv_init)

// ---------- MPI_Neighbor_alltoall ----------

extern "C" int PMPI_Neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                      void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                      MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Neighbor_alltoall");
  return runNeighbor(
      kFunc, comm,
      gatherCall(Kind::kAlltoall, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype),
      blocking());
}
CCMPI_MPI_ALIAS(MPI_Neighbor_alltoall)

extern "C" int PMPI_Ineighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                       void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                       MPI_Comm comm, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Ineighbor_alltoall");
  return runNeighbor(
      kFunc, comm,
      gatherCall(Kind::kAlltoall, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype),
      nonblocking(request));
}
CCMPI_MPI_ALIAS(MPI_Ineighbor_alltoall)

extern "C" int PMPI_Neighbor_alltoall_init(const void* sendbuf, int sendcount,
                                           MPI_Datatype sendtype, void* recvbuf, int recvcount,
                                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                           MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Neighbor_alltoall_init");
  return runNeighbor(
      kFunc, comm,
      gatherCall(Kind::kAlltoall, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype),
      persistent(info, request));
}
CCMPI_MPI_ALIAS(MPI_Neighbor_alltoall_init)

// ---------- MPI_Neighbor_alltoallv ----------

extern "C" int PMPI_Neighbor_alltoallv(const void* sendbuf, const int sendcounts[],
                                       const int sdispls[], MPI_Datatype sendtype, void* recvbuf,
                                       const int recvcounts[], const int rdispls[],
                                       MPI_Datatype recvtype, MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Neighbor_alltoallv");
  return runNeighbor(kFunc, comm,
                     alltoallvCall(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                   rdispls, recvtype, false),
                     blocking());
}
CCMPI_MPI_ALIAS(MPI_Neighbor_alltoallv)

extern "C" int PMPI_Ineighbor_alltoallv(const void* sendbuf, const int sendcounts[],
                                        const int sdispls[], MPI_Datatype sendtype, void* recvbuf,
                                        const int recvcounts[], const int rdispls[],
                                        MPI_Datatype recvtype, MPI_Comm comm,
                                        MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Ineighbor_alltoallv");
  return runNeighbor(kFunc, comm,
                     alltoallvCall(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                   rdispls, recvtype, false),
                     nonblocking(request));
}
CCMPI_MPI_ALIAS(MPI_Ineighbor_alltoallv)

extern "C" int PMPI_Neighbor_alltoallv_init(const void* sendbuf, const int sendcounts[],
                                            const int sdispls[], MPI_Datatype sendtype,
                                            void* recvbuf, const int recvcounts[],
                                            const int rdispls[], MPI_Datatype recvtype,
                                            MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Neighbor_alltoallv_init");
  return runNeighbor(kFunc, comm,
                     alltoallvCall(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                   rdispls, recvtype, false),
                     persistent(info, request));
}
CCMPI_MPI_ALIAS(MPI_Neighbor_alltoallv_init)

// ---------- MPI_Neighbor_alltoallw ----------

extern "C" int PMPI_Neighbor_alltoallw(const void* sendbuf, const int sendcounts[],
                                       const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                       void* recvbuf, const int recvcounts[],
                                       const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                       MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Neighbor_alltoallw");
  return runNeighbor(kFunc, comm,
                     alltoallwCall(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                   rdispls, recvtypes, false),
                     blocking());
}
CCMPI_MPI_ALIAS(MPI_Neighbor_alltoallw)

extern "C" int PMPI_Ineighbor_alltoallw(const void* sendbuf, const int sendcounts[],
                                        const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                        void* recvbuf, const int recvcounts[],
                                        const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                        MPI_Comm comm, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Ineighbor_alltoallw");
  return runNeighbor(kFunc, comm,
                     alltoallwCall(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                   rdispls, recvtypes, false),
                     nonblocking(request));
}
CCMPI_MPI_ALIAS(MPI_Ineighbor_alltoallw)

extern "C" int PMPI_Neighbor_alltoallw_init(const void* sendbuf, const int sendcounts[],
                                            const MPI_Aint sdispls[],
                                            const MPI_Datatype sendtypes[], void* recvbuf,
                                            const int recvcounts[], const MPI_Aint rdispls[],
                                            const MPI_Datatype recvtypes[], MPI_Comm comm,
                                            MPI_Info info, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Neighbor_alltoallw_init");
  return runNeighbor(kFunc, comm,
                     alltoallwCall(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                   rdispls, recvtypes, false),
                     persistent(info, request));
}
CCMPI_MPI_ALIAS(MPI_Neighbor_alltoallw_init)
