// Allreduce as a schedule of a reduction to rank 0 (binomial for commutative ops, rank
// ordered otherwise) followed by a binomial broadcast from rank 0: 2*ceil(log2 n) levels,
// no temporaries beyond the reduction's.
#include "coll/nb_algorithms.h"

namespace ccmpi::coll {

int iallreduceReduceBcast(Plan& p) {
  p.algorithm = "reduce_bcast";
  Schedule& s = *p.schedule;
  const CollArgs& a = p.args;
  // In place everywhere: rank 0 reduces in place; the others' input is recvbuf.
  const void* in = a.sendbuf;
  if (a.sendbuf == MPI_IN_PLACE && s.rank() != 0) in = a.recvbuf;
  addReduce(s, in, a.recvbuf, a.recvcount, a.recvtype, a.op, 0);
  addBcastBinomial(s, a.recvbuf, a.recvcount, a.recvtype, 0);
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
