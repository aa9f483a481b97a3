// Entry conditions of the node-aware algorithms (see shm.h).
#include "coll/node/shm.h"

#include <algorithm>

#include "base/tunables.h"
#include "coll/util.h"
#include "op/op.h"

namespace ccmpi::coll::node {
namespace {

Tunable<uint64_t> kSlot("CCMPI_NODE_SHM_SLOT", 1024 * 1024,
                        "largest bytes per rank and half of the shared-memory segment of a "
                        "one-host communicator (shm collectives; larger messages go in chunks)");
Tunable<bool> kShm("CCMPI_NODE_SHM", true,
                   "shared-memory segments for the shm collectives of one-host communicators");

}  // namespace

Segment* shmSegment(comm::Comm& c, int* rc, size_t slotBytes) {
  *rc = MPI_SUCCESS;
  if (c.size < 2 || c.isInter()) return nullptr;
  Topology* t = topology(c, rc);
  if (!t || t->hosts != 1 || t->segmentFailed || !kShm.get()) return nullptr;
  size_t want = std::max<size_t>(64, std::min<size_t>(4096, kSlot.get()));
  while (want < slotBytes && want < kSlot.get()) want *= 2;
  if (t->segment && t->segment->slotBytes() >= want) return t->segment.get();
  t->segment.reset();  // every rank has left its last use of it: a collective call ended
  *rc = Segment::create(c, want, &t->segment);
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

int hierBeginReduction(comm::Comm& c, MPI_Op op, Topology** t, comm::Comm** node,
                       comm::Comm** leaders) {
  if (c.size >= 3 && !op::isCommutative(op)) {
    int rc = MPI_SUCCESS;
    Topology* top = topology(c, &rc);
    if (top && !top->contiguous) return -1;  // kDecline
    if (rc) return rc;
  }
  return hierBegin(c, t, node, leaders);
}

bool denseType(MPI_Datatype type) {
  const datatype::Datatype& dt = typeOf(type);
  return dt.contiguous() && dt.extent() == dt.size() && dt.trueLb() == 0 && dt.size() > 0;
}

}  // namespace ccmpi::coll::node
