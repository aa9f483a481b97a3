// Recursive-halving reduce_scatter_block, for commutative ops: the recursive-halving
// reduce_scatter (coll/reduce_scatter/reduce_scatter_recursive_halving.cc) with n blocks
// of recvcount elements. Fold to p = largest power of two <= n (the even rank of each of
// the first n-p pairs hands its vector to the odd one), log2 p rounds exchanging halves of
// the current range, then the odd ranks send the even ones their blocks.
// Cost: log2 p + 2 rounds; about (p-1)/p of the vector sent per rank (plus the whole
// vector by folded ranks). Restriction: commutative ops.
#include <vector>

#include "coll/nb_algorithms.h"

namespace ccmpi::coll {

int reduceScatterBlockRecursiveHalvingSchedule(Plan& p) {
  p.algorithm = "recursive_halving";
  const CollArgs& a = p.args;
  const std::vector<int64_t> counts(p.schedule->size(), a.recvcount);
  const void* in = a.sendbuf == MPI_IN_PLACE ? a.recvbuf : a.sendbuf;
  addReduceScatterHalving(*p.schedule, in, a.recvbuf, counts, a.recvtype, a.op);
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
