// Pairwise-exchange reduce_scatter_block, for any op: the pairwise reduce_scatter
// (coll/reduce_scatter/reduce_scatter_pairwise.cc) with n blocks of recvcount elements.
// Round i = 1..n-1 sends block r+i to rank r+i and receives rank r-i's contribution to
// block r; contributions are combined in rank order (two accumulators for
// non-commutative ops).
// Cost: n-1 rounds of one block each way. No restrictions.
#include <vector>

#include "coll/nb_algorithms.h"

namespace ccmpi::coll {

int reduceScatterBlockPairwiseSchedule(Plan& p) {
  p.algorithm = "pairwise";
  const CollArgs& a = p.args;
  const std::vector<int64_t> counts(p.schedule->size(), a.recvcount);
  const void* in = a.sendbuf == MPI_IN_PLACE ? a.recvbuf : a.sendbuf;
  addReduceScatterPairwise(*p.schedule, in, a.recvbuf, counts, a.recvtype, a.op);
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
