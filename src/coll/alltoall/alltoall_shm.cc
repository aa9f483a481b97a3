// Shared-memory alltoall (one host): a rank's slot of the communicator's segment holds a
// sub-slot per destination; in chunks of up to slot/n bytes of a block, every rank packs
// its chunk of each destination's block into its sub-slots; a barrier; every rank unpacks
// its sub-slot of every rank's slot. Two copies per byte, one barrier per chunk, no
// message; any datatype, in place included (a phase packs before anyone unpacks).
// Declines across hosts or without shared memory.
#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/node/shm.h"
#include "coll/util.h"

namespace ccmpi::coll {

int alltoallShm(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype, void* recvbuf,
                int64_t recvcount, MPI_Datatype recvtype, comm::Comm& c) {
  const datatype::Datatype& rt = typeOf(recvtype);
  const size_t total = static_cast<size_t>(recvcount * rt.size());
  const int n = c.size, r = c.rank;
  int rc = MPI_SUCCESS;
  node::Segment* s = node::shmSegment(c, &rc, total * static_cast<size_t>(n));
  if (!s) return rc ? rc : kDecline;
  const size_t sub = s->slotBytes() / static_cast<size_t>(n) / 64 * 64;
  if (sub == 0) return kDecline;
  const bool inPlace = sendbuf == MPI_IN_PLACE;
  const datatype::Datatype& st = inPlace ? rt : typeOf(sendtype);
  const void* src = inPlace ? recvbuf : sendbuf;
  const int64_t scount = inPlace ? recvcount : sendcount;
  for (size_t off = 0; off < total; off += sub) {
    const size_t len = std::min(sub, total - off);
    const uint64_t ph = s->beginPhase(true);
    for (int j = 0; j < n; ++j)
      st.pack(elemAt(src, j * scount, st), scount, off, s->slot(ph, r) + j * sub, len);
    s->barrier();
    for (int i = 0; i < n; ++i)
      rt.unpack(elemAt(recvbuf, i * recvcount, rt), recvcount, off, s->slot(ph, i) + r * sub, len);
    s->endPhase(ph);
  }
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
