// Chain broadcast: a pipeline root -> root+1 -> ... -> root+n-1 (mod n). The buffer moves
// in segments of CCMPI_BCAST_SEGMENT bytes (bcast_segments.cc); in round k a rank receives
// segment k from its predecessor while forwarding segment k-1 to its successor.
// Cost: S + n - 2 rounds for S segments; every rank but the last sends the whole buffer
// once, every rank but the root receives it once. Bandwidth-optimal for long messages
// when S >> n; latency grows linearly with n. Any size.
#include "coll/nb_algorithms.h"

namespace ccmpi::coll {

int bcastChainSchedule(Plan& p) {
  p.algorithm = "chain";
  Schedule& s = *p.schedule;
  const CollArgs& a = p.args;
  const int n = s.size();
  const int v = (s.rank() - a.root + n) % n;
  const int parent = v == 0 ? -1 : (s.rank() - 1 + n) % n;
  std::vector<int> children;
  if (v + 1 < n) children.push_back((s.rank() + 1) % n);
  addBcastPipelined(s, a.recvbuf, a.recvcount, a.recvtype, parent, children);
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
