// Tree barrier: arrival gathered to rank 0 up a binomial tree, release sent back down it.
// Rank v's children are v + 2^k for every 2^k below v's lowest set bit, its parent v minus
// that bit. Round 1: wait for an empty message from every child. Round 2: tell the parent
// and wait for its release (the root skips this). Round 3: release the children.
// Cost: 2 ceil(log2 n) hops, 2(n-1) messages in all (dissemination: n log2 n). Any size.
#include "coll/nb_algorithms.h"

namespace ccmpi::coll {

int barrierTreeSchedule(Plan& p) {
  p.algorithm = "tree";
  Schedule& s = *p.schedule;
  const int n = s.size(), v = s.rank();
  int low = 1;
  while (low < n && !(v & low)) low <<= 1;  // v's lowest set bit (>= n at the root)
  auto eachChild = [&](auto fn) {
    for (int m = low >> 1; m > 0; m >>= 1)
      if (v + m < n) fn(v + m);
  };
  eachChild([&](int c) { s.recv(nullptr, 0, MPI_BYTE, c); });
  s.endRound();
  if (v != 0) {
    s.send(nullptr, 0, MPI_BYTE, v - low);
    s.recv(nullptr, 0, MPI_BYTE, v - low);
    s.endRound();
  }
  eachChild([&](int c) { s.send(nullptr, 0, MPI_BYTE, c); });
  s.endRound();
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
