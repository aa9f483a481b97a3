// Recursive-doubling exclusive scan. As the inclusive scan, each rank keeps `partial`,
// the reduction of its aligned group of 2^k ranks; recvbuf collects only what arrives
// from lower groups (the first such piece is copied, later ones go on its left). Rank 0
// never receives from below and its recvbuf is left untouched, as the standard allows.
// ceil(log2 n) rounds of the whole vector; keeps rank order for non-commutative ops.
#include "coll/algorithms.h"
#include "coll/util.h"
#include "op/op.h"

namespace ccmpi::coll {

int exscanRecursiveDoubling(const void* sendbuf, void* recvbuf, int64_t count, MPI_Datatype type,
                            MPI_Op op, comm::Comm& c) {
  const int n = c.size, r = c.rank;
  const datatype::Datatype& dt = typeOf(type);
  const bool commutative = op::isCommutative(op);
  const void* mine = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  TempBuffer partial, tmp;
  if (int rc = partial.alloc(count, dt)) return rc;
  if (int rc = tmp.alloc(count, dt)) return rc;
  if (int rc = copyLocal(mine, count, type, partial.get(), count, type)) return rc;
  bool haveResult = false;
  for (int mask = 1; mask < n; mask <<= 1) {
    const int peer = r ^ mask;
    if (peer >= n) continue;
    if (int rc = p2p::sendrecv(partial.get(), count, type, peer, kTagExscan, tmp.get(), count, type,
                               peer, kTagExscan, c, MPI_STATUS_IGNORE, kCtx))
      return rc;
    if (peer < r) {
      if (int rc = op::apply(op, tmp.get(), partial.get(), count, type)) return rc;
      if (!haveResult) {
        if (int rc = copyLocal(tmp.get(), count, type, recvbuf, count, type)) return rc;
        haveResult = true;
      } else {
        if (int rc = op::apply(op, tmp.get(), recvbuf, count, type)) return rc;
      }
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
