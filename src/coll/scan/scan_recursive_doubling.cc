// Recursive-doubling inclusive scan. Each rank keeps `partial`, the reduction of its
// aligned group of 2^k ranks, and recvbuf, the reduction of ranks from the group's start
// up to itself. In round k it swaps partial with rank r ^ 2^k (if it exists); the lower
// group's partial goes on the left of both results on the higher side, and on the right
// of partial on the lower side, so rank order is kept for non-commutative ops.
// ceil(log2 n) rounds of the whole vector.
#include "coll/algorithms.h"
#include "coll/util.h"
#include "op/op.h"

namespace ccmpi::coll {

int scanRecursiveDoubling(const void* sendbuf, void* recvbuf, int64_t count, MPI_Datatype type,
                          MPI_Op op, comm::Comm& c) {
  const int n = c.size, r = c.rank;
  const datatype::Datatype& dt = typeOf(type);
  const bool commutative = op::isCommutative(op);
  if (sendbuf != MPI_IN_PLACE) {
    if (int rc = copyLocal(sendbuf, count, type, recvbuf, count, type)) return rc;
  }
  TempBuffer partial, tmp;
  if (int rc = partial.alloc(count, dt)) return rc;
  if (int rc = tmp.alloc(count, dt)) return rc;
  if (int rc = copyLocal(recvbuf, count, type, partial.get(), count, type)) return rc;
  for (int mask = 1; mask < n; mask <<= 1) {
    const int peer = r ^ mask;
    if (peer >= n) continue;
    if (int rc = p2p::sendrecv(partial.get(), count, type, peer, kTagScan, tmp.get(), count, type,
                               peer, kTagScan, c, MPI_STATUS_IGNORE, kCtx))
      return rc;
    if (peer < r) {
      if (int rc = op::apply(op, tmp.get(), partial.get(), count, type)) return rc;
      if (int rc = op::apply(op, tmp.get(), recvbuf, count, type)) return rc;
    } else if (commutative) {
      if (int rc = op::apply(op, tmp.get(), partial.get(), count, type)) return rc;
    } else {
      if (int rc = op::apply(op, partial.get(), tmp.get(), count, type)) return rc;
      if (int rc = copyLocal(tmp.get(), count, type, partial.get(), count, type)) return rc;
    }
  }
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
