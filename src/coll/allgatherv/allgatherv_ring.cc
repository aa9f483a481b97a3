// Ring allgatherv: the ring allgather with block j of recvcounts[j] elements at displs[j]
// extents of recvtype. Every rank knows every block size, so empty blocks are simply
// sent as empty messages and the ring stays in lock step.
#include "coll/algorithms.h"
#include "coll/util.h"

namespace ccmpi::coll {

int allgathervRing(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const int* recvcounts, const int* displs, MPI_Datatype recvtype, comm::Comm& c) {
  const int n = c.size, r = c.rank;
  const datatype::Datatype& rt = typeOf(recvtype);
  auto block = [&](int i) { return elemAt(recvbuf, displs[i], rt); };
  if (sendbuf != MPI_IN_PLACE) {
    if (int rc = copyLocal(sendbuf, sendcount, sendtype, block(r), recvcounts[r], recvtype))
      return rc;
  }
  const int right = (r + 1) % n, left = (r - 1 + n) % n;
  for (int i = 0; i < n - 1; ++i) {
    const int out = (r - i + n) % n, in = (r - i - 1 + n) % n;
    if (int rc = p2p::sendrecv(block(out), recvcounts[out], recvtype, right, kTagAllgatherv,
                               block(in), recvcounts[in], recvtype, left, kTagAllgatherv, c,
                               MPI_STATUS_IGNORE, kCtx))
      return rc;
  }
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
