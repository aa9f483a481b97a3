// Rabenseifner's allreduce (Thakur, Rabenseifner, Gropp 2005), for commutative ops: a
// recursive-halving reduce-scatter followed by a recursive-doubling allgather.
//  1. Fold to p = largest power of two <= n: among the first 2*(n-p) ranks each even
//     rank sends its vector to the odd rank above, which combines it; the p remaining
//     ranks get virtual ranks 0..p-1 (coll/reduce_scatter/reduce_scatter_recursive_halving.cc).
//  2. Recursive halving over p blocks of about count/p elements: afterwards virtual rank
//     v holds block v reduced over all ranks.
//  3. Recursive doubling allgather: for m = 1, 2, ..., p/2 swap the 2^k gathered blocks
//     with virtual rank v ^ m.
//  4. Unfold: the odd ranks of step 1 send the result to the even rank below.
// Cost: 2 log2 p rounds (+2 when folding); a rank sends about 2 x count elements instead
// of log2 n x count: the choice for long vectors. Works in recvbuf.
// Restrictions: commutative ops; declines when count < n.
#include <algorithm>
#include <vector>

#include "coll/algorithm.h"
#include "coll/nb_algorithms.h"
#include "coll/util.h"

namespace ccmpi::coll {

int allreduceRabenseifnerSchedule(Plan& p) {
  Schedule& s = *p.schedule;
  const CollArgs& a = p.args;
  const int n = s.size(), r = s.rank();
  const int64_t count = a.recvcount;
  const MPI_Datatype type = a.recvtype;
  if (count < n) return kDecline;
  p.algorithm = "rabenseifner";
  const datatype::Datatype& dt = typeOf(type);
  const int pow2 = floorPow2(n), rem = n - pow2;
  const int v = foldedRank(r, n);
  void* buf = a.recvbuf;
  if (a.sendbuf != MPI_IN_PLACE) s.copy(a.sendbuf, count, type, buf, count, type);
  if (v < 0) {
    addFold(s, buf, nullptr, nullptr, count, type, a.op);
    s.recv(buf, count, type, r + 1);
    s.endRound();
    return MPI_SUCCESS;
  }
  void* tmp = s.temp(count, type);
  addFold(s, buf, buf, tmp, count, type, a.op);
  std::vector<int64_t> bounds(pow2 + 1);
  for (int i = 0; i <= pow2; ++i)
    bounds[i] = i * (count / pow2) + std::min<int64_t>(i, count % pow2);
  addRecursiveHalving(s, buf, tmp, bounds, type, a.op);
  for (int m = 1; m < pow2; m <<= 1) {
    const int peer = unfoldedRank(v ^ m, n);
    const int mineFirst = v & ~(m - 1), theirFirst = (v ^ m) & ~(m - 1);
    s.send(elemAt(buf, bounds[mineFirst], dt), bounds[mineFirst + m] - bounds[mineFirst], type,
           peer);
    s.recv(elemAt(buf, bounds[theirFirst], dt), bounds[theirFirst + m] - bounds[theirFirst], type,
           peer);
    s.endRound();
  }
  if (r < 2 * rem) s.send(buf, count, type, r - 1);
  s.endRound();
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
