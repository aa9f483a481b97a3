// Blocking collective entry points: argument checks, then the collective layer.
//
// Checks follow the standard's "significant only at root" rules: arguments a rank does
// not use are not looked at (non-root ranks of MPI_Gather may pass anything as recvtype).
// Every failure is raised on the communicator naming the function, the class and the
// cause; errors from the algorithms are raised the same way with the cause they recorded.
#include <cstdint>
#include <vector>

#include "api/api.h"
#include "coll/coll.h"
#include "comm/comm.h"
#include "datatype/datatype.h"
#include "op/op.h"

namespace ccmpi::api {
namespace {

#define CCMPI_TRY(expr)               \
  do {                                \
    if (int rc_ = (expr)) return rc_; \
  } while (0)

const char* typeName(const datatype::Datatype& dt) {
  return dt.name().empty() ? "(unnamed derived datatype)" : dt.name().c_str();
}

int checkComm(const char* func, MPI_Comm comm, comm::Comm** out) {
  comm::Comm* c = comm::lookup(comm);
  if (!c) return raiseCommf(comm, func, MPI_ERR_COMM, "invalid communicator handle 0x%x", comm);
  *out = c;
  return MPI_SUCCESS;
}

int checkCount(const char* func, MPI_Comm comm, int count, const char* what) {
  if (count < 0) return raiseCommf(comm, func, MPI_ERR_COUNT, "%s %d is negative", what, count);
  return MPI_SUCCESS;
}

int checkType(const char* func, MPI_Comm comm, MPI_Datatype type, const char* what) {
  const datatype::Datatype* dt = datatype::lookup(type);
  if (!dt)
    return raiseCommf(comm, func, MPI_ERR_TYPE, "%s: invalid datatype handle 0x%x", what, type);
  if (!dt->committed())
    return raiseCommf(comm, func, MPI_ERR_TYPE, "%s: datatype %s is not committed", what,
                      typeName(*dt));
  return MPI_SUCCESS;
}

// count >= 0, a valid committed type, and a non-NULL buffer when a predefined type says
// there is data (a derived type may address absolute memory from MPI_BOTTOM).
int checkData(const char* func, MPI_Comm comm, const void* buf, int count, MPI_Datatype type,
              const char* what) {
  CCMPI_TRY(checkCount(func, comm, count, what));
  CCMPI_TRY(checkType(func, comm, type, what));
  const datatype::Datatype* dt = datatype::lookup(type);
  if (buf == nullptr && count > 0 && dt->predefined() && dt->size() > 0)
    return raiseCommf(comm, func, MPI_ERR_BUFFER, "%s: buffer is NULL but count is %d", what,
                      count);
  return MPI_SUCCESS;
}

int checkCounts(const char* func, MPI_Comm comm, int n, const int* counts, const int* displs,
                const char* what) {
  if (!counts) return raiseCommf(comm, func, MPI_ERR_ARG, "%s counts array is NULL", what);
  if (!displs) return raiseCommf(comm, func, MPI_ERR_ARG, "%s displacements array is NULL", what);
  for (int i = 0; i < n; ++i)
    if (counts[i] < 0)
      return raiseCommf(comm, func, MPI_ERR_COUNT, "%s count %d (for rank %d) is negative", what,
                        counts[i], i);
  return MPI_SUCCESS;
}

int checkRoot(const char* func, MPI_Comm comm, const comm::Comm& c, int root) {
  if (root < 0 || root >= c.size)
    return raiseCommf(comm, func, MPI_ERR_ROOT,
                      "root %d is not a rank of a communicator of size %d", root, c.size);
  return MPI_SUCCESS;
}

int checkOp(const char* func, MPI_Comm comm, MPI_Op op, MPI_Datatype type) {
  if (!op::lookup(op)) return raiseCommf(comm, func, MPI_ERR_OP, "invalid op handle 0x%x", op);
  if (!op::validFor(op, type)) {
    const datatype::Datatype* dt = datatype::lookup(type);
    return raiseCommf(comm, func, MPI_ERR_OP, "%s is not defined for datatype %s", op::name(op),
                      typeName(*dt));
  }
  return MPI_SUCCESS;
}

int notInPlace(const char* func, MPI_Comm comm, const void* buf, const char* what) {
  if (buf == MPI_IN_PLACE)
    return raiseCommf(comm, func, MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed as %s here", what);
  return MPI_SUCCESS;
}

int notAliased(const char* func, MPI_Comm comm, const void* sendbuf, const void* recvbuf,
               int64_t count) {
  if (count > 0 && sendbuf == recvbuf && sendbuf != nullptr)
    return raiseCommf(comm, func, MPI_ERR_BUFFER,
                      "sendbuf and recvbuf are the same buffer (use MPI_IN_PLACE)");
  return MPI_SUCCESS;
}

// Shared by the reductions: reduce-like checks of (sendbuf, recvbuf, count, type, op).
int checkReduction(const char* func, MPI_Comm comm, const void* sendbuf, const void* recvbuf,
                   int count, MPI_Datatype type, MPI_Op op, bool checkRecv) {
  CCMPI_TRY(checkCount(func, comm, count, "count"));
  CCMPI_TRY(checkType(func, comm, type, "datatype"));
  CCMPI_TRY(checkOp(func, comm, op, type));
  if (sendbuf != MPI_IN_PLACE) CCMPI_TRY(checkData(func, comm, sendbuf, count, type, "sendbuf"));
  if (checkRecv) {
    CCMPI_TRY(notInPlace(func, comm, recvbuf, "recvbuf"));
    CCMPI_TRY(checkData(func, comm, recvbuf, count, type, "recvbuf"));
    CCMPI_TRY(notAliased(func, comm, sendbuf, recvbuf, count));
  }
  return MPI_SUCCESS;
}

int finish(const char* func, MPI_Comm comm, int rc) {
  return rc == MPI_SUCCESS ? MPI_SUCCESS : raiseComm(comm, func, rc);
}

}  // namespace
}  // namespace ccmpi::api

using namespace ccmpi;
using api::checkComm;

extern "C" int PMPI_Barrier(MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Barrier");
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkComm(kFunc, comm, &c));
  return api::finish(kFunc, comm, coll::barrier(*c));
}
CCMPI_MPI_ALIAS(MPI_Barrier)

extern "C" int PMPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Bcast");
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkComm(kFunc, comm, &c));
  CCMPI_TRY(api::checkRoot(kFunc, comm, *c, root));
  CCMPI_TRY(api::notInPlace(kFunc, comm, buffer, "buffer"));
  CCMPI_TRY(api::checkData(kFunc, comm, buffer, count, datatype, "buffer"));
  return api::finish(kFunc, comm, coll::bcast(buffer, count, datatype, root, *c));
}
CCMPI_MPI_ALIAS(MPI_Bcast)

extern "C" int PMPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                           MPI_Op op, int root, MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Reduce");
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkComm(kFunc, comm, &c));
  CCMPI_TRY(api::checkRoot(kFunc, comm, *c, root));
  const bool isRoot = c->rank == root;
  if (!isRoot) CCMPI_TRY(api::notInPlace(kFunc, comm, sendbuf, "sendbuf on a non-root rank"));
  CCMPI_TRY(api::checkReduction(kFunc, comm, sendbuf, recvbuf, count, datatype, op, isRoot));
  return api::finish(kFunc, comm, coll::reduce(sendbuf, recvbuf, count, datatype, op, root, *c));
}
CCMPI_MPI_ALIAS(MPI_Reduce)

extern "C" int PMPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                              MPI_Op op, MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Allreduce");
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkComm(kFunc, comm, &c));
  CCMPI_TRY(api::checkReduction(kFunc, comm, sendbuf, recvbuf, count, datatype, op, true));
  return api::finish(kFunc, comm, coll::allreduce(sendbuf, recvbuf, count, datatype, op, *c));
}
CCMPI_MPI_ALIAS(MPI_Allreduce)

extern "C" int PMPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Reduce_scatter_block");
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkComm(kFunc, comm, &c));
  CCMPI_TRY(api::checkCount(kFunc, comm, recvcount, "recvcount"));
  CCMPI_TRY(api::checkType(kFunc, comm, datatype, "datatype"));
  CCMPI_TRY(api::checkOp(kFunc, comm, op, datatype));
  CCMPI_TRY(api::notInPlace(kFunc, comm, recvbuf, "recvbuf"));
  CCMPI_TRY(api::checkData(kFunc, comm, recvbuf, recvcount, datatype, "recvbuf"));
  if (sendbuf != MPI_IN_PLACE) {
    CCMPI_TRY(api::checkData(kFunc, comm, sendbuf, recvcount, datatype, "sendbuf"));
    CCMPI_TRY(api::notAliased(kFunc, comm, sendbuf, recvbuf, recvcount));
  }
  return api::finish(kFunc, comm,
                     coll::reduceScatterBlock(sendbuf, recvbuf, recvcount, datatype, op, *c));
}
CCMPI_MPI_ALIAS(MPI_Reduce_scatter_block)

extern "C" int PMPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Reduce_scatter");
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkComm(kFunc, comm, &c));
  if (!recvcounts) return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "recvcounts is NULL");
  int64_t total = 0;
  for (int i = 0; i < c->size; ++i) {
    if (recvcounts[i] < 0)
      return api::raiseCommf(comm, kFunc, MPI_ERR_COUNT, "recvcounts[%d] = %d is negative", i,
                             recvcounts[i]);
    total += recvcounts[i];
  }
  CCMPI_TRY(api::checkType(kFunc, comm, datatype, "datatype"));
  CCMPI_TRY(api::checkOp(kFunc, comm, op, datatype));
  CCMPI_TRY(api::notInPlace(kFunc, comm, recvbuf, "recvbuf"));
  CCMPI_TRY(api::checkData(kFunc, comm, recvbuf, recvcounts[c->rank], datatype, "recvbuf"));
  if (sendbuf != MPI_IN_PLACE) {
    if (total > INT32_MAX)
      return api::raiseCommf(comm, kFunc, MPI_ERR_COUNT, "the recvcounts add up to %lld",
                             static_cast<long long>(total));
    CCMPI_TRY(api::checkData(kFunc, comm, sendbuf, static_cast<int>(total), datatype, "sendbuf"));
    CCMPI_TRY(api::notAliased(kFunc, comm, sendbuf, recvbuf, total));
  }
  return api::finish(kFunc, comm,
                     coll::reduceScatter(sendbuf, recvbuf, recvcounts, datatype, op, *c));
}
CCMPI_MPI_ALIAS(MPI_Reduce_scatter)

extern "C" int PMPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Scan");
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkComm(kFunc, comm, &c));
  CCMPI_TRY(api::checkReduction(kFunc, comm, sendbuf, recvbuf, count, datatype, op, true));
  return api::finish(kFunc, comm, coll::scan(sendbuf, recvbuf, count, datatype, op, *c));
}
CCMPI_MPI_ALIAS(MPI_Scan)

extern "C" int PMPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                           MPI_Op op, MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Exscan");
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkComm(kFunc, comm, &c));
  CCMPI_TRY(api::checkReduction(kFunc, comm, sendbuf, recvbuf, count, datatype, op, true));
  return api::finish(kFunc, comm, coll::exscan(sendbuf, recvbuf, count, datatype, op, *c));
}
CCMPI_MPI_ALIAS(MPI_Exscan)

extern "C" int PMPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                           int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Gather");
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkComm(kFunc, comm, &c));
  CCMPI_TRY(api::checkRoot(kFunc, comm, *c, root));
  const bool isRoot = c->rank == root;
  if (isRoot) {
    CCMPI_TRY(api::notInPlace(kFunc, comm, recvbuf, "recvbuf"));
    CCMPI_TRY(api::checkData(kFunc, comm, recvbuf, recvcount, recvtype, "recvbuf"));
  } else {
    CCMPI_TRY(api::notInPlace(kFunc, comm, sendbuf, "sendbuf on a non-root rank"));
  }
  if (sendbuf != MPI_IN_PLACE) {
    CCMPI_TRY(api::checkData(kFunc, comm, sendbuf, sendcount, sendtype, "sendbuf"));
    if (isRoot) CCMPI_TRY(api::notAliased(kFunc, comm, sendbuf, recvbuf, sendcount));
  }
  return api::finish(
      kFunc, comm,
      coll::gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, *c));
}
CCMPI_MPI_ALIAS(MPI_Gather)

extern "C" int PMPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype, int root, MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Gatherv");
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkComm(kFunc, comm, &c));
  CCMPI_TRY(api::checkRoot(kFunc, comm, *c, root));
  const bool isRoot = c->rank == root;
  if (isRoot) {
    CCMPI_TRY(api::notInPlace(kFunc, comm, recvbuf, "recvbuf"));
    CCMPI_TRY(api::checkCounts(kFunc, comm, c->size, recvcounts, displs, "receive"));
    CCMPI_TRY(api::checkType(kFunc, comm, recvtype, "recvtype"));
  } else {
    CCMPI_TRY(api::notInPlace(kFunc, comm, sendbuf, "sendbuf on a non-root rank"));
  }
  if (sendbuf != MPI_IN_PLACE)
    CCMPI_TRY(api::checkData(kFunc, comm, sendbuf, sendcount, sendtype, "sendbuf"));
  return api::finish(
      kFunc, comm,
      coll::gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, *c));
}
CCMPI_MPI_ALIAS(MPI_Gatherv)

extern "C" int PMPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                            MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Scatter");
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkComm(kFunc, comm, &c));
  CCMPI_TRY(api::checkRoot(kFunc, comm, *c, root));
  const bool isRoot = c->rank == root;
  if (isRoot) {
    CCMPI_TRY(api::notInPlace(kFunc, comm, sendbuf, "sendbuf"));
    CCMPI_TRY(api::checkData(kFunc, comm, sendbuf, sendcount, sendtype, "sendbuf"));
  } else {
    CCMPI_TRY(api::notInPlace(kFunc, comm, recvbuf, "recvbuf on a non-root rank"));
  }
  if (recvbuf != MPI_IN_PLACE) {
    CCMPI_TRY(api::checkData(kFunc, comm, recvbuf, recvcount, recvtype, "recvbuf"));
    if (isRoot) CCMPI_TRY(api::notAliased(kFunc, comm, sendbuf, recvbuf, recvcount));
  }
  return api::finish(
      kFunc, comm,
      coll::scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, *c));
}
CCMPI_MPI_ALIAS(MPI_Scatter)

extern "C" int PMPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                             MPI_Datatype sendtype, void* recvbuf, int recvcount,
                             MPI_Datatype recvtype, int root, MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Scatterv");
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkComm(kFunc, comm, &c));
  CCMPI_TRY(api::checkRoot(kFunc, comm, *c, root));
  const bool isRoot = c->rank == root;
  if (isRoot) {
    CCMPI_TRY(api::notInPlace(kFunc, comm, sendbuf, "sendbuf"));
    CCMPI_TRY(api::checkCounts(kFunc, comm, c->size, sendcounts, displs, "send"));
    CCMPI_TRY(api::checkType(kFunc, comm, sendtype, "sendtype"));
  } else {
    CCMPI_TRY(api::notInPlace(kFunc, comm, recvbuf, "recvbuf on a non-root rank"));
  }
  if (recvbuf != MPI_IN_PLACE)
    CCMPI_TRY(api::checkData(kFunc, comm, recvbuf, recvcount, recvtype, "recvbuf"));
  return api::finish(kFunc, comm,
                     coll::scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                                    recvtype, root, *c));
}
CCMPI_MPI_ALIAS(MPI_Scatterv)

extern "C" int PMPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                              void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Allgather");
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkComm(kFunc, comm, &c));
  CCMPI_TRY(api::notInPlace(kFunc, comm, recvbuf, "recvbuf"));
  CCMPI_TRY(api::checkData(kFunc, comm, recvbuf, recvcount, recvtype, "recvbuf"));
  if (sendbuf != MPI_IN_PLACE) {
    CCMPI_TRY(api::checkData(kFunc, comm, sendbuf, sendcount, sendtype, "sendbuf"));
    CCMPI_TRY(api::notAliased(kFunc, comm, sendbuf, recvbuf, sendcount));
  }
  return api::finish(
      kFunc, comm, coll::allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, *c));
}
CCMPI_MPI_ALIAS(MPI_Allgather)

extern "C" int PMPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                               void* recvbuf, const int recvcounts[], const int displs[],
                               MPI_Datatype recvtype, MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Allgatherv");
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkComm(kFunc, comm, &c));
  CCMPI_TRY(api::notInPlace(kFunc, comm, recvbuf, "recvbuf"));
  CCMPI_TRY(api::checkCounts(kFunc, comm, c->size, recvcounts, displs, "receive"));
  CCMPI_TRY(api::checkType(kFunc, comm, recvtype, "recvtype"));
  if (sendbuf != MPI_IN_PLACE)
    CCMPI_TRY(api::checkData(kFunc, comm, sendbuf, sendcount, sendtype, "sendbuf"));
  return api::finish(
      kFunc, comm,
      coll::allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, *c));
}
CCMPI_MPI_ALIAS(MPI_Allgatherv)

extern "C" int PMPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                             void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Alltoall");
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkComm(kFunc, comm, &c));
  CCMPI_TRY(api::notInPlace(kFunc, comm, recvbuf, "recvbuf"));
  CCMPI_TRY(api::checkData(kFunc, comm, recvbuf, recvcount, recvtype, "recvbuf"));
  if (sendbuf != MPI_IN_PLACE) {
    CCMPI_TRY(api::checkData(kFunc, comm, sendbuf, sendcount, sendtype, "sendbuf"));
    CCMPI_TRY(api::notAliased(kFunc, comm, sendbuf, recvbuf, sendcount));
  }
  return api::finish(
      kFunc, comm, coll::alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, *c));
}
CCMPI_MPI_ALIAS(MPI_Alltoall)

extern "C" int PMPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                              MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                              const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Alltoallv");
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkComm(kFunc, comm, &c));
  CCMPI_TRY(api::notInPlace(kFunc, comm, recvbuf, "recvbuf"));
  CCMPI_TRY(api::checkCounts(kFunc, comm, c->size, recvcounts, rdispls, "receive"));
  CCMPI_TRY(api::checkType(kFunc, comm, recvtype, "recvtype"));
  if (sendbuf != MPI_IN_PLACE) {
    CCMPI_TRY(api::checkCounts(kFunc, comm, c->size, sendcounts, sdispls, "send"));
    CCMPI_TRY(api::checkType(kFunc, comm, sendtype, "sendtype"));
  }
  return api::finish(kFunc, comm,
                     coll::alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                     rdispls, recvtype, *c));
}
CCMPI_MPI_ALIAS(MPI_Alltoallv)

extern "C" int PMPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                              const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                              const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Alltoallw");
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkComm(kFunc, comm, &c));
  CCMPI_TRY(api::notInPlace(kFunc, comm, recvbuf, "recvbuf"));
  CCMPI_TRY(api::checkCounts(kFunc, comm, c->size, recvcounts, rdispls, "receive"));
  if (!recvtypes) return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "recvtypes is NULL");
  for (int i = 0; i < c->size; ++i)
    if (recvcounts[i] > 0) CCMPI_TRY(api::checkType(kFunc, comm, recvtypes[i], "recvtypes[i]"));
  if (sendbuf != MPI_IN_PLACE) {
    CCMPI_TRY(api::checkCounts(kFunc, comm, c->size, sendcounts, sdispls, "send"));
    if (!sendtypes) return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "sendtypes is NULL");
    for (int i = 0; i < c->size; ++i)
      if (sendcounts[i] > 0) CCMPI_TRY(api::checkType(kFunc, comm, sendtypes[i], "sendtypes[i]"));
  }
  // Types of empty blocks may be anything; give the algorithms a valid one.
  std::vector<MPI_Datatype> st, rt;
  auto sanitize = [&](const int* counts, const MPI_Datatype* types,
                      std::vector<MPI_Datatype>& out) {
    out.assign(types, types + c->size);
    for (int i = 0; i < c->size; ++i)
      if (counts[i] == 0 && !datatype::lookup(out[i])) out[i] = MPI_BYTE;
    return out.data();
  };
  const MPI_Datatype* rtypes = sanitize(recvcounts, recvtypes, rt);
  const MPI_Datatype* stypes =
      sendbuf == MPI_IN_PLACE ? sendtypes : sanitize(sendcounts, sendtypes, st);
  return api::finish(kFunc, comm,
                     coll::alltoallw(sendbuf, sendcounts, sdispls, stypes, recvbuf, recvcounts,
                                     rdispls, rtypes, *c));
}
CCMPI_MPI_ALIAS(MPI_Alltoallw)
