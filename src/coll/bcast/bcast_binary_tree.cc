// Pipelined binary-tree broadcast. Ranks are renumbered relative to the root
// (v = r - root mod n); v's parent is (v-1)/2 and its children 2v+1 and 2v+2. The buffer
// moves in segments of CCMPI_BCAST_SEGMENT bytes (bcast_segments.cc); in round k a rank
// receives segment k from its parent while forwarding segment k-1 to both children.
// Cost: S + floor(log2 n) - 1 rounds for S segments; inner ranks send the buffer twice,
// every rank but the root receives it once. Long messages on mid-size communicators.
// Any size.
#include "coll/nb_algorithms.h"

namespace ccmpi::coll {

int bcastBinaryTreeSchedule(Plan& p) {
  p.algorithm = "binary_tree";
  Schedule& s = *p.schedule;
  const CollArgs& a = p.args;
  const int n = s.size();
  const int v = (s.rank() - a.root + n) % n;
  auto real = [&](int rel) { return (rel + a.root) % n; };
  const int parent = v == 0 ? -1 : real((v - 1) / 2);
  std::vector<int> children;
  for (int c = 2 * v + 1; c <= 2 * v + 2 && c < n; ++c) children.push_back(real(c));
  addBcastPipelined(s, a.recvbuf, a.recvcount, a.recvtype, parent, children);
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
