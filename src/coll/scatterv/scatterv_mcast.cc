// Multicast scatterv with static group management (CC-MPI §4.1): two multicasts to the
// communicator's group, the sizes (every rank learns the layout of the aggregate), then
// the aggregate of all blocks in rank order, from which every rank takes its own. All
// ranks of the communicator take part even when only a few receive data; the dynamic and
// compiler-assisted schemes (scatterv_mcast_dynamic.cc, MPIX_Scatterv_*) involve only
// those. Declines where multicast does not work.
#include <vector>

#include "base/error.h"
#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/mcast/mcast_coll.h"
#include "coll/util.h"
#include "datatype/datatype.h"

namespace ccmpi::coll {

int scattervMcast(const void* sendbuf, const int* sendcounts, const int* displs,
                  MPI_Datatype sendtype, void* recvbuf, int64_t recvcount, MPI_Datatype recvtype,
                  int root, comm::Comm& c) {
  McastGroup* g = mcastGroup(c);
  if (!g) return kDecline;
  const int n = c.size;
  std::vector<uint64_t> sizes(static_cast<size_t>(n), 0);
  int rc = MPI_SUCCESS;
  if (c.rank == root) {
    const datatype::Datatype& st = typeOf(sendtype);
    uint64_t total = 0;
    for (int i = 0; i < n; ++i) {
      sizes[static_cast<size_t>(i)] = static_cast<uint64_t>(sendcounts[i]) * st.size();
      if (i != root) total += sizes[static_cast<size_t>(i)];
    }
    rc = mcastMessage(*g, c, root, sizes.data(), nullptr, sizes.size() * 8, 1);
    std::vector<unsigned char> packed(total);
    uint64_t at = 0;
    for (int i = 0; i < n && rc == MPI_SUCCESS; ++i) {
      if (i == root || sizes[static_cast<size_t>(i)] == 0) continue;
      st.pack(elemAt(sendbuf, displs[i], st), sendcounts[i], 0, packed.data() + at,
              sizes[static_cast<size_t>(i)]);
      at += sizes[static_cast<size_t>(i)];
    }
    if (rc == MPI_SUCCESS) rc = mcastMessage(*g, c, root, packed.data(), nullptr, total, 2);
    if (rc == MPI_SUCCESS && recvbuf != MPI_IN_PLACE)
      rc = copyLocal(elemAt(sendbuf, displs[root], st), sendcounts[root], sendtype, recvbuf,
                     recvcount, recvtype);
  } else {
    rc = mcastMessage(*g, c, root, nullptr, sizes.data(), sizes.size() * 8, 1);
    uint64_t total = 0, mine = 0;
    for (int i = 0; i < n; ++i) {
      if (i == root) continue;
      if (i == c.rank) mine = total;
      total += sizes[static_cast<size_t>(i)];
    }
    std::vector<unsigned char> all(total);
    if (rc == MPI_SUCCESS) rc = mcastMessage(*g, c, root, nullptr, all.data(), total, 2);
    const datatype::Datatype& rt = typeOf(recvtype);
    const uint64_t want = static_cast<uint64_t>(recvcount) * static_cast<uint64_t>(rt.size());
    const uint64_t got = sizes[static_cast<size_t>(c.rank)];
    if (rc == MPI_SUCCESS && got > want)
      rc = setErrorCause(MPI_ERR_TRUNCATE, "scatterv block of %llu bytes for a %llu-byte receive",
                         static_cast<unsigned long long>(got),
                         static_cast<unsigned long long>(want));
    if (rc == MPI_SUCCESS && got > 0) rt.unpack(recvbuf, recvcount, 0, all.data() + mine, got);
  }
  mcastRetire(*g);
  return rc;
}

}  // namespace ccmpi::coll
