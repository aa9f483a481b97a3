// Dissemination barrier (Hensgen, Finkel, Manber). Rounds k = 1, 2, 4, ... < n: rank r
// sends an empty message to (r + k) mod n and waits for one from (r - k) mod n. After
// round k every rank has heard, directly or through others, from the 2k ranks before it,
// so after ceil(log2 n) rounds from all. Works for any n; one message per rank per round.
#include "coll/algorithms.h"
#include "coll/util.h"

namespace ccmpi::coll {

int barrierDissemination(comm::Comm& c) {
  const int n = c.size, r = c.rank;
  for (int k = 1; k < n; k <<= 1) {
    const int to = (r + k) % n, from = (r - k + n) % n;
    if (int rc = p2p::sendrecv(nullptr, 0, MPI_BYTE, to, kTagBarrier, nullptr, 0, MPI_BYTE, from,
                               kTagBarrier, c, MPI_STATUS_IGNORE, kCtx))
      return rc;
  }
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
