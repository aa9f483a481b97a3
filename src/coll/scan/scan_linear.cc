// Linear (chain) inclusive scan: rank r waits for the prefix x_0 op ... op x_{r-1} from
// r - 1, computes prefix op x_r into recvbuf and passes it to r + 1. n-1 sequential
// messages; the reference algorithm for testing, and fine for very small n.
#include "coll/algorithms.h"
#include "coll/util.h"
#include "op/op.h"

namespace ccmpi::coll {

int scanLinear(const void* sendbuf, void* recvbuf, int64_t count, MPI_Datatype type, MPI_Op op,
               comm::Comm& c) {
  const int n = c.size, r = c.rank;
  if (sendbuf != MPI_IN_PLACE) {
    if (int rc = copyLocal(sendbuf, count, type, recvbuf, count, type)) return rc;
  }
  if (r > 0) {
    TempBuffer prefix;
    if (int rc = prefix.alloc(count, typeOf(type))) return rc;
    if (int rc = p2p::recv(prefix.get(), count, type, r - 1, kTagScan, c, MPI_STATUS_IGNORE, kCtx))
      return rc;
    if (int rc = op::apply(op, prefix.get(), recvbuf, count, type)) return rc;
  }
  if (r < n - 1) return p2p::send(recvbuf, count, type, r + 1, kTagScan, c, kCtx);
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
