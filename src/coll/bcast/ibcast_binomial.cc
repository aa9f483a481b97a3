// Binomial-tree broadcast as a schedule. Ranks are renumbered relative to the root
// (v = r - root mod n). Round 1: receive from v minus its lowest set bit (the root skips
// it). Then send to v + 2^k for every 2^k below that bit, largest subtree first, one per
// round, as the blocking binomial does: a large buffer reaches the first child at the
// cable's full rate, and that child forwards it while the next one is served (all at once,
// the children shared the cable and each got the buffer only after all of them had:
// 16 ranks, 256 KiB at 25 Mbit/s, 10 x M/B instead of 4 x M/B, ccmpi-sim). Small sends
// complete at once, so the rounds cost them nothing. The data reaches all ranks after
// ceil(log2 n) hops, each carrying the whole buffer.
#include "coll/nb_algorithms.h"

namespace ccmpi::coll {

void addBcastBinomial(Schedule& s, void* buf, int64_t count, MPI_Datatype type, int root) {
  const int n = s.size();
  const int v = (s.rank() - root + n) % n;
  int mask = 1;
  while (mask < n) {
    if (v & mask) {
      s.recv(buf, count, type, (v - mask + root) % n);
      s.endRound();
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (v + mask < n) {
      s.send(buf, count, type, (v + mask + root) % n);
      s.endRound();
    }
}

int ibcastBinomial(Plan& p) {
  p.algorithm = "binomial";
  addBcastBinomial(*p.schedule, p.args.recvbuf, p.args.recvcount, p.args.recvtype, p.args.root);
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
