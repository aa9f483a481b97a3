// Pairwise-exchange reduce_scatter, for any op. In round i = 1..n-1 rank r sends its
// contribution to block r+i to rank r+i and receives rank r-i's contribution to its own
// block, which it combines at the start of the next round. Contributions arrive from
// r-1 down to 0, then from n-1 down to r+1: with a commutative op each one is folded into
// one accumulator; otherwise two accumulators keep rank order (lo = x_j op ... op x_r
// for the ranks below, hi = x_k op ... op x_{n-1} for the ranks above; every new operand
// goes on the left) and the result is lo op hi.
// Cost: n-1 rounds, each rank sends (n-1)/n of the vector (uneven blocks as given); the
// temporaries are block-sized. No restrictions.
#include <vector>

#include "coll/nb_algorithms.h"
#include "coll/util.h"
#include "op/op.h"

namespace ccmpi::coll {

void addReduceScatterPairwise(Schedule& s, const void* in, void* out,
                              const std::vector<int64_t>& counts, MPI_Datatype type, MPI_Op op) {
  const int n = s.size(), r = s.rank();
  const datatype::Datatype& dt = typeOf(type);
  std::vector<int64_t> displs(n + 1, 0);
  for (int i = 0; i < n; ++i) displs[i + 1] = displs[i] + counts[i];
  if (displs[n] == 0) return;
  const bool commutative = op::isCommutative(op);
  const int64_t cnt = counts[r];
  void* lo = s.temp(cnt, type);
  void* hi = !commutative && r < n - 1 ? s.temp(cnt, type) : nullptr;
  void* tmp = s.temp(cnt, type);
  s.copy(elemAt(in, displs[r], dt), cnt, type, lo, cnt, type);
  int prev = -1;  // the rank whose contribution the previous round received
  for (int i = 1; i < n; ++i) {
    if (prev >= 0) {
      if (commutative || prev < r)
        s.reduce(op, tmp, lo, cnt, type);
      else if (prev != n - 1)
        s.reduce(op, tmp, hi, cnt, type);
    }
    const int dst = (r + i) % n, src = (r - i + n) % n;
    s.send(elemAt(in, displs[dst], dt), counts[dst], type, dst);
    s.recv(!commutative && src == n - 1 ? hi : tmp, cnt, type, src);
    s.endRound();
    prev = src;
  }
  if (commutative || prev < r)
    s.reduce(op, tmp, lo, cnt, type);
  else if (prev != n - 1)
    s.reduce(op, tmp, hi, cnt, type);
  void* result = lo;
  if (hi) {
    s.reduce(op, lo, hi, cnt, type);
    result = hi;
  }
  s.copy(result, cnt, type, out, cnt, type);
  s.endRound();
}

int reduceScatterPairwiseSchedule(Plan& p) {
  p.algorithm = "pairwise";
  const CollArgs& a = p.args;
  const std::vector<int64_t> counts(a.recvcounts.begin(), a.recvcounts.end());
  const void* in = a.sendbuf == MPI_IN_PLACE ? a.recvbuf : a.sendbuf;
  addReduceScatterPairwise(*p.schedule, in, a.recvbuf, counts, a.recvtype, a.op);
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
