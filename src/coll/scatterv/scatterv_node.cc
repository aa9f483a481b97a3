// Hierarchical scatterv (ranks on several hosts, some sharing one): only the root knows
// every count, so every host first gathers its ranks' byte counts at its leader; the root
// packs every block in host order and hands them, with the hosts' totals, to its leader
// if it is not the leader; the leaders scatter the totals, then the hosts' blocks
// (scatterv); every leader scatters its host's blocks (scatterv), and every rank unpacks
// its own (any placement, any datatypes). The root's cable carries each block once, in
// one message per host. Declines with one rank per host or on one host; a host's blocks
// past 2 GiB are an error (MPI_ERR_COUNT).
#include <climits>
#include <vector>

#include "base/error.h"
#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/coll.h"
#include "coll/node/shm.h"
#include "coll/util.h"

namespace ccmpi::coll {

int scattervNode(const void* sendbuf, const int* sendcounts, const int* displs,
                 MPI_Datatype sendtype, void* recvbuf, int64_t recvcount, MPI_Datatype recvtype,
                 int root, comm::Comm& c) {
  node::Topology* t;
  comm::Comm *local, *leaders;
  if (int rc = node::hierBegin(c, &t, &local, &leaders)) return rc;
  const int n = c.size, me = c.rank;
  const bool amRoot = me == root;
  const int rootHost = t->hostOf[static_cast<size_t>(root)];
  const int localRoot = t->localOf[static_cast<size_t>(root)];
  const int64_t mine64 =
      amRoot ? sendcounts[root] * typeOf(sendtype).size() : dataBytes(recvcount, recvtype);
  if (mine64 > INT_MAX) return setErrorCause(MPI_ERR_COUNT, "a block past 2 GiB");
  const int mineBytes = static_cast<int>(mine64);
  // My host's counts at its leader.
  const int L = t->localSize;
  std::vector<int> lcounts(static_cast<size_t>(L)), ldispls(static_cast<size_t>(L));
  if (int rc = gather(&mineBytes, 1, MPI_INT, lcounts.data(), 1, MPI_INT, 0, *local)) return rc;
  // The root packs every block in host order; the hosts' totals go with them.
  std::vector<int64_t> totals(static_cast<size_t>(t->hosts), 0);
  std::vector<unsigned char> all;
  int64_t total = 0;
  if (amRoot) {
    const datatype::Datatype& st = typeOf(sendtype);
    for (int pos = 0; pos < n; ++pos) {
      const int r = t->byHost[static_cast<size_t>(pos)];
      totals[static_cast<size_t>(t->hostOf[static_cast<size_t>(r)])] += sendcounts[r] * st.size();
    }
    for (int64_t x : totals) total += x;
    all.resize(static_cast<size_t>(total) + 1);
    size_t at = 0;
    for (int pos = 0; pos < n; ++pos) {
      const int r = t->byHost[static_cast<size_t>(pos)];
      const size_t len = static_cast<size_t>(sendcounts[r] * st.size());
      st.pack(elemAt(sendbuf, displs[r], st), sendcounts[r], 0, all.data() + at, len);
      at += len;
    }
  }
  if (t->myHost == rootHost && localRoot != 0) {
    if (amRoot) {
      if (int rc = p2p::send(totals.data(), t->hosts, MPI_INT64_T, 0, kTagScatterv, *local, kCtx))
        return rc;
      if (int rc = p2p::send(all.data(), total, MPI_BYTE, 0, kTagScatterv, *local, kCtx)) return rc;
    } else if (t->isLeader()) {
      if (int rc = p2p::recv(totals.data(), t->hosts, MPI_INT64_T, localRoot, kTagScatterv, *local,
                             MPI_STATUS_IGNORE, kCtx))
        return rc;
      for (int64_t x : totals) total += x;
      all.resize(static_cast<size_t>(total) + 1);
      if (int rc = p2p::recv(all.data(), total, MPI_BYTE, localRoot, kTagScatterv, *local,
                             MPI_STATUS_IGNORE, kCtx))
        return rc;
    }
  }
  int64_t hostTotal = 0;
  int overflow = 0;
  if (leaders) {
    std::vector<int> counts(static_cast<size_t>(t->hosts)), hdispls(counts.size());
    int64_t at = 0;
    for (int h = 0; h < t->hosts; ++h) {
      counts[static_cast<size_t>(h)] = static_cast<int>(std::min<int64_t>(totals[h], INT_MAX));
      hdispls[static_cast<size_t>(h)] = static_cast<int>(std::min<int64_t>(at, INT_MAX));
      at += totals[static_cast<size_t>(h)];
    }
    // The totals first, so an overflow is known everywhere before any block moves.
    int64_t mineTotal = 0;
    if (int rc =
            scatter(totals.data(), 1, MPI_INT64_T, &mineTotal, 1, MPI_INT64_T, rootHost, *leaders))
      return rc;
    int big = at > INT_MAX ? 1 : 0;
    if (int rc = bcastSelect(&big, 1, MPI_INT, rootHost, *leaders)) return rc;
    hostTotal = mineTotal;
    overflow = big;
    if (!overflow) {
      std::vector<unsigned char> hostBlocks(static_cast<size_t>(hostTotal) + 1);
      if (int rc = scatterv(all.data(), counts.data(), hdispls.data(), MPI_BYTE, hostBlocks.data(),
                            static_cast<int>(hostTotal), MPI_BYTE, rootHost, *leaders))
        return rc;
      all.swap(hostBlocks);
    }
  } else if (t->isLeader()) {
    hostTotal = total;  // one host holds everything (not reached: hosts >= 2)
  }
  if (int rc = bcastSelect(&overflow, 1, MPI_INT, 0, *local)) return rc;
  if (overflow) return setErrorCause(MPI_ERR_COUNT, "the blocks pass 2 GiB");
  for (int i = 0, at = 0; i < L; ++i) {
    ldispls[static_cast<size_t>(i)] = at;
    at += lcounts[static_cast<size_t>(i)];
  }
  std::vector<unsigned char> mine(static_cast<size_t>(mineBytes) + 1);
  if (int rc = scatterv(all.data(), lcounts.data(), ldispls.data(), MPI_BYTE, mine.data(),
                        mineBytes, MPI_BYTE, 0, *local))
    return rc;
  if (amRoot && recvbuf == MPI_IN_PLACE) return MPI_SUCCESS;
  typeOf(recvtype).unpack(recvbuf, recvcount, 0, mine.data(), static_cast<size_t>(mineBytes));
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
