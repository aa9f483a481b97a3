// Hierarchical allgather and allgatherv (ranks on several hosts, some sharing one): every
// rank packs its block; each host gathers its ranks' blocks at its leader; the leaders
// allgatherv the hosts' blocks (host order); every leader broadcasts all blocks to its
// host (shared memory where the rules say so); every rank unpacks them to their ranks'
// places (any placement, any datatypes). Each host's cable carries every other host's
// blocks once instead of once per rank. Declines with one rank per host, on one host, or
// past 2 GiB.
#include <climits>
#include <vector>

#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/coll.h"
#include "coll/node/shm.h"
#include "coll/util.h"

namespace ccmpi::coll {
namespace {

// bytesOf(r): packed bytes of rank r's block; place(r): where rank r's block goes in
// recvbuf (count, element offset) — both known to every rank.
template <typename BytesOf, typename Place>
int allgatherHier(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype, void* recvbuf,
                  MPI_Datatype recvtype, comm::Comm& c, BytesOf bytesOf, Place place) {
  const int n = c.size;
  int64_t total = 0;
  for (int r = 0; r < n; ++r) total += bytesOf(r);
  if (total > INT_MAX / 2) return kDecline;
  node::Topology* t;
  comm::Comm *local, *leaders;
  if (int rc = node::hierBegin(c, &t, &local, &leaders)) return rc;
  const datatype::Datatype& rt = typeOf(recvtype);
  // Offsets of every rank's block in host order, and of every host's blocks.
  std::vector<int> at(static_cast<size_t>(n) + 1, 0);
  for (int pos = 0; pos < n; ++pos)
    at[static_cast<size_t>(pos) + 1] =
        at[static_cast<size_t>(pos)] +
        static_cast<int>(bytesOf(t->byHost[static_cast<size_t>(pos)]));
  const int mineBytes = static_cast<int>(bytesOf(c.rank));
  std::vector<unsigned char> mine(static_cast<size_t>(mineBytes) + 1);
  if (sendbuf == MPI_IN_PLACE) {
    const auto [cnt, off] = place(c.rank);
    rt.pack(elemAt(recvbuf, off, rt), cnt, 0, mine.data(), static_cast<size_t>(mineBytes));
  } else {
    typeOf(sendtype).pack(sendbuf, sendcount, 0, mine.data(), static_cast<size_t>(mineBytes));
  }
  const int first = t->firstOf[static_cast<size_t>(t->myHost)];
  std::vector<unsigned char> all(static_cast<size_t>(total) + 1);
  // Gather my host's blocks at the leader, straight into their place in `all`.
  std::vector<int> lcounts(static_cast<size_t>(t->localSize)), ldispls(lcounts.size());
  for (int i = 0; i < t->localSize; ++i) {
    lcounts[static_cast<size_t>(i)] =
        at[static_cast<size_t>(first + i) + 1] - at[static_cast<size_t>(first + i)];
    ldispls[static_cast<size_t>(i)] = at[static_cast<size_t>(first + i)];
  }
  if (int rc = gatherv(mine.data(), mineBytes, MPI_BYTE, all.data(), lcounts.data(), ldispls.data(),
                       MPI_BYTE, 0, *local))
    return rc;
  if (leaders) {
    std::vector<int> counts(static_cast<size_t>(t->hosts)), displs(counts.size());
    for (int h = 0; h < t->hosts; ++h) {
      const int f = t->firstOf[static_cast<size_t>(h)];
      const int e = f + t->hostSize[static_cast<size_t>(h)];
      counts[static_cast<size_t>(h)] = at[static_cast<size_t>(e)] - at[static_cast<size_t>(f)];
      displs[static_cast<size_t>(h)] = at[static_cast<size_t>(f)];
    }
    if (int rc = allgatherv(MPI_IN_PLACE, 0, MPI_BYTE, all.data(), counts.data(), displs.data(),
                            MPI_BYTE, *leaders))
      return rc;
  }
  if (int rc = bcastSelect(all.data(), total, MPI_BYTE, 0, *local)) return rc;
  for (int pos = 0; pos < n; ++pos) {
    const int r = t->byHost[static_cast<size_t>(pos)];
    if (r == c.rank && sendbuf == MPI_IN_PLACE) continue;
    const auto [cnt, off] = place(r);
    rt.unpack(elemAt(recvbuf, off, rt), cnt, 0, all.data() + at[static_cast<size_t>(pos)],
              static_cast<size_t>(at[static_cast<size_t>(pos) + 1] - at[static_cast<size_t>(pos)]));
  }
  return MPI_SUCCESS;
}

}  // namespace

int allgatherNode(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int64_t recvcount, MPI_Datatype recvtype, comm::Comm& c) {
  const int64_t b = dataBytes(recvcount, recvtype);
  return allgatherHier(
      sendbuf, sendcount, sendtype, recvbuf, recvtype, c, [b](int) { return b; },
      [recvcount](int r) { return std::pair<int64_t, int64_t>(recvcount, r * recvcount); });
}

int allgathervNode(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const int* recvcounts, const int* displs, MPI_Datatype recvtype, comm::Comm& c) {
  const int64_t size = typeOf(recvtype).size();
  return allgatherHier(
      sendbuf, sendcount, sendtype, recvbuf, recvtype, c,
      [recvcounts, size](int r) { return recvcounts[r] * size; },
      [recvcounts, displs](int r) {
        return std::pair<int64_t, int64_t>(recvcounts[r], displs[r]);
      });
}

}  // namespace ccmpi::coll
