// Shared-memory allgather (one host): in chunks of up to CCMPI_NODE_SHM_SLOT bytes of a
// block, every rank packs its chunk into its slot of the communicator's segment; a
// barrier; every rank unpacks every slot to its rank's place. Each block is copied once
// in and n-1 times out, with one barrier per chunk and no message; any datatype. Declines
// across hosts or without shared memory.
#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/node/shm.h"
#include "coll/util.h"

namespace ccmpi::coll {

int allgatherShm(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int64_t recvcount, MPI_Datatype recvtype, comm::Comm& c) {
  const datatype::Datatype& rt = typeOf(recvtype);
  const size_t total = static_cast<size_t>(recvcount * rt.size());
  int rc = MPI_SUCCESS;
  node::Segment* s = node::shmSegment(c, &rc, total);
  if (!s) return rc ? rc : kDecline;
  const bool inPlace = sendbuf == MPI_IN_PLACE;
  const int n = c.size, r = c.rank;
  for (size_t off = 0; off < total; off += s->slotBytes()) {
    const size_t len = std::min(s->slotBytes(), total - off);
    const uint64_t ph = s->beginPhase(true);
    if (inPlace)
      rt.pack(elemAt(recvbuf, r * recvcount, rt), recvcount, off, s->slot(ph, r), len);
    else
      typeOf(sendtype).pack(sendbuf, sendcount, off, s->slot(ph, r), len);
    s->barrier();
    for (int i = 0; i < n; ++i) {
      if (i == r && inPlace) continue;
      rt.unpack(elemAt(recvbuf, i * recvcount, rt), recvcount, off, s->slot(ph, i), len);
    }
    s->endPhase(ph);
  }
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
