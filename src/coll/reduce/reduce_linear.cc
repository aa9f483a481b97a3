// Linear reduction as a schedule, for any op. Every other rank sends its vector to the
// root in one round; the root posts all n-1 receives at once, each into its own
// temporary, and then combines the vectors in rank order, from the highest rank down
// (acc := x_i op acc), so non-commutative ops get x_0 op x_1 op ... op x_{n-1}.
// Cost: 1 round; the root receives (n-1) x count elements and holds n-1 temporaries of
// count elements (the temporary of rank n-1 doubles as the accumulator). No restrictions.
#include <vector>

#include "coll/nb_algorithms.h"

namespace ccmpi::coll {

int reduceLinearSchedule(Plan& p) {
  p.algorithm = "linear";
  Schedule& s = *p.schedule;
  const CollArgs& a = p.args;
  const int n = s.size(), r = s.rank(), root = a.root;
  const int64_t count = a.recvcount;
  const MPI_Datatype type = a.recvtype;
  if (r != root) {
    s.send(a.sendbuf, count, type, root);
    s.endRound();
    return MPI_SUCCESS;
  }
  const void* mine = a.sendbuf == MPI_IN_PLACE ? a.recvbuf : a.sendbuf;
  std::vector<const void*> x(n);
  for (int i = 0; i < n; ++i) {
    if (i == root) {
      x[i] = mine;
      continue;
    }
    void* t = s.temp(count, type);
    s.recv(t, count, type, i);
    x[i] = t;
  }
  s.endRound();
  // The accumulator: x_{n-1}'s temporary, or recvbuf when the root is rank n-1 (then its
  // input is copied there first; in place it is there already). Either way the root's own
  // input is only read, never overwritten before it is used.
  void* acc;
  if (root == n - 1) {
    if (a.sendbuf != MPI_IN_PLACE) s.copy(mine, count, type, a.recvbuf, count, type);
    acc = a.recvbuf;
  } else {
    acc = const_cast<void*>(x[n - 1]);
  }
  for (int i = n - 2; i >= 0; --i) s.reduce(a.op, x[i], acc, count, type);
  if (acc != a.recvbuf) s.copy(acc, count, type, a.recvbuf, count, type);
  s.endRound();
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
