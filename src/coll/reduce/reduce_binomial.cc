// Binomial-tree reduction for commutative ops. Ranks are renumbered relative to the root
// (v = r - root mod n). In round k (mask 2^k) a rank whose bit k is set sends its partial
// result to v - 2^k and is done; otherwise it receives the partial result of v + 2^k (if
// that rank exists) and folds it into its own. After ceil(log2 n) rounds the root holds
// the result. Partial results combine ranks in rotated order, hence commutative only.
#include "coll/algorithms.h"
#include "coll/util.h"
#include "op/op.h"

namespace ccmpi::coll {

int reduceBinomial(const void* sendbuf, void* recvbuf, int64_t count, MPI_Datatype type, MPI_Op op,
                   int root, comm::Comm& c) {
  const int n = c.size;
  const int v = (c.rank - root + n) % n;
  const datatype::Datatype& dt = typeOf(type);
  const void* mine = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  // The accumulator: recvbuf at the root, a temporary elsewhere once something arrives;
  // until then a leaf forwards its own input untouched.
  TempBuffer accTmp, inTmp;
  void* acc = nullptr;
  if (c.rank == root) {
    acc = recvbuf;
    if (sendbuf != MPI_IN_PLACE) {
      if (int rc = copyLocal(sendbuf, count, type, recvbuf, count, type)) return rc;
    }
  }
  for (int mask = 1; mask < n; mask <<= 1) {
    if (v & mask) {
      const int parent = (v - mask + root) % n;
      return p2p::send(acc ? acc : mine, count, type, parent, kTagReduce, c, kCtx);
    }
    if (v + mask >= n) continue;
    const int child = (v + mask + root) % n;
    if (inTmp.empty()) {
      if (int rc = inTmp.alloc(count, dt)) return rc;
    }
    if (int rc = p2p::recv(inTmp.get(), count, type, child, kTagReduce, c, MPI_STATUS_IGNORE, kCtx))
      return rc;
    if (!acc) {
      if (int rc = accTmp.alloc(count, dt)) return rc;
      if (int rc = copyLocal(mine, count, type, accTmp.get(), count, type)) return rc;
      acc = accTmp.get();
    }
    if (int rc = op::apply(op, inTmp.get(), acc, count, type)) return rc;
  }
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
