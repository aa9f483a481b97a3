// Multicast scatterv with dynamic group management (CC-MPI §4.1): per call, the sizes go
// to the whole communicator (static group), then a group of only the ranks with a block
// is formed, the aggregate is multicast to it and the group is destroyed. Ranks without
// data are released after the sizes; the group set-up costs every call (the
// compiler-assisted MPIX_Scatterv_* calls pay it once). Declines where multicast does
// not work.
#include <vector>

#include "base/error.h"
#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/mcast/mcast_coll.h"
#include "coll/mcast/mcast_subgroup.h"
#include "coll/util.h"
#include "datatype/datatype.h"

namespace ccmpi::coll {

int scattervMcastDynamic(const void* sendbuf, const int* sendcounts, const int* displs,
                         MPI_Datatype sendtype, void* recvbuf, int64_t recvcount,
                         MPI_Datatype recvtype, int root, comm::Comm& c) {
  if (!mcastGroup(c)) return kDecline;
  std::vector<uint64_t> sizes;
  std::vector<unsigned char> aggregate;
  int rc = MPI_SUCCESS;
  if (c.rank == root) {
    const datatype::Datatype& st = typeOf(sendtype);
    sizes.resize(static_cast<size_t>(c.size));
    uint64_t total = 0;
    for (int i = 0; i < c.size; ++i) {
      sizes[static_cast<size_t>(i)] = static_cast<uint64_t>(sendcounts[i]) * st.size();
      if (i != root) total += sizes[static_cast<size_t>(i)];
    }
    aggregate.resize(total);
    uint64_t at = 0;
    for (int i = 0; i < c.size; ++i) {
      if (i == root || sizes[static_cast<size_t>(i)] == 0) continue;
      st.pack(elemAt(sendbuf, displs[i], st), sendcounts[i], 0, aggregate.data() + at,
              sizes[static_cast<size_t>(i)]);
      at += sizes[static_cast<size_t>(i)];
    }
    if (recvbuf != MPI_IN_PLACE)
      rc = copyLocal(elemAt(sendbuf, displs[root], st), sendcounts[root], sendtype, recvbuf,
                     recvcount, recvtype);
  }
  McastSubgroup s;
  if (rc == MPI_SUCCESS) rc = subgroupOpen(c, root, sizes.data(), &s);
  if (rc == MPI_SUCCESS && c.rank != root) {
    const datatype::Datatype& rt = typeOf(recvtype);
    const uint64_t want = static_cast<uint64_t>(recvcount) * static_cast<uint64_t>(rt.size());
    const uint64_t got = s.sizes[static_cast<size_t>(c.rank)];
    if (got > want)
      rc = setErrorCause(MPI_ERR_TRUNCATE, "scatterv block of %llu bytes for a %llu-byte receive",
                         static_cast<unsigned long long>(got),
                         static_cast<unsigned long long>(want));
    if (rc == MPI_SUCCESS) rc = subgroupScatter(s, nullptr, recvbuf, recvcount, recvtype);
  } else if (rc == MPI_SUCCESS) {
    rc = subgroupScatter(s, &aggregate, nullptr, 0, MPI_BYTE);
  }
  subgroupClose(s);
  return rc;
}

}  // namespace ccmpi::coll
