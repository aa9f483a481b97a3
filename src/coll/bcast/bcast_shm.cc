// Shared-memory broadcast (one host): the root packs the message into the communicator's
// segment, one half (n x CCMPI_NODE_SHM_SLOT bytes) a phase, and publishes it; every
// other rank waits for that, unpacks it from there at once and says it is done. Phases
// alternate between the two halves, so the root fills the next while the others still
// read the last (it waits only before refilling a half someone still reads). One copy
// in, n-1 copies out, no barrier: a rank waits for the root only; any datatype. Declines where the
// communicator spans several hosts or shared memory is not available.
#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/node/shm.h"
#include "coll/util.h"

namespace ccmpi::coll {

int bcastShm(void* buf, int64_t count, MPI_Datatype type, int root, comm::Comm& c) {
  const datatype::Datatype& dt = typeOf(type);
  const size_t total = static_cast<size_t>(count * dt.size());
  int rc = MPI_SUCCESS;
  node::Segment* s = node::shmSegment(c, &rc, (total + c.size - 1) / c.size);
  if (!s) return rc ? rc : kDecline;
  const size_t chunk = s->halfBytes();
  for (size_t off = 0; off < total; off += chunk) {
    const size_t len = std::min(chunk, total - off);
    const uint64_t ph = s->beginPhase(c.rank == root);
    if (c.rank == root) {
      dt.pack(buf, count, off, s->half(ph), len);
      s->publish(ph);
    } else {
      s->awaitPublished(ph);
      dt.unpack(buf, count, off, s->half(ph), len);
    }
    s->endPhase(ph);
  }
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
