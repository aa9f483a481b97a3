// Linear scatterv: as linear scatter, with block i of sendcounts[i] elements at displs[i]
// extents of sendtype. Empty blocks move no message (both sides know).
#include <vector>

#include "coll/algorithms.h"
#include "coll/util.h"
#include "p2p/request.h"

namespace ccmpi::coll {

int scattervLinear(const void* sendbuf, const int* sendcounts, const int* displs,
                   MPI_Datatype sendtype, void* recvbuf, int64_t recvcount, MPI_Datatype recvtype,
                   int root, comm::Comm& c) {
  const int n = c.size, r = c.rank;
  if (r != root) {
    if (dataBytes(recvcount, recvtype) == 0) return MPI_SUCCESS;
    return p2p::recv(recvbuf, recvcount, recvtype, root, kTagScatterv, c, MPI_STATUS_IGNORE, kCtx);
  }
  const datatype::Datatype& st = typeOf(sendtype);
  std::vector<p2p::Request*> reqs;
  reqs.reserve(n);
  int err = MPI_SUCCESS;
  for (int i = 0; i < n && !err; ++i) {
    if (i == root || dataBytes(sendcounts[i], sendtype) == 0) continue;
    p2p::Request* q = nullptr;
    err = p2p::isend(elemAt(sendbuf, displs[i], st), sendcounts[i], sendtype, i, kTagScatterv, c,
                     kCtx, p2p::SendMode::kStandard, &q);
    if (q) reqs.push_back(q);
  }
  if (!err && recvbuf != MPI_IN_PLACE)
    err = copyLocal(elemAt(sendbuf, displs[root], st), sendcounts[root], sendtype, recvbuf,
                    recvcount, recvtype);
  const int werr = p2p::waitAll(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
  return err ? err : werr;
}

}  // namespace ccmpi::coll
