// Recursive-doubling inclusive scan as a schedule. Each rank keeps `partial`, the
// reduction of its aligned group of 2^k ranks, and recvbuf, the reduction from the
// group's start up to itself. Round k swaps partial with rank r ^ 2^k (if it exists);
// at the start of the next round the lower group's partial goes on the left of both
// results on the higher side, and on the right of partial on the lower side, so rank
// order holds for non-commutative ops. ceil(log2 n) rounds of the whole vector.
#include "coll/nb_algorithms.h"
#include "op/op.h"

namespace ccmpi::coll {

int iscanRecursiveDoubling(Plan& p) {
  p.algorithm = "recursive_doubling";
  Schedule& s = *p.schedule;
  const CollArgs& a = p.args;
  const int n = s.size(), r = s.rank();
  const int64_t count = a.recvcount;
  const MPI_Datatype type = a.recvtype;
  const bool commutative = op::isCommutative(a.op);
  if (a.sendbuf != MPI_IN_PLACE) s.copy(a.sendbuf, count, type, a.recvbuf, count, type);
  void* partial = s.temp(count, type);
  void* tmp = s.temp(count, type);
  s.copy(a.recvbuf, count, type, partial, count, type);
  for (int mask = 1; mask < n; mask <<= 1) {
    const int peer = r ^ mask;
    if (peer >= n) continue;
    s.send(partial, count, type, peer);
    s.recv(tmp, count, type, peer);
    s.endRound();
    if (peer < r) {
      s.reduce(a.op, tmp, partial, count, type);
      s.reduce(a.op, tmp, a.recvbuf, count, type);
    } else if (commutative) {
      s.reduce(a.op, tmp, partial, count, type);
    } else {
      s.reduce(a.op, partial, tmp, count, type);
      s.copy(tmp, count, type, partial, count, type);
    }
  }
  s.endRound();
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
