// Reduce_scatter_block as one schedule: a reduction of the whole n*recvcount vector into
// a temporary at rank 0 (binomial for commutative ops, rank-ordered otherwise), then a
// linear scatter of recvcount elements to each rank. Correct for any op; the whole
// vector passes through rank 0.
#include "coll/nb_algorithms.h"

namespace ccmpi::coll {

int ireduceScatterBlockReduceScatter(Plan& p) {
  p.algorithm = "reduce_scatter";
  Schedule& s = *p.schedule;
  const CollArgs& a = p.args;
  const int64_t total = a.recvcount * s.size();
  const void* in = a.sendbuf == MPI_IN_PLACE ? a.recvbuf : a.sendbuf;
  void* result = s.rank() == 0 ? s.temp(total, a.recvtype) : nullptr;
  addReduce(s, in, result, total, a.recvtype, a.op, 0);
  addScatterLinear(s, result, a.recvcount, a.recvtype, a.recvbuf, a.recvcount, a.recvtype, 0);
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
