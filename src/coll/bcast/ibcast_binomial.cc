// Binomial-tree broadcast as a schedule. Ranks are renumbered relative to the root
// (v = r - root mod n). Round 1: receive from v minus its lowest set bit (the root skips
// it). Round 2: send to v + 2^k for every 2^k below that bit, all at once. The data
// reaches all ranks after ceil(log2 n) hops, each carrying the whole buffer.
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
    if (v + mask < n) s.send(buf, count, type, (v + mask + root) % n);
  s.endRound();
}

int ibcastBinomial(Plan& p) {
  p.algorithm = "binomial";
  addBcastBinomial(*p.schedule, p.args.recvbuf, p.args.recvcount, p.args.recvtype, p.args.root);
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
