// Shared-memory barrier (one host): every rank adds one to an arrival counter in the
// communicator's segment; the last arrival publishes the barrier's number in a release
// word and wakes the sleepers (coll/node/segment.h). One atomic add per rank and no
// messages. Declines where the communicator spans several hosts or shared memory is
// not available.
#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/node/shm.h"

namespace ccmpi::coll {

int barrierShm(comm::Comm& c) {
  int rc = MPI_SUCCESS;
  node::Segment* s = node::shmSegment(c, &rc);
  if (!s) return rc ? rc : kDecline;
  s->barrier();
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
