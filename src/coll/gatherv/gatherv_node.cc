// Hierarchical gatherv (ranks on several hosts, some sharing one): only the root knows
// every count, so each host first gathers its ranks' byte counts at its leader, then their
// packed blocks (gatherv); the leaders gather the hosts' totals at the root's leader, then
// the hosts' blocks (gatherv, host order); that leader hands them to the root if the root
// is not it, and the root unpacks every block to its place (any placement, any
// datatypes). Two small gathers more than gather's node algorithm; the root's cable
// carries each block once, in one message per host. Declines with one rank per host or
// on one host; a host's blocks past 2 GiB are an error (MPI_ERR_COUNT).
#include <algorithm>
#include <climits>
#include <vector>

#include "base/error.h"
#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/coll.h"
#include "coll/node/shm.h"
#include "coll/util.h"

namespace ccmpi::coll {

int gathervNode(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype, void* recvbuf,
                const int* recvcounts, const int* displs, MPI_Datatype recvtype, int root,
                comm::Comm& c) {
  node::Topology* t;
  comm::Comm *local, *leaders;
  if (int rc = node::hierBegin(c, &t, &local, &leaders)) return rc;
  const int n = c.size, me = c.rank;
  const bool inPlace = sendbuf == MPI_IN_PLACE;
  const datatype::Datatype& rt = typeOf(recvtype);
  const int64_t mineBytes64 = inPlace ? recvcounts[me] * rt.size() : dataBytes(sendcount, sendtype);
  // A block, a host's blocks or all blocks past 2 GiB fail with MPI_ERR_COUNT at the root,
  // and every rank stops at the same step: the sizes travel first (-1: too large), so no
  // rank waits for data another gave up on.
  const int mineBytes = mineBytes64 > INT_MAX ? -1 : static_cast<int>(mineBytes64);
  std::vector<unsigned char> mine(mineBytes > 0 ? static_cast<size_t>(mineBytes) + 1 : 1);
  if (mineBytes > 0) {
    if (inPlace)
      rt.pack(elemAt(recvbuf, displs[me], rt), recvcounts[me], 0, mine.data(),
              static_cast<size_t>(mineBytes));
    else
      typeOf(sendtype).pack(sendbuf, sendcount, 0, mine.data(), static_cast<size_t>(mineBytes));
  }
  // My host's counts and blocks at its leader.
  const int L = t->localSize;
  std::vector<int> lcounts(static_cast<size_t>(L)), ldispls(static_cast<size_t>(L));
  if (int rc = gather(&mineBytes, 1, MPI_INT, lcounts.data(), 1, MPI_INT, 0, *local)) return rc;
  int64_t hostTotal = 0;
  int overflow = 0;
  for (int i = 0; i < L && t->isLeader(); ++i) {
    ldispls[static_cast<size_t>(i)] = static_cast<int>(std::min<int64_t>(hostTotal, INT_MAX));
    if (lcounts[static_cast<size_t>(i)] < 0) overflow = 1;
    hostTotal += std::max(lcounts[static_cast<size_t>(i)], 0);
  }
  if (hostTotal > INT_MAX) overflow = 1;
  if (int rc = bcastSelect(&overflow, 1, MPI_INT, 0, *local)) return rc;
  if (overflow && !t->isLeader())
    return setErrorCause(MPI_ERR_COUNT, "the blocks of one host pass 2 GiB");
  std::vector<unsigned char> hostBlocks(t->isLeader() && !overflow ? hostTotal + 1 : 1);
  if (!overflow)
    if (int rc = gatherv(mine.data(), mineBytes, MPI_BYTE, hostBlocks.data(), lcounts.data(),
                         ldispls.data(), MPI_BYTE, 0, *local))
      return rc;
  // The root knows where every rank's block goes; its size in host order gives offsets.
  const int rootHost = t->hostOf[static_cast<size_t>(root)];
  const int localRoot = t->localOf[static_cast<size_t>(root)];
  int64_t total = 0;
  int bad = overflow;
  std::vector<unsigned char> all;
  if (leaders) {
    const int mine32 = overflow ? -1 : static_cast<int>(hostTotal);
    std::vector<int> totals(static_cast<size_t>(t->hosts)), hdispls(totals.size());
    // Every leader learns every host's total and reaches the same verdict.
    if (int rc = allgather(&mine32, 1, MPI_INT, totals.data(), 1, MPI_INT, *leaders)) return rc;
    for (int h = 0; h < t->hosts; ++h) {
      hdispls[static_cast<size_t>(h)] = static_cast<int>(std::min<int64_t>(total, INT_MAX));
      if (totals[static_cast<size_t>(h)] < 0) bad = 1;
      total += std::max(totals[static_cast<size_t>(h)], 0);
    }
    if (total > INT_MAX) bad = 1;
    if (!bad) {
      if (leaders->rank == rootHost) all.resize(static_cast<size_t>(total) + 1);
      if (int rc = gatherv(hostBlocks.data(), mine32, MPI_BYTE, all.data(), totals.data(),
                           hdispls.data(), MPI_BYTE, rootHost, *leaders))
        return rc;
    }
  }
  if (t->myHost == rootHost && localRoot != 0) {
    // The root is not its host's leader: the leader hands it the verdict, then the data.
    if (t->isLeader()) {
      if (int rc = p2p::send(&bad, 1, MPI_INT, localRoot, kTagGatherv, *local, kCtx)) return rc;
      if (!bad)
        if (int rc = p2p::send(all.data(), total, MPI_BYTE, localRoot, kTagGatherv, *local, kCtx))
          return rc;
    } else if (me == root) {
      if (int rc = p2p::recv(&bad, 1, MPI_INT, 0, kTagGatherv, *local, MPI_STATUS_IGNORE, kCtx))
        return rc;
      if (!bad) {
        for (int r = 0; r < n; ++r) total += recvcounts[r] * rt.size();
        all.resize(static_cast<size_t>(total) + 1);
        if (int rc = p2p::recv(all.data(), total, MPI_BYTE, 0, kTagGatherv, *local,
                               MPI_STATUS_IGNORE, kCtx))
          return rc;
      }
    }
  }
  if (bad) return setErrorCause(MPI_ERR_COUNT, "the blocks pass 2 GiB");
  if (me != root) return MPI_SUCCESS;
  size_t at = 0;
  for (int pos = 0; pos < n; ++pos) {
    const int r = t->byHost[static_cast<size_t>(pos)];
    const size_t len = static_cast<size_t>(recvcounts[r] * rt.size());
    if (!(r == root && inPlace))
      rt.unpack(elemAt(recvbuf, displs[r], rt), recvcounts[r], 0, all.data() + at, len);
    at += len;
  }
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
