// Reduce_scatter as one schedule: a reduction of the whole vector (sum of recvcounts)
// into a temporary at rank 0 (binomial for commutative ops, rank-ordered otherwise),
// then a linear scatterv of recvcounts[i] elements to rank i. Correct for any op; the
// whole vector passes through rank 0.
#include <vector>

#include "coll/nb_algorithms.h"

namespace ccmpi::coll {

int ireduceScatterReduceScatterv(Plan& p) {
  p.algorithm = "reduce_scatterv";
  Schedule& s = *p.schedule;
  CollArgs& a = p.args;
  const int n = s.size();
  // The scatterv displacements (kept in the plan: the schedule points at them).
  a.sdispls.resize(n);
  int64_t total = 0;
  for (int i = 0; i < n; ++i) {
    a.sdispls[i] = static_cast<int>(total);
    total += a.recvcounts[i];
  }
  if (total == 0) return MPI_SUCCESS;
  const void* in = a.sendbuf == MPI_IN_PLACE ? a.recvbuf : a.sendbuf;
  void* result = s.rank() == 0 ? s.temp(total, a.recvtype) : nullptr;
  addReduce(s, in, result, total, a.recvtype, a.op, 0);
  addScattervLinear(s, result, a.recvcounts.data(), a.sdispls.data(), a.recvtype, a.recvbuf,
                    a.recvcounts[s.rank()], a.recvtype, 0);
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
