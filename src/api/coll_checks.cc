// Argument checks of the collectives (see coll_checks.h).
#include "api/coll_checks.h"

#include "api/api.h"
#include "comm/info.h"
#include "datatype/datatype.h"
#include "op/op.h"

namespace ccmpi::api {
namespace {

const char* typeName(const datatype::Datatype& dt) {
  return dt.name().empty() ? "(unnamed derived datatype)" : dt.name().c_str();
}
}  // namespace

int checkCount(const char* func, MPI_Comm comm, int64_t count, const char* what) {
  if (count < 0)
    return raiseCommf(comm, func, MPI_ERR_COUNT, "%s %lld is negative", what,
                      static_cast<long long>(count));
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

namespace {

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

}  // namespace

comm::Comm* interOf(MPI_Comm comm) {
  comm::Comm* c = comm::lookup(comm);
  return c && c->isInter() ? c : nullptr;
}

static int checkInterRoot(const char* func, MPI_Comm comm, const comm::Comm& c, int root) {
  if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < c.peerSize()))
    return MPI_SUCCESS;
  return raiseCommf(comm, func, MPI_ERR_ROOT,
                    "root %d is not MPI_ROOT, MPI_PROC_NULL or a rank of the remote group "
                    "(size %d)",
                    root, c.peerSize());
}

static int checkInterData(const char* func, MPI_Comm comm, const void* buf, int count,
                          MPI_Datatype type, const char* what) {
  CCMPI_TRY(notInPlace(func, comm, buf, what));
  return checkData(func, comm, buf, count, type, what);
}

static int checkInterOp(const char* func, MPI_Comm comm, MPI_Op op, MPI_Datatype type) {
  CCMPI_TRY(checkType(func, comm, type, "datatype"));
  return checkOp(func, comm, op, type);
}

int checkInterBcast(const char* func, MPI_Comm comm, const comm::Comm& c, const void* buffer,
                    int count, MPI_Datatype type, int root) {
  CCMPI_TRY(checkInterRoot(func, comm, c, root));
  if (root != MPI_PROC_NULL) CCMPI_TRY(checkInterData(func, comm, buffer, count, type, "buffer"));
  return MPI_SUCCESS;
}

int checkInterReduce(const char* func, MPI_Comm comm, const comm::Comm& c, const void* sendbuf,
                     const void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root) {
  CCMPI_TRY(checkInterRoot(func, comm, c, root));
  if (root == MPI_PROC_NULL) return MPI_SUCCESS;
  CCMPI_TRY(checkInterOp(func, comm, op, type));
  if (root == MPI_ROOT) return checkInterData(func, comm, recvbuf, count, type, "recvbuf");
  return checkInterData(func, comm, sendbuf, count, type, "sendbuf");
}

int checkInterAllreduce(const char* func, MPI_Comm comm, const void* sendbuf, const void* recvbuf,
                        int sendcount, int recvcount, MPI_Datatype type, MPI_Op op) {
  CCMPI_TRY(checkInterOp(func, comm, op, type));
  CCMPI_TRY(checkInterData(func, comm, sendbuf, sendcount, type, "sendbuf"));
  return checkInterData(func, comm, recvbuf, recvcount, type, "recvbuf");
}

int checkInterReduceScatter(const char* func, MPI_Comm comm, const comm::Comm& c,
                            const void* sendbuf, const void* recvbuf, const int recvcounts[],
                            MPI_Datatype type, MPI_Op op) {
  CCMPI_TRY(checkInterOp(func, comm, op, type));
  CCMPI_TRY(checkCounts(func, comm, c.size, recvcounts, recvcounts, "recv"));
  CCMPI_TRY(checkInterData(func, comm, sendbuf, 0, type, "sendbuf"));
  return checkInterData(func, comm, recvbuf, 0, type, "recvbuf");
}

int checkInterRooted(const char* func, MPI_Comm comm, const comm::Comm& c, int root,
                     const void* rootbuf, int rootcount, const int* rootcounts,
                     const int* rootdispls, MPI_Datatype roottype, const void* buf, int count,
                     MPI_Datatype type) {
  CCMPI_TRY(checkInterRoot(func, comm, c, root));
  if (root == MPI_ROOT) {
    if (rootcounts) {
      CCMPI_TRY(checkCounts(func, comm, c.peerSize(), rootcounts, rootdispls, "root"));
      return checkInterData(func, comm, rootbuf, 0, roottype, "root buffer");
    }
    return checkInterData(func, comm, rootbuf, rootcount, roottype, "root buffer");
  }
  if (root != MPI_PROC_NULL) return checkInterData(func, comm, buf, count, type, "buffer");
  return MPI_SUCCESS;
}

int checkInterAll(const char* func, MPI_Comm comm, const comm::Comm& c, const void* sendbuf,
                  int sendcount, const int* sendcounts, const int* sdispls, MPI_Datatype sendtype,
                  const void* recvbuf, int recvcount, const int* recvcounts, const int* rdispls,
                  MPI_Datatype recvtype) {
  if (sendcounts) {
    CCMPI_TRY(checkCounts(func, comm, c.peerSize(), sendcounts, sdispls, "send"));
    sendcount = 0;
  }
  if (recvcounts) {
    CCMPI_TRY(checkCounts(func, comm, c.peerSize(), recvcounts, rdispls, "recv"));
    recvcount = 0;
  }
  CCMPI_TRY(checkInterData(func, comm, sendbuf, sendcount, sendtype, "sendbuf"));
  return checkInterData(func, comm, recvbuf, recvcount, recvtype, "recvbuf");
}

int checkInterAlltoallw(const char* func, MPI_Comm comm, const comm::Comm& c, const void* sendbuf,
                        const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                        const int recvcounts[], const int rdispls[],
                        const MPI_Datatype recvtypes[]) {
  CCMPI_TRY(checkCounts(func, comm, c.peerSize(), sendcounts, sdispls, "send"));
  CCMPI_TRY(checkCounts(func, comm, c.peerSize(), recvcounts, rdispls, "recv"));
  if (sendbuf == MPI_IN_PLACE || !sendtypes || !recvtypes)
    return raiseCommf(comm, func, MPI_ERR_ARG,
                      "MPI_IN_PLACE or a NULL type array on an intercommunicator");
  for (int r = 0; r < c.peerSize(); ++r) {
    if (sendcounts[r] > 0) CCMPI_TRY(checkType(func, comm, sendtypes[r], "sendtype"));
    if (recvcounts[r] > 0) CCMPI_TRY(checkType(func, comm, recvtypes[r], "recvtype"));
  }
  return MPI_SUCCESS;
}

int checkCollComm(const char* func, MPI_Comm comm, comm::Comm** out) {
  comm::Comm* c = comm::lookup(comm);
  if (!c) return raiseCommf(comm, func, MPI_ERR_COMM, "invalid communicator handle 0x%x", comm);
  if (c->isInter())
    return raiseCommf(comm, func, MPI_ERR_COMM, "%s is not defined on intercommunicators", func);
  *out = c;
  return MPI_SUCCESS;
}

int checkRequestOut(const char* func, MPI_Comm comm, const MPI_Request* request) {
  if (!request) return raiseCommf(comm, func, MPI_ERR_REQUEST, "request pointer is NULL");
  return MPI_SUCCESS;
}

int checkInfo(const char* func, MPI_Comm comm, MPI_Info info) {
  if (info != MPI_INFO_NULL && !comm::lookupInfo(info))
    return raiseCommf(comm, func, MPI_ERR_INFO, "invalid info handle 0x%x", info);
  return MPI_SUCCESS;
}

int finish(const char* func, MPI_Comm comm, int rc) {
  return rc == MPI_SUCCESS ? MPI_SUCCESS : raiseComm(comm, func, rc);
}

int checkBcast(const char* func, MPI_Comm comm, const comm::Comm& c, const void* buffer, int count,
               MPI_Datatype type, int root) {
  CCMPI_TRY(checkRoot(func, comm, c, root));
  CCMPI_TRY(notInPlace(func, comm, buffer, "buffer"));
  return checkData(func, comm, buffer, count, type, "buffer");
}

int checkReduce(const char* func, MPI_Comm comm, const comm::Comm& c, const void* sendbuf,
                const void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root) {
  CCMPI_TRY(checkRoot(func, comm, c, root));
  const bool isRoot = c.rank == root;
  if (!isRoot) CCMPI_TRY(notInPlace(func, comm, sendbuf, "sendbuf on a non-root rank"));
  return checkReduction(func, comm, sendbuf, recvbuf, count, type, op, isRoot);
}

int checkAllreduce(const char* func, MPI_Comm comm, const void* sendbuf, const void* recvbuf,
                   int count, MPI_Datatype type, MPI_Op op) {
  return checkReduction(func, comm, sendbuf, recvbuf, count, type, op, true);
}

int checkReduceScatterBlock(const char* func, MPI_Comm comm, const void* sendbuf,
                            const void* recvbuf, int recvcount, MPI_Datatype type, MPI_Op op) {
  CCMPI_TRY(checkCount(func, comm, recvcount, "recvcount"));
  CCMPI_TRY(checkType(func, comm, type, "datatype"));
  CCMPI_TRY(checkOp(func, comm, op, type));
  CCMPI_TRY(notInPlace(func, comm, recvbuf, "recvbuf"));
  CCMPI_TRY(checkData(func, comm, recvbuf, recvcount, type, "recvbuf"));
  if (sendbuf != MPI_IN_PLACE) {
    CCMPI_TRY(checkData(func, comm, sendbuf, recvcount, type, "sendbuf"));
    CCMPI_TRY(notAliased(func, comm, sendbuf, recvbuf, recvcount));
  }
  return MPI_SUCCESS;
}

int checkReduceScatter(const char* func, MPI_Comm comm, const comm::Comm& c, const void* sendbuf,
                       const void* recvbuf, const int recvcounts[], MPI_Datatype type, MPI_Op op) {
  if (!recvcounts) return raiseCommf(comm, func, MPI_ERR_ARG, "recvcounts is NULL");
  int64_t total = 0;
  for (int i = 0; i < c.size; ++i) {
    if (recvcounts[i] < 0)
      return raiseCommf(comm, func, MPI_ERR_COUNT, "recvcounts[%d] = %d is negative", i,
                        recvcounts[i]);
    total += recvcounts[i];
  }
  CCMPI_TRY(checkType(func, comm, type, "datatype"));
  CCMPI_TRY(checkOp(func, comm, op, type));
  CCMPI_TRY(notInPlace(func, comm, recvbuf, "recvbuf"));
  CCMPI_TRY(checkData(func, comm, recvbuf, recvcounts[c.rank], type, "recvbuf"));
  if (sendbuf != MPI_IN_PLACE) {
    if (total > INT32_MAX)
      return raiseCommf(comm, func, MPI_ERR_COUNT, "the recvcounts add up to %lld",
                        static_cast<long long>(total));
    CCMPI_TRY(checkData(func, comm, sendbuf, static_cast<int>(total), type, "sendbuf"));
    CCMPI_TRY(notAliased(func, comm, sendbuf, recvbuf, total));
  }
  return MPI_SUCCESS;
}

int checkGather(const char* func, MPI_Comm comm, const comm::Comm& c, const void* sendbuf,
                int sendcount, MPI_Datatype sendtype, const void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root) {
  CCMPI_TRY(checkRoot(func, comm, c, root));
  const bool isRoot = c.rank == root;
  if (isRoot) {
    CCMPI_TRY(notInPlace(func, comm, recvbuf, "recvbuf"));
    CCMPI_TRY(checkData(func, comm, recvbuf, recvcount, recvtype, "recvbuf"));
  } else {
    CCMPI_TRY(notInPlace(func, comm, sendbuf, "sendbuf on a non-root rank"));
  }
  if (sendbuf != MPI_IN_PLACE) {
    CCMPI_TRY(checkData(func, comm, sendbuf, sendcount, sendtype, "sendbuf"));
    if (isRoot) CCMPI_TRY(notAliased(func, comm, sendbuf, recvbuf, sendcount));
  }
  return MPI_SUCCESS;
}

int checkGatherv(const char* func, MPI_Comm comm, const comm::Comm& c, const void* sendbuf,
                 int sendcount, MPI_Datatype sendtype, const int recvcounts[], const int displs[],
                 const void* recvbuf, MPI_Datatype recvtype, int root) {
  CCMPI_TRY(checkRoot(func, comm, c, root));
  const bool isRoot = c.rank == root;
  if (isRoot) {
    CCMPI_TRY(notInPlace(func, comm, recvbuf, "recvbuf"));
    CCMPI_TRY(checkCounts(func, comm, c.size, recvcounts, displs, "receive"));
    CCMPI_TRY(checkType(func, comm, recvtype, "recvtype"));
  } else {
    CCMPI_TRY(notInPlace(func, comm, sendbuf, "sendbuf on a non-root rank"));
  }
  if (sendbuf != MPI_IN_PLACE)
    CCMPI_TRY(checkData(func, comm, sendbuf, sendcount, sendtype, "sendbuf"));
  return MPI_SUCCESS;
}

int checkScatter(const char* func, MPI_Comm comm, const comm::Comm& c, const void* sendbuf,
                 int sendcount, MPI_Datatype sendtype, const void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root) {
  CCMPI_TRY(checkRoot(func, comm, c, root));
  const bool isRoot = c.rank == root;
  if (isRoot) {
    CCMPI_TRY(notInPlace(func, comm, sendbuf, "sendbuf"));
    CCMPI_TRY(checkData(func, comm, sendbuf, sendcount, sendtype, "sendbuf"));
  } else {
    CCMPI_TRY(notInPlace(func, comm, recvbuf, "recvbuf on a non-root rank"));
  }
  if (recvbuf != MPI_IN_PLACE) {
    CCMPI_TRY(checkData(func, comm, recvbuf, recvcount, recvtype, "recvbuf"));
    if (isRoot) CCMPI_TRY(notAliased(func, comm, sendbuf, recvbuf, recvcount));
  }
  return MPI_SUCCESS;
}

int checkScatterv(const char* func, MPI_Comm comm, const comm::Comm& c, const void* sendbuf,
                  const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                  const void* recvbuf, int recvcount, MPI_Datatype recvtype, int root) {
  CCMPI_TRY(checkRoot(func, comm, c, root));
  const bool isRoot = c.rank == root;
  if (isRoot) {
    CCMPI_TRY(notInPlace(func, comm, sendbuf, "sendbuf"));
    CCMPI_TRY(checkCounts(func, comm, c.size, sendcounts, displs, "send"));
    CCMPI_TRY(checkType(func, comm, sendtype, "sendtype"));
  } else {
    CCMPI_TRY(notInPlace(func, comm, recvbuf, "recvbuf on a non-root rank"));
  }
  if (recvbuf != MPI_IN_PLACE)
    CCMPI_TRY(checkData(func, comm, recvbuf, recvcount, recvtype, "recvbuf"));
  return MPI_SUCCESS;
}

int checkAllgather(const char* func, MPI_Comm comm, const void* sendbuf, int sendcount,
                   MPI_Datatype sendtype, const void* recvbuf, int recvcount,
                   MPI_Datatype recvtype) {
  CCMPI_TRY(notInPlace(func, comm, recvbuf, "recvbuf"));
  CCMPI_TRY(checkData(func, comm, recvbuf, recvcount, recvtype, "recvbuf"));
  if (sendbuf != MPI_IN_PLACE) {
    CCMPI_TRY(checkData(func, comm, sendbuf, sendcount, sendtype, "sendbuf"));
    CCMPI_TRY(notAliased(func, comm, sendbuf, recvbuf, sendcount));
  }
  return MPI_SUCCESS;
}

int checkAllgatherv(const char* func, MPI_Comm comm, const comm::Comm& c, const void* sendbuf,
                    int sendcount, MPI_Datatype sendtype, const void* recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype) {
  CCMPI_TRY(notInPlace(func, comm, recvbuf, "recvbuf"));
  CCMPI_TRY(checkCounts(func, comm, c.size, recvcounts, displs, "receive"));
  CCMPI_TRY(checkType(func, comm, recvtype, "recvtype"));
  if (sendbuf != MPI_IN_PLACE)
    CCMPI_TRY(checkData(func, comm, sendbuf, sendcount, sendtype, "sendbuf"));
  return MPI_SUCCESS;
}

int checkAlltoallv(const char* func, MPI_Comm comm, const comm::Comm& c, const void* sendbuf,
                   const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                   const void* recvbuf, const int recvcounts[], const int rdispls[],
                   MPI_Datatype recvtype) {
  CCMPI_TRY(notInPlace(func, comm, recvbuf, "recvbuf"));
  CCMPI_TRY(checkCounts(func, comm, c.size, recvcounts, rdispls, "receive"));
  CCMPI_TRY(checkType(func, comm, recvtype, "recvtype"));
  if (sendbuf != MPI_IN_PLACE) {
    CCMPI_TRY(checkCounts(func, comm, c.size, sendcounts, sdispls, "send"));
    CCMPI_TRY(checkType(func, comm, sendtype, "sendtype"));
  }
  return MPI_SUCCESS;
}

int checkAlltoallw(const char* func, MPI_Comm comm, const comm::Comm& c, const void* sendbuf,
                   const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                   const void* recvbuf, const int recvcounts[], const int rdispls[],
                   const MPI_Datatype recvtypes[], std::vector<MPI_Datatype>* sendCopy,
                   std::vector<MPI_Datatype>* recvCopy, const MPI_Datatype** stypes,
                   const MPI_Datatype** rtypes) {
  CCMPI_TRY(notInPlace(func, comm, recvbuf, "recvbuf"));
  CCMPI_TRY(checkCounts(func, comm, c.size, recvcounts, rdispls, "receive"));
  if (!recvtypes) return raiseCommf(comm, func, MPI_ERR_ARG, "recvtypes is NULL");
  for (int i = 0; i < c.size; ++i)
    if (recvcounts[i] > 0) CCMPI_TRY(checkType(func, comm, recvtypes[i], "recvtypes[i]"));
  if (sendbuf != MPI_IN_PLACE) {
    CCMPI_TRY(checkCounts(func, comm, c.size, sendcounts, sdispls, "send"));
    if (!sendtypes) return raiseCommf(comm, func, MPI_ERR_ARG, "sendtypes is NULL");
    for (int i = 0; i < c.size; ++i)
      if (sendcounts[i] > 0) CCMPI_TRY(checkType(func, comm, sendtypes[i], "sendtypes[i]"));
  }
  auto sanitize = [&](const int* counts, const MPI_Datatype* types,
                      std::vector<MPI_Datatype>* out) {
    out->assign(types, types + c.size);
    for (int i = 0; i < c.size; ++i)
      if (counts[i] == 0 && !datatype::lookup((*out)[i])) (*out)[i] = MPI_BYTE;
    return out->data();
  };
  *rtypes = sanitize(recvcounts, recvtypes, recvCopy);
  *stypes = sendbuf == MPI_IN_PLACE ? sendtypes : sanitize(sendcounts, sendtypes, sendCopy);
  return MPI_SUCCESS;
}

}  // namespace ccmpi::api
