// Binomial-tree broadcast. Ranks are renumbered relative to the root (v = r - root mod n).
// A rank receives once, from v minus its lowest set bit, then sends to v + 2^k for every
// 2^k below that bit (largest first), so the data reaches all n ranks in ceil(log2 n)
// rounds and every message carries the whole buffer: latency-optimal, the choice for
// small and medium messages.
#include "coll/algorithms.h"
#include "coll/util.h"

namespace ccmpi::coll {

int bcastBinomial(void* buf, int64_t count, MPI_Datatype type, int root, comm::Comm& c) {
  const int n = c.size;
  const int v = (c.rank - root + n) % n;
  int mask = 1;
  while (mask < n) {
    if (v & mask) {
      const int parent = (v - mask + root) % n;
      if (int rc = p2p::recv(buf, count, type, parent, kTagBcast, c, MPI_STATUS_IGNORE, kCtx))
        return rc;
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (v + mask < n) {
      const int child = (v + mask + root) % n;
      if (int rc = p2p::send(buf, count, type, child, kTagBcast, c, kCtx)) return rc;
    }
  }
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
