// Dissemination barrier as a schedule: round k (k = 1, 2, 4, ... < n) sends an empty
// message to (r + k) mod n and receives one from (r - k) mod n; a round starts only when
// the previous one has completed, so after ceil(log2 n) rounds every rank has heard,
// directly or through others, from all.
#include "coll/nb_algorithms.h"

namespace ccmpi::coll {

int ibarrierDissemination(Plan& p) {
  p.algorithm = "dissemination";
  Schedule& s = *p.schedule;
  const int n = s.size(), r = s.rank();
  for (int k = 1; k < n; k <<= 1) {
    s.recv(nullptr, 0, MPI_BYTE, (r - k + n) % n);
    s.send(nullptr, 0, MPI_BYTE, (r + k) % n);
    s.endRound();
  }
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
