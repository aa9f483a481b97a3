// Hierarchical gather (ranks on several hosts, some sharing one): every rank packs its
// block; each host gathers its ranks' blocks at its leader; the leaders gatherv the
// hosts' blocks (host order) to the root's leader, which hands them to the root if the
// root is not it; the root unpacks every block to its rank's place (any placement of
// ranks on hosts, any datatypes). The root's cable carries each block once, in one
// message per host. Declines with one rank per host, on one host, or past 2 GiB.
#include <climits>
#include <vector>

#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/coll.h"
#include "coll/node/shm.h"
#include "coll/util.h"

namespace ccmpi::coll {

int gatherNode(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype, void* recvbuf,
               int64_t recvcount, MPI_Datatype recvtype, int root, comm::Comm& c) {
  const bool inPlace = sendbuf == MPI_IN_PLACE;
  const int64_t bytes = inPlace ? dataBytes(recvcount, recvtype) : dataBytes(sendcount, sendtype);
  if (bytes * c.size > INT_MAX / 2) return kDecline;
  node::Topology* t;
  comm::Comm *local, *leaders;
  if (int rc = node::hierBegin(c, &t, &local, &leaders)) return rc;
  const int n = c.size, b = static_cast<int>(bytes);
  const int rootHost = t->hostOf[static_cast<size_t>(root)];
  const int localRoot = t->localOf[static_cast<size_t>(root)];
  std::vector<unsigned char> mine(static_cast<size_t>(b) + 1);
  const datatype::Datatype& rt = typeOf(recvtype);
  if (inPlace)
    rt.pack(elemAt(recvbuf, c.rank * recvcount, rt), recvcount, 0, mine.data(), mine.size() - 1);
  else
    typeOf(sendtype).pack(sendbuf, sendcount, 0, mine.data(), mine.size() - 1);
  std::vector<unsigned char> hostBlocks, all;
  if (t->isLeader()) hostBlocks.resize(static_cast<size_t>(b) * t->localSize + 1);
  if (int rc = gather(mine.data(), b, MPI_BYTE, hostBlocks.data(), b, MPI_BYTE, 0, *local))
    return rc;
  const bool collects = t->myHost == rootHost && (t->isLeader() || c.rank == root);
  if (collects) all.resize(static_cast<size_t>(b) * n + 1);
  if (leaders) {
    std::vector<int> counts(static_cast<size_t>(t->hosts)), displs(counts.size());
    for (int h = 0; h < t->hosts; ++h) {
      counts[static_cast<size_t>(h)] = t->hostSize[static_cast<size_t>(h)] * b;
      displs[static_cast<size_t>(h)] = t->firstOf[static_cast<size_t>(h)] * b;
    }
    if (int rc = gatherv(hostBlocks.data(), t->localSize * b, MPI_BYTE, all.data(), counts.data(),
                         displs.data(), MPI_BYTE, rootHost, *leaders))
      return rc;
  }
  if (t->myHost == rootHost && localRoot != 0) {
    if (t->isLeader())
      return p2p::send(all.data(), static_cast<int64_t>(b) * n, MPI_BYTE, localRoot, kTagGather,
                       *local, kCtx);
    if (c.rank == root)
      if (int rc = p2p::recv(all.data(), static_cast<int64_t>(b) * n, MPI_BYTE, 0, kTagGather,
                             *local, MPI_STATUS_IGNORE, kCtx))
        return rc;
  }
  if (c.rank != root) return MPI_SUCCESS;
  for (int pos = 0; pos < n; ++pos) {
    const int r = t->byHost[static_cast<size_t>(pos)];
    if (r == root && inPlace) continue;
    rt.unpack(elemAt(recvbuf, r * recvcount, rt), recvcount, 0,
              all.data() + static_cast<size_t>(pos) * b, static_cast<size_t>(b));
  }
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
