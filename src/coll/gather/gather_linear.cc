// Linear gather: the root posts one receive per rank straight into its block of recvbuf
// (all outstanding at once, so arrivals are taken in any order) and copies its own block
// locally; every other rank sends once. n-1 messages into the root.
#include <vector>

#include "coll/algorithms.h"
#include "coll/util.h"
#include "p2p/request.h"

namespace ccmpi::coll {

int gatherLinear(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int64_t recvcount, MPI_Datatype recvtype, int root, comm::Comm& c) {
  const int n = c.size, r = c.rank;
  if (r != root) {
    if (dataBytes(sendcount, sendtype) == 0) return MPI_SUCCESS;
    return p2p::send(sendbuf, sendcount, sendtype, root, kTagGather, c, kCtx);
  }
  const datatype::Datatype& rt = typeOf(recvtype);
  if (dataBytes(recvcount, recvtype) == 0) return MPI_SUCCESS;
  std::vector<p2p::Request*> reqs;
  reqs.reserve(n);
  int err = MPI_SUCCESS;
  for (int i = 0; i < n && !err; ++i) {
    if (i == root) continue;
    p2p::Request* q = nullptr;
    err = p2p::irecv(elemAt(recvbuf, i * recvcount, rt), recvcount, recvtype, i, kTagGather, c,
                     kCtx, &q);
    if (q) reqs.push_back(q);
  }
  if (!err && sendbuf != MPI_IN_PLACE)
    err = copyLocal(sendbuf, sendcount, sendtype, elemAt(recvbuf, root * recvcount, rt), recvcount,
                    recvtype);
  const int werr = p2p::waitAll(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
  return err ? err : werr;
}

}  // namespace ccmpi::coll
