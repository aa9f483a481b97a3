// Hierarchical scatter (ranks on several hosts, some sharing one): the root packs every
// block in host order and hands them to its leader if it is not the leader; the leaders
// scatterv each host's blocks to its leader; every host scatters them to its ranks, who
// unpack their own (any placement, any datatypes). The root's cable carries each block
// once, in one message per host. Declines with one rank per host, on one host, or past
// 2 GiB.
#include <climits>
#include <vector>

#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/coll.h"
#include "coll/node/shm.h"
#include "coll/util.h"

namespace ccmpi::coll {

int scatterNode(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype, void* recvbuf,
                int64_t recvcount, MPI_Datatype recvtype, int root, comm::Comm& c) {
  const bool amRoot = c.rank == root;
  const int64_t bytes = amRoot ? dataBytes(sendcount, sendtype) : dataBytes(recvcount, recvtype);
  if (bytes * c.size > INT_MAX / 2) return kDecline;
  node::Topology* t;
  comm::Comm *local, *leaders;
  if (int rc = node::hierBegin(c, &t, &local, &leaders)) return rc;
  const int n = c.size, b = static_cast<int>(bytes);
  const int rootHost = t->hostOf[static_cast<size_t>(root)];
  const int localRoot = t->localOf[static_cast<size_t>(root)];
  std::vector<unsigned char> all, hostBlocks, mine(static_cast<size_t>(b) + 1);
  if (amRoot || (t->myHost == rootHost && t->isLeader()))
    all.resize(static_cast<size_t>(b) * n + 1);
  if (amRoot) {
    const datatype::Datatype& st = typeOf(sendtype);
    for (int pos = 0; pos < n; ++pos) {
      const int r = t->byHost[static_cast<size_t>(pos)];
      st.pack(elemAt(sendbuf, r * sendcount, st), sendcount, 0,
              all.data() + static_cast<size_t>(pos) * b, static_cast<size_t>(b));
    }
  }
  if (t->myHost == rootHost && localRoot != 0) {
    if (amRoot) {
      if (int rc = p2p::send(all.data(), static_cast<int64_t>(b) * n, MPI_BYTE, 0, kTagScatter,
                             *local, kCtx))
        return rc;
    } else if (t->isLeader()) {
      if (int rc = p2p::recv(all.data(), static_cast<int64_t>(b) * n, MPI_BYTE, localRoot,
                             kTagScatter, *local, MPI_STATUS_IGNORE, kCtx))
        return rc;
    }
  }
  if (t->isLeader()) hostBlocks.resize(static_cast<size_t>(b) * t->localSize + 1);
  if (leaders) {
    std::vector<int> counts(static_cast<size_t>(t->hosts)), displs(counts.size());
    for (int h = 0; h < t->hosts; ++h) {
      counts[static_cast<size_t>(h)] = t->hostSize[static_cast<size_t>(h)] * b;
      displs[static_cast<size_t>(h)] = t->firstOf[static_cast<size_t>(h)] * b;
    }
    if (int rc = scatterv(all.data(), counts.data(), displs.data(), MPI_BYTE, hostBlocks.data(),
                          t->localSize * b, MPI_BYTE, rootHost, *leaders))
      return rc;
  }
  if (int rc = scatter(hostBlocks.data(), b, MPI_BYTE, mine.data(), b, MPI_BYTE, 0, *local))
    return rc;
  if (amRoot && recvbuf == MPI_IN_PLACE) return MPI_SUCCESS;
  typeOf(recvtype).unpack(recvbuf, recvcount, 0, mine.data(), static_cast<size_t>(b));
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
