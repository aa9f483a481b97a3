// Hierarchical reduce_scatter and reduce_scatter_block (ranks on several hosts, some
// sharing one): every host reduces the whole vector to its leader (the selected reduce of
// the host's communicator: shared memory, where each local rank reduces a slice in
// parallel, when the rules say so), the leaders reduce_scatter the host totals among
// themselves with host h's part being the blocks of h's ranks (in host order: the leader
// reorders the vector first when a host's ranks are not consecutive), and every leader
// scatters its part to its ranks (scatterv). The vector crosses each host's cable as
// often as the leaders' reduce_scatter sends it for one rank, not once per rank of the
// host. A non-commutative op needs every host's ranks to be consecutive (then the host
// reductions and the leaders' reduce_scatter keep rank order): declines otherwise, and
// with one rank per host, on one host, or past 2^31-1 elements in all.
#include <climits>
#include <vector>

#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/coll.h"
#include "coll/node/shm.h"
#include "coll/util.h"
#include "op/op.h"

namespace ccmpi::coll {

int reduceScatterNodeCounts(const void* sendbuf, void* recvbuf, const std::vector<int64_t>& counts,
                            MPI_Datatype type, MPI_Op op, comm::Comm& c) {
  const int n = c.size;
  int64_t total = 0;
  for (int64_t x : counts) total += x;
  if (total == 0) return MPI_SUCCESS;
  if (total > INT_MAX) return kDecline;
  node::Topology* t;
  comm::Comm *local, *leaders;
  if (int rc = node::hierBeginReduction(c, op, &t, &local, &leaders)) return rc;
  const datatype::Datatype& dt = typeOf(type);
  const void* in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  const int L = t->localSize;
  std::vector<int> lcounts(static_cast<size_t>(L)), ldispls(lcounts.size());
  for (int i = 0, at = 0; i < L; ++i) {
    const int r = t->byHost[static_cast<size_t>(t->firstOf[static_cast<size_t>(t->myHost)] + i)];
    lcounts[static_cast<size_t>(i)] = static_cast<int>(counts[static_cast<size_t>(r)]);
    ldispls[static_cast<size_t>(i)] = at;
    at += lcounts[static_cast<size_t>(i)];
  }
  TempBuffer acc, sorted;
  void* part = nullptr;  // the leader's vector, then its host's part
  if (!t->isLeader()) {
    if (int rc = reduceSelect(in, nullptr, total, type, op, 0, *local)) return rc;
  } else {
    if (int rc = acc.alloc(total, dt)) return rc;
    if (int rc = reduceSelect(in, acc.get(), total, type, op, 0, *local)) return rc;
    part = acc.get();
    if (!t->contiguous) {  // the blocks in host order of their ranks
      if (int rc = sorted.alloc(total, dt)) return rc;
      std::vector<int64_t> displs(static_cast<size_t>(n) + 1, 0);
      for (int r = 0; r < n; ++r)
        displs[static_cast<size_t>(r) + 1] = displs[static_cast<size_t>(r)] + counts[r];
      int64_t at = 0;
      for (int pos = 0; pos < n; ++pos) {
        const int r = t->byHost[static_cast<size_t>(pos)];
        const int64_t k = counts[static_cast<size_t>(r)];
        if (k)
          if (int rc = copyLocal(elemAt(acc.get(), displs[static_cast<size_t>(r)], dt), k, type,
                                 elemAt(sorted.get(), at, dt), k, type))
            return rc;
        at += k;
      }
      part = sorted.get();
    }
    std::vector<int> hostCounts(static_cast<size_t>(t->hosts), 0);
    for (int r = 0; r < n; ++r)
      hostCounts[static_cast<size_t>(t->hostOf[static_cast<size_t>(r)])] +=
          static_cast<int>(counts[static_cast<size_t>(r)]);
    if (int rc = reduceScatter(MPI_IN_PLACE, part, hostCounts.data(), type, op, *leaders))
      return rc;
  }
  return scattervSelect(part, lcounts.data(), ldispls.data(), type, recvbuf,
                        counts[static_cast<size_t>(c.rank)], type, 0, *local);
}

int reduceScatterNode(const void* sendbuf, void* recvbuf, const int* recvcounts, MPI_Datatype type,
                      MPI_Op op, comm::Comm& c) {
  return reduceScatterNodeCounts(
      sendbuf, recvbuf, std::vector<int64_t>(recvcounts, recvcounts + c.size), type, op, c);
}

int reduceScatterBlockNode(const void* sendbuf, void* recvbuf, int64_t recvcount, MPI_Datatype type,
                           MPI_Op op, comm::Comm& c) {
  return reduceScatterNodeCounts(
      sendbuf, recvbuf, std::vector<int64_t>(static_cast<size_t>(c.size), recvcount), type, op, c);
}

}  // namespace ccmpi::coll
