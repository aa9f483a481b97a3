// Linear gatherv: as linear gather, with block i of recvcounts[i] elements at
// displs[i] extents of recvtype. Empty blocks move no message (both sides know).
#include <vector>

#include "coll/algorithms.h"
#include "coll/util.h"
#include "p2p/request.h"

namespace ccmpi::coll {

int gathervLinear(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype, void* recvbuf,
                  const int* recvcounts, const int* displs, MPI_Datatype recvtype, int root,
                  comm::Comm& c) {
  const int n = c.size, r = c.rank;
  if (r != root) {
    if (dataBytes(sendcount, sendtype) == 0) return MPI_SUCCESS;
    return p2p::send(sendbuf, sendcount, sendtype, root, kTagGatherv, c, kCtx);
  }
  const datatype::Datatype& rt = typeOf(recvtype);
  std::vector<p2p::Request*> reqs;
  reqs.reserve(n);
  int err = MPI_SUCCESS;
  for (int i = 0; i < n && !err; ++i) {
    if (i == root || dataBytes(recvcounts[i], recvtype) == 0) continue;
    p2p::Request* q = nullptr;
    err = p2p::irecv(elemAt(recvbuf, displs[i], rt), recvcounts[i], recvtype, i, kTagGatherv, c,
                     kCtx, &q);
    if (q) reqs.push_back(q);
  }
  if (!err && sendbuf != MPI_IN_PLACE)
    err = copyLocal(sendbuf, sendcount, sendtype, elemAt(recvbuf, displs[root], rt),
                    recvcounts[root], recvtype);
  const int werr = p2p::waitAll(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
  return err ? err : werr;
}

}  // namespace ccmpi::coll
