// Recursive-doubling allreduce as a schedule, with the fix-up for sizes that are not a
// power of two (Thakur, Rabenseifner, Gropp 2005); p = largest power of two <= n,
// rem = n - p.
//  1. Fold: among the first 2*rem ranks each even rank sends its vector to the odd rank
//     above, which combines (lower rank on the left); the even ranks sit out.
//  2. log2(p) rounds: swap the partial result with new rank (new ^ mask) and combine,
//     the lower range on the left, so rank order holds for non-commutative ops.
//  3. Unfold: the odd ranks of step 1 send the result to the even rank below.
// Each combine runs at the start of the round after its exchange.
#include "coll/nb_algorithms.h"
#include "op/op.h"

namespace ccmpi::coll {

int iallreduceRecursiveDoubling(Plan& p) {
  p.algorithm = "recursive_doubling";
  Schedule& s = *p.schedule;
  const CollArgs& a = p.args;
  void* buf = a.recvbuf;
  const int64_t count = a.recvcount;
  const MPI_Datatype type = a.recvtype;
  const int n = s.size(), r = s.rank();
  const bool commutative = op::isCommutative(a.op);
  if (a.sendbuf != MPI_IN_PLACE) s.copy(a.sendbuf, count, type, buf, count, type);
  void* tmp = s.temp(count, type);
  const int pow2 = floorPow2(n), rem = n - pow2;

  int newRank;
  if (r < 2 * rem) {
    if (r % 2 == 0) {
      s.send(buf, count, type, r + 1);
      newRank = -1;
    } else {
      s.recv(tmp, count, type, r - 1);
      s.endRound();
      s.reduce(a.op, tmp, buf, count, type);
      newRank = r / 2;
    }
  } else {
    newRank = r - rem;
  }
  if (newRank >= 0) {
    for (int mask = 1; mask < pow2; mask <<= 1) {
      const int newPeer = newRank ^ mask;
      const int peer = newPeer < rem ? newPeer * 2 + 1 : newPeer + rem;
      s.send(buf, count, type, peer);
      s.recv(tmp, count, type, peer);
      s.endRound();
      if (peer < r || commutative) {
        s.reduce(a.op, tmp, buf, count, type);
      } else {
        s.reduce(a.op, buf, tmp, count, type);
        s.copy(tmp, count, type, buf, count, type);
      }
    }
  }
  s.endRound();
  if (r < 2 * rem) {
    if (r % 2 == 1)
      s.send(buf, count, type, r - 1);
    else
      s.recv(buf, count, type, r + 1);
  }
  s.endRound();
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
