// Recursive-halving reduce_scatter (Thakur, Rabenseifner, Gropp 2005), for commutative
// ops, and the building blocks the Rabenseifner reduce and allreduce share with it.
//  1. Fold (sizes that are not a power of two): p = largest power of two <= n,
//     rem = n - p. Among the first 2*rem ranks each even rank sends its whole vector to
//     the odd rank above, which combines it and stays; the p remaining ranks get virtual
//     ranks 0..p-1 in rank order. Virtual rank v < rem stands for ranks 2v and 2v+1 and
//     owns their two blocks, the others own one block each.
//  2. Halving: for m = p/2, ..., 1 a virtual rank swaps halves of its current range of
//     blocks with virtual rank v ^ m: it sends the half v does not keep and combines the
//     half it receives into the half it keeps. After log2 p rounds virtual rank v holds
//     its own blocks reduced over all ranks.
//  3. The odd ranks of step 1 send the even rank below its block.
// Cost: log2 p + 2 rounds; a rank sends about (p-1)/p of the vector in step 2, plus the
// whole vector in step 1 (folded ranks). Restriction: commutative ops (ranks combine in
// XOR-partner order). Any counts, including empty and uneven blocks.
#include <vector>

#include "coll/nb_algorithms.h"
#include "coll/util.h"

namespace ccmpi::coll {

int foldedRank(int rank, int n) {
  const int rem = n - floorPow2(n);
  if (rank < 2 * rem) return rank % 2 == 0 ? -1 : rank / 2;
  return rank - rem;
}

int unfoldedRank(int vrank, int n) {
  const int rem = n - floorPow2(n);
  return vrank < rem ? 2 * vrank + 1 : vrank + rem;
}

void addFold(Schedule& s, const void* mine, void* work, void* tmp, int64_t count, MPI_Datatype type,
             MPI_Op op) {
  const int n = s.size(), r = s.rank();
  const int rem = n - floorPow2(n);
  if (r >= 2 * rem) return;
  if (r % 2 == 0) {
    s.send(mine, count, type, r + 1);
  } else {
    s.recv(tmp, count, type, r - 1);
    s.endRound();
    s.reduce(op, tmp, work, count, type);
  }
  s.endRound();
}

void addRecursiveHalving(Schedule& s, void* work, void* tmp, const std::vector<int64_t>& bounds,
                         MPI_Datatype type, MPI_Op op) {
  const int n = s.size();
  const int v = foldedRank(s.rank(), n);
  const int p = static_cast<int>(bounds.size()) - 1;
  const datatype::Datatype& dt = typeOf(type);
  int lo = 0, hi = p;
  for (int m = p / 2; m >= 1; m /= 2) {
    const int peer = unfoldedRank(v ^ m, n);
    const int mid = lo + m;
    int sendLo = mid, sendHi = hi;
    if (v & m) {
      sendLo = lo;
      sendHi = mid;
      lo = mid;
    } else {
      hi = mid;
    }
    s.send(elemAt(work, bounds[sendLo], dt), bounds[sendHi] - bounds[sendLo], type, peer);
    s.recv(elemAt(tmp, bounds[lo], dt), bounds[hi] - bounds[lo], type, peer);
    s.endRound();
    s.reduce(op, elemAt(tmp, bounds[lo], dt), elemAt(work, bounds[lo], dt), bounds[hi] - bounds[lo],
             type);
  }
  s.endRound();
}

void addReduceScatterHalving(Schedule& s, const void* in, void* out,
                             const std::vector<int64_t>& counts, MPI_Datatype type, MPI_Op op) {
  const int n = s.size(), r = s.rank();
  const int p = floorPow2(n), rem = n - p;
  const datatype::Datatype& dt = typeOf(type);
  std::vector<int64_t> displs(n + 1, 0);
  for (int i = 0; i < n; ++i) displs[i + 1] = displs[i] + counts[i];
  const int64_t total = displs[n];
  if (total == 0) return;
  if (foldedRank(r, n) < 0) {
    addFold(s, in, nullptr, nullptr, total, type, op);
    s.recv(out, counts[r], type, r + 1);
    s.endRound();
    return;
  }
  void* work = s.temp(total, type);
  void* tmp = s.temp(total, type);
  s.copy(in, total, type, work, total, type);
  addFold(s, in, work, tmp, total, type, op);
  std::vector<int64_t> bounds(p + 1);
  for (int v = 0; v < p; ++v) bounds[v] = displs[v < rem ? 2 * v : v + rem];
  bounds[p] = total;
  addRecursiveHalving(s, work, tmp, bounds, type, op);
  if (r < 2 * rem) s.send(elemAt(work, displs[r - 1], dt), counts[r - 1], type, r - 1);
  s.copy(elemAt(work, displs[r], dt), counts[r], type, out, counts[r], type);
  s.endRound();
}

int reduceScatterRecursiveHalvingSchedule(Plan& p) {
  p.algorithm = "recursive_halving";
  const CollArgs& a = p.args;
  const std::vector<int64_t> counts(a.recvcounts.begin(), a.recvcounts.end());
  const void* in = a.sendbuf == MPI_IN_PLACE ? a.recvbuf : a.sendbuf;
  addReduceScatterHalving(*p.schedule, in, a.recvbuf, counts, a.recvtype, a.op);
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
