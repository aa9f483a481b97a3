// Linear scatter: the root starts one send per rank from that rank's block of sendbuf
// (all outstanding at once) and copies its own block locally; every other rank receives
// once. n-1 messages out of the root.
#include <vector>

#include "coll/algorithms.h"
#include "coll/util.h"
#include "p2p/request.h"

namespace ccmpi::coll {

int scatterLinear(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int64_t recvcount, MPI_Datatype recvtype, int root, comm::Comm& c) {
  const int n = c.size, r = c.rank;
  if (r != root) {
    if (dataBytes(recvcount, recvtype) == 0) return MPI_SUCCESS;
    return p2p::recv(recvbuf, recvcount, recvtype, root, kTagScatter, c, MPI_STATUS_IGNORE, kCtx);
  }
  const datatype::Datatype& st = typeOf(sendtype);
  if (dataBytes(sendcount, sendtype) == 0) return MPI_SUCCESS;
  std::vector<p2p::Request*> reqs;
  reqs.reserve(n);
  int err = MPI_SUCCESS;
  for (int i = 0; i < n && !err; ++i) {
    if (i == root) continue;
    p2p::Request* q = nullptr;
    err = p2p::isend(elemAt(sendbuf, i * sendcount, st), sendcount, sendtype, i, kTagScatter, c,
                     kCtx, p2p::SendMode::kStandard, &q);
    if (q) reqs.push_back(q);
  }
  if (!err && recvbuf != MPI_IN_PLACE)
    err = copyLocal(elemAt(sendbuf, root * sendcount, st), sendcount, sendtype, recvbuf, recvcount,
                    recvtype);
  const int werr = p2p::waitAll(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
  return err ? err : werr;
}

}  // namespace ccmpi::coll
