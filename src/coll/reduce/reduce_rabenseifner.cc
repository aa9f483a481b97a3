// Rabenseifner's reduction (Thakur, Rabenseifner, Gropp 2005), for commutative ops: a
// recursive-halving reduce-scatter followed by a binomial gather of the reduced blocks.
//  1. Fold to p = largest power of two <= n: among the first 2*(n-p) ranks each even
//     rank sends its vector to the odd rank above, which combines it; the p remaining
//     ranks get virtual ranks 0..p-1 (coll/reduce_scatter/reduce_scatter_recursive_halving.cc).
//  2. Recursive halving over p blocks of about count/p elements: afterwards virtual rank
//     v holds block v reduced over all ranks.
//  3. Binomial gather to the root's virtual rank (the root's, or its odd partner's when
//     the root sat out): relative to it (u = v ^ vroot) a rank with bit m of u set as its
//     lowest set bit sends its 2^m gathered blocks to v ^ m after receiving the blocks of
//     its subtree, all posted at once. A root that sat out receives the result from its
//     partner.
// Cost: log2 p halving rounds + log2 p gather levels (+2 for folding); a rank sends about
// 2 x count elements instead of log2 n x count. The root uses recvbuf as its work vector.
// Restrictions: commutative ops; declines when count < n (blocks would be empty).
#include <algorithm>
#include <vector>

#include "coll/algorithm.h"
#include "coll/nb_algorithms.h"
#include "coll/util.h"

namespace ccmpi::coll {

int reduceRabenseifnerSchedule(Plan& p) {
  Schedule& s = *p.schedule;
  const CollArgs& a = p.args;
  const int n = s.size(), r = s.rank(), root = a.root;
  const int64_t count = a.recvcount;
  const MPI_Datatype type = a.recvtype;
  if (count < n) return kDecline;
  p.algorithm = "rabenseifner";
  const datatype::Datatype& dt = typeOf(type);
  const int pow2 = floorPow2(n);
  const int v = foldedRank(r, n);
  const int vroot = foldedRank(root, n) >= 0 ? foldedRank(root, n) : foldedRank(root + 1, n);
  const void* mine = a.sendbuf == MPI_IN_PLACE ? a.recvbuf : a.sendbuf;
  if (v < 0) {
    addFold(s, mine, nullptr, nullptr, count, type, a.op);
    if (r == root) {
      s.recv(a.recvbuf, count, type, root + 1);
      s.endRound();
    }
    return MPI_SUCCESS;
  }
  void* work = r == root ? a.recvbuf : s.temp(count, type);
  void* tmp = s.temp(count, type);
  if (work != mine) s.copy(mine, count, type, work, count, type);
  addFold(s, mine, work, tmp, count, type, a.op);
  std::vector<int64_t> bounds(pow2 + 1);
  for (int i = 0; i <= pow2; ++i)
    bounds[i] = i * (count / pow2) + std::min<int64_t>(i, count % pow2);
  addRecursiveHalving(s, work, tmp, bounds, type, a.op);

  // Gather: receive the subtree's blocks (levels below u's lowest set bit), then send.
  const int u = v ^ vroot;
  int m = 1;
  for (; m < pow2 && !(u & m); m <<= 1) {
    const int first = (v ^ m) & ~(m - 1);
    s.recv(elemAt(work, bounds[first], dt), bounds[first + m] - bounds[first], type,
           unfoldedRank(v ^ m, n));
  }
  s.endRound();
  if (u != 0) {
    const int first = v & ~(m - 1);
    s.send(elemAt(work, bounds[first], dt), bounds[first + m] - bounds[first], type,
           unfoldedRank(v ^ m, n));
  } else if (r != root) {
    s.send(work, count, type, root);
  }
  s.endRound();
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
