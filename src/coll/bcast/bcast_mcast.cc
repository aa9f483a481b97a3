// Multicast broadcast (CC-MPI §4.1, static group management): the root sends the buffer
// once to the communicator's multicast group; the switch copies it to every port, so
// the root's link carries it once whatever the number of ranks. Reliability and
// acknowledgement as in coll/mcast/mcast_coll.h. Declines (on every rank alike) when
// multicast does not work on the communicator.
#include <vector>

#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/mcast/mcast_coll.h"
#include "coll/util.h"
#include "datatype/datatype.h"

namespace ccmpi::coll {

int bcastMcast(void* buf, int64_t count, MPI_Datatype type, int root, comm::Comm& c) {
  McastGroup* g = mcastGroup(c);
  if (!g) return kDecline;
  const datatype::Datatype& dt = typeOf(type);
  const uint64_t bytes = static_cast<uint64_t>(count) * static_cast<uint64_t>(dt.size());
  int rc;
  if (dt.contiguous()) {
    unsigned char* p = static_cast<unsigned char*>(buf) + dt.trueLb();
    rc = mcastMessage(*g, c, root, p, p, bytes, 1);
  } else {
    std::vector<unsigned char> packed(bytes);
    if (c.rank == root) dt.pack(buf, count, 0, packed.data(), bytes);
    rc = mcastMessage(*g, c, root, packed.data(), packed.data(), bytes, 1);
    if (rc == MPI_SUCCESS && c.rank != root) dt.unpack(buf, count, 0, packed.data(), bytes);
  }
  mcastRetire(*g);
  return rc;
}

}  // namespace ccmpi::coll
