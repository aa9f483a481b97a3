// Recursive-doubling exclusive scan as a schedule. As the inclusive scan, each rank keeps
// `partial`, the reduction of its aligned group of 2^k ranks; recvbuf collects only what
// arrives from lower groups (the first piece is copied, later ones go on its left). Rank
// 0 never receives from below and its recvbuf is left untouched, as the standard allows.
// ceil(log2 n) rounds of the whole vector; keeps rank order for non-commutative ops.
#include "coll/nb_algorithms.h"
#include "op/op.h"

namespace ccmpi::coll {

int iexscanRecursiveDoubling(Plan& p) {
  p.algorithm = "recursive_doubling";
  Schedule& s = *p.schedule;
  const CollArgs& a = p.args;
  const int n = s.size(), r = s.rank();
  const int64_t count = a.recvcount;
  const MPI_Datatype type = a.recvtype;
  const bool commutative = op::isCommutative(a.op);
  const void* mine = a.sendbuf == MPI_IN_PLACE ? a.recvbuf : a.sendbuf;
  void* partial = s.temp(count, type);
  void* tmp = s.temp(count, type);
  s.copy(mine, count, type, partial, count, type);
  bool haveResult = false;
  for (int mask = 1; mask < n; mask <<= 1) {
    const int peer = r ^ mask;
    if (peer >= n) continue;
    s.send(partial, count, type, peer);
    s.recv(tmp, count, type, peer);
    s.endRound();
    if (peer < r) {
      s.reduce(a.op, tmp, partial, count, type);
      if (!haveResult) {
        s.copy(tmp, count, type, a.recvbuf, count, type);
        haveResult = true;
      } else {
        s.reduce(a.op, tmp, a.recvbuf, count, type);
      }
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
