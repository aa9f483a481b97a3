// Ring allreduce, for commutative ops: the vector is cut into n blocks of about count/n
// elements (uneven counts: the first count % n blocks have one more element).
//  1. Reduce-scatter ring: in step k = 0..n-2 rank r sends block r-k to r+1 and receives
//     block r-k-1 from r-1, which it combines into its own copy before sending it on in
//     the next step. Afterwards rank r holds block r+1 reduced over all ranks.
//  2. Allgather ring: in step k rank r passes block r+1-k to r+1 and receives block r-k
//     from r-1 straight into recvbuf.
// Cost: 2(n-1) rounds; a rank sends 2(n-1)/n x count elements (bandwidth-optimal), one
// block-sized temporary. Works in recvbuf.
// Restrictions: commutative ops (each block is combined in ring order); declines when
// count < n.
#include <algorithm>
#include <vector>

#include "coll/algorithm.h"
#include "coll/nb_algorithms.h"
#include "coll/util.h"

namespace ccmpi::coll {

int allreduceRingSchedule(Plan& p) {
  Schedule& s = *p.schedule;
  const CollArgs& a = p.args;
  const int n = s.size(), r = s.rank();
  const int64_t count = a.recvcount;
  const MPI_Datatype type = a.recvtype;
  if (count < n) return kDecline;
  p.algorithm = "ring";
  const datatype::Datatype& dt = typeOf(type);
  std::vector<int64_t> bounds(n + 1);
  for (int i = 0; i <= n; ++i) bounds[i] = i * (count / n) + std::min<int64_t>(i, count % n);
  auto at = [&](int b) { return elemAt(a.recvbuf, bounds[b], dt); };
  auto len = [&](int b) { return bounds[b + 1] - bounds[b]; };
  const int next = (r + 1) % n, prev = (r - 1 + n) % n;
  if (a.sendbuf != MPI_IN_PLACE) s.copy(a.sendbuf, count, type, a.recvbuf, count, type);
  void* tmp = s.temp(count / n + 1, type);
  int got = -1;  // the block received in the previous step, still to be combined
  for (int k = 0; k < n - 1; ++k) {
    if (got >= 0) s.reduce(a.op, tmp, at(got), len(got), type);
    const int out = (r - k + n) % n;
    got = (r - k - 1 + n) % n;
    s.send(at(out), len(out), type, next);
    s.recv(tmp, len(got), type, prev);
    s.endRound();
  }
  s.reduce(a.op, tmp, at(got), len(got), type);
  for (int k = 0; k < n - 1; ++k) {
    const int out = (r + 1 - k + n) % n, in = (r - k + n) % n;
    s.send(at(out), len(out), type, next);
    s.recv(at(in), len(in), type, prev);
    s.endRound();
  }
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
