// Entry conditions of the node-aware algorithms (see shm.h).
#include "coll/node/shm.h"

#include "base/tunables.h"
#include "coll/util.h"

namespace ccmpi::coll::node {
namespace {

Tunable<uint64_t> kSlot("CCMPI_NODE_SHM_SLOT", 256 * 1024,
                        "bytes per rank and half of the shared-memory segment of a one-host "
                        "communicator (shm collectives; larger messages go in chunks)");
Tunable<bool> kShm("CCMPI_NODE_SHM", true,
                   "shared-memory segments for the shm collectives of one-host communicators");

}  // namespace

Segment* shmSegment(comm::Comm& c, int* rc) {
  *rc = MPI_SUCCESS;
  if (c.size < 2 || c.isInter()) return nullptr;
  Topology* t = topology(c, rc);
  if (!t || t->hosts != 1) return nullptr;
  if (t->segment) return t->segment.get();
  if (t->segmentFailed || !kShm.get()) return nullptr;
  *rc = Segment::create(c, static_cast<size_t>(kSlot.get()), &t->segment);
  if (*rc || !t->segment) {
    t->segmentFailed = true;
    return nullptr;
  }
  return t->segment.get();
}

Topology* hierTopology(comm::Comm& c, int* rc) {
  *rc = MPI_SUCCESS;
  if (c.size < 3 || c.isInter()) return nullptr;
  Topology* t = topology(c, rc);
  if (!t || t->trivial() || t->building) return nullptr;
  return t;
}

int hierBegin(comm::Comm& c, Topology** t, comm::Comm** node, comm::Comm** leaders) {
  int rc = MPI_SUCCESS;
  *t = hierTopology(c, &rc);
  if (!*t) return rc ? rc : -1;  // kDecline
  return nodeComms(c, **t, node, leaders);
}

bool denseType(MPI_Datatype type) {
  const datatype::Datatype& dt = typeOf(type);
  return dt.contiguous() && dt.extent() == dt.size() && dt.trueLb() == 0 && dt.size() > 0;
}

}  // namespace ccmpi::coll::node
