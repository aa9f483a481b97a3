// Multicast scatter (CC-MPI §4.1): the root multicasts the whole send buffer as one
// message to the communicator's group and every rank takes its own block from it. The
// root's link carries the data once (as with linear unicast), in one message instead of
// n-1; every receiver's link carries all of it. Declines where multicast does not work.
#include <vector>

#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/mcast/mcast_coll.h"
#include "coll/util.h"
#include "datatype/datatype.h"

namespace ccmpi::coll {

int scatterMcast(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int64_t recvcount, MPI_Datatype recvtype, int root, comm::Comm& c) {
  McastGroup* g = mcastGroup(c);
  if (!g) return kDecline;
  const int n = c.size;
  int rc = MPI_SUCCESS;
  if (c.rank == root) {
    const datatype::Datatype& st = typeOf(sendtype);
    const uint64_t block = static_cast<uint64_t>(sendcount) * static_cast<uint64_t>(st.size());
    const uint64_t total = block * static_cast<uint64_t>(n);
    std::vector<unsigned char> packed;
    const unsigned char* data;
    if (st.contiguous()) {
      data = static_cast<const unsigned char*>(sendbuf) + st.trueLb();
    } else {
      packed.resize(total);
      st.pack(sendbuf, sendcount * n, 0, packed.data(), total);
      data = packed.data();
    }
    rc = mcastMessage(*g, c, root, data, nullptr, total, 1);
    if (rc == MPI_SUCCESS && recvbuf != MPI_IN_PLACE)
      rc = copyLocal(elemAt(sendbuf, root * sendcount, st), sendcount, sendtype, recvbuf, recvcount,
                     recvtype);
  } else {
    const datatype::Datatype& rt = typeOf(recvtype);
    const uint64_t block = static_cast<uint64_t>(recvcount) * static_cast<uint64_t>(rt.size());
    std::vector<unsigned char> all(block * static_cast<uint64_t>(n));
    rc = mcastMessage(*g, c, root, nullptr, all.data(), all.size(), 1);
    if (rc == MPI_SUCCESS && block > 0)
      rt.unpack(recvbuf, recvcount, 0, all.data() + block * static_cast<uint64_t>(c.rank), block);
  }
  mcastRetire(*g);
  return rc;
}

}  // namespace ccmpi::coll
