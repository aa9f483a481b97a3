// Rank-ordered binomial reduction, correct for non-commutative ops. The tree is rooted at
// rank 0 without renumbering, so a rank r that receives in round k (mask 2^k) holds
// x_r op ... op x_{r+2^k-1} and receives x_{r+2^k} op ... from r + 2^k: it computes
// mine op theirs (the lower ranks on the left, as the standard requires). Rank 0 ends with
// x_0 op ... op x_{n-1} and sends it to the root if the root is another rank.
#include <utility>

#include "coll/algorithms.h"
#include "coll/util.h"
#include "op/op.h"

namespace ccmpi::coll {

int reduceOrderedBinomial(const void* sendbuf, void* recvbuf, int64_t count, MPI_Datatype type,
                          MPI_Op op, int root, comm::Comm& c) {
  const int n = c.size, r = c.rank;
  const datatype::Datatype& dt = typeOf(type);
  const bool inPlace = sendbuf == MPI_IN_PLACE;
  const void* mine = inPlace ? recvbuf : sendbuf;
  // acc is the partial result (first the input itself); spare receives the next operand
  // and, after inoutvec = acc op spare, becomes the accumulator.
  TempBuffer bufA, bufB;
  const void* acc = mine;
  void* spare = nullptr;
  for (int mask = 1; mask < n; mask <<= 1) {
    if (r & mask) {
      if (int rc = p2p::send(acc, count, type, r - mask, kTagReduce, c, kCtx)) return rc;
      acc = nullptr;
      break;
    }
    if (r + mask >= n) continue;
    if (!spare) {
      TempBuffer& b = bufA.empty() ? bufA : bufB;
      if (int rc = b.alloc(count, dt)) return rc;
      spare = b.get();
    }
    if (int rc = p2p::recv(spare, count, type, r + mask, kTagReduce, c, MPI_STATUS_IGNORE, kCtx))
      return rc;
    if (int rc = op::apply(op, acc, spare, count, type)) return rc;
    // The old accumulator is reusable unless it is the caller's input.
    void* old = acc == mine ? nullptr : const_cast<void*>(acc);
    acc = spare;
    spare = old;
  }
  if (r == 0) {
    if (root == 0) {
      if (acc != recvbuf) return copyLocal(acc, count, type, recvbuf, count, type);
      return MPI_SUCCESS;
    }
    return p2p::send(acc, count, type, root, kTagReduce, c, kCtx);
  }
  if (r == root) {
    return p2p::recv(recvbuf, count, type, 0, kTagReduce, c, MPI_STATUS_IGNORE, kCtx);
  }
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
