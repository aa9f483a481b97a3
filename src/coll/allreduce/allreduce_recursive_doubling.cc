// Recursive-doubling allreduce with the fix-up for sizes that are not a power of two
// (Thakur, Rabenseifner, Gropp 2005). Let p = the largest power of two <= n, rem = n - p.
//  1. Fold: among the first 2*rem ranks, each even rank sends its vector to the odd rank
//     above it, which combines the two and stays; the even ranks sit out. The p remaining
//     ranks get new ranks 0..p-1, in the original order.
//  2. Exchange: for mask = 1, 2, ..., p/2 each remaining rank swaps its partial result
//     with new rank (new ^ mask) and combines. Partners always hold contiguous, adjacent
//     ranges of ranks, so combining as lower-range op higher-range keeps rank order and
//     the algorithm is correct for non-commutative ops too.
//  3. Unfold: the odd ranks of step 1 send the result to the even rank below.
// log2(p) + 2 rounds, each with the whole vector: the choice for short vectors.
#include "coll/algorithms.h"
#include "coll/util.h"
#include "op/op.h"

namespace ccmpi::coll {

int allreduceRecursiveDoubling(const void* sendbuf, void* recvbuf, int64_t count, MPI_Datatype type,
                               MPI_Op op, comm::Comm& c) {
  const int n = c.size, r = c.rank;
  const datatype::Datatype& dt = typeOf(type);
  const bool commutative = op::isCommutative(op);
  if (sendbuf != MPI_IN_PLACE) {
    if (int rc = copyLocal(sendbuf, count, type, recvbuf, count, type)) return rc;
  }
  TempBuffer tmp;
  if (int rc = tmp.alloc(count, dt)) return rc;
  const int p = floorPow2(n), rem = n - p;

  int newRank;
  if (r < 2 * rem) {
    if (r % 2 == 0) {
      if (int rc = p2p::send(recvbuf, count, type, r + 1, kTagAllreduce, c, kCtx)) return rc;
      newRank = -1;
    } else {
      if (int rc =
              p2p::recv(tmp.get(), count, type, r - 1, kTagAllreduce, c, MPI_STATUS_IGNORE, kCtx))
        return rc;
      if (int rc = op::apply(op, tmp.get(), recvbuf, count, type)) return rc;
      newRank = r / 2;
    }
  } else {
    newRank = r - rem;
  }

  if (newRank >= 0) {
    for (int mask = 1; mask < p; mask <<= 1) {
      const int newPeer = newRank ^ mask;
      const int peer = newPeer < rem ? newPeer * 2 + 1 : newPeer + rem;
      if (int rc = p2p::sendrecv(recvbuf, count, type, peer, kTagAllreduce, tmp.get(), count, type,
                                 peer, kTagAllreduce, c, MPI_STATUS_IGNORE, kCtx))
        return rc;
      if (peer < r || commutative) {
        if (int rc = op::apply(op, tmp.get(), recvbuf, count, type)) return rc;
      } else {
        if (int rc = op::apply(op, recvbuf, tmp.get(), count, type)) return rc;
        if (int rc = copyLocal(tmp.get(), count, type, recvbuf, count, type)) return rc;
      }
    }
  }

  if (r < 2 * rem) {
    if (r % 2 == 1) return p2p::send(recvbuf, count, type, r - 1, kTagAllreduce, c, kCtx);
    return p2p::recv(recvbuf, count, type, r + 1, kTagAllreduce, c, MPI_STATUS_IGNORE, kCtx);
  }
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
