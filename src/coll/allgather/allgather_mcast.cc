// Multicast allgather (CC-MPI §4.1): n broadcasts, one per rank in rank order, each to
// the communicator's group; every link carries each block once. One acknowledgement
// round (a dissemination barrier) at the end instead of one per block. Declines where
// multicast does not work.
#include <vector>

#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/mcast/mcast_coll.h"
#include "coll/util.h"
#include "datatype/datatype.h"

namespace ccmpi::coll {

int allgatherMcast(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int64_t recvcount, MPI_Datatype recvtype, comm::Comm& c) {
  McastGroup* g = mcastGroup(c);
  if (!g) return kDecline;
  const int n = c.size;
  const datatype::Datatype& rt = typeOf(recvtype);
  const uint64_t block = static_cast<uint64_t>(recvcount) * static_cast<uint64_t>(rt.size());
  // My block, packed (from sendbuf, or from my place in recvbuf when in place).
  std::vector<unsigned char> mine(block);
  if (sendbuf == MPI_IN_PLACE) {
    rt.pack(elemAt(recvbuf, c.rank * recvcount, rt), recvcount, 0, mine.data(), block);
  } else {
    const datatype::Datatype& st = typeOf(sendtype);
    st.pack(sendbuf, sendcount, 0, mine.data(), block);
    rt.unpack(elemAt(recvbuf, c.rank * recvcount, rt), recvcount, 0, mine.data(), block);
  }
  auto& m = transport::mcast();
  std::vector<unsigned char> in(block);
  int rc = MPI_SUCCESS;
  for (int r = 0; r < n && rc == MPI_SUCCESS; ++r) {
    const transport::McastKey key = mcastKey(*g, c, r, 1);
    if (r == c.rank) {
      rc = m.send(g->group, key, mine.data(), block, 0, g->laneSet());
    } else {
      rc = m.receive(key, in.data(), block);
      if (rc == MPI_SUCCESS && block > 0)
        rt.unpack(elemAt(recvbuf, r * recvcount, rt), recvcount, 0, in.data(), block);
    }
  }
  if (rc == MPI_SUCCESS) rc = mcastAllDone(c);
  m.retire(mcastKey(*g, c, c.rank, 1));
  mcastRetire(*g);
  return rc;
}

}  // namespace ccmpi::coll
