// Bruck's allgather (concatenation algorithm), any n, directly on recvbuf. Before round
// k a rank r holds the blocks r .. r+2^k-1 (mod n); round k = 0 .. ceil(log2 n)-1 sends
// min(2^k, n-2^k) of them to r - 2^k and receives as many, starting with block r + 2^k,
// from r + 2^k. The classic form collects in rotated order in a temporary and rotates
// at the end; here every block is received straight into its own place, so the final
// rotation costs nothing (a range that wraps past block n-1 moves as two messages).
// Cost: ceil(log2 n) rounds, n-1 blocks received per rank, no temporaries.
// MPI_IN_PLACE: the own block is already in recvbuf.
#include <algorithm>

#include "coll/nb_algorithms.h"

namespace ccmpi::coll {

int allgatherBruckSchedule(Plan& p) {
  p.algorithm = "bruck";
  Schedule& s = *p.schedule;
  const CollArgs& a = p.args;
  const int n = s.size(), r = s.rank();
  const int64_t cnt = a.recvcount;
  const MPI_Datatype type = a.recvtype;
  const datatype::Datatype& rt = typeOf(type);
  auto block = [&](int64_t i) { return elemAt(a.recvbuf, i * cnt, rt); };
  if (a.sendbuf != MPI_IN_PLACE) s.copy(a.sendbuf, a.sendcount, a.sendtype, block(r), cnt, type);
  if (n == 1 || dataBytes(cnt, type) == 0) return MPI_SUCCESS;  // the same at every rank

  // Blocks start .. start+k-1 (mod n): up to two contiguous ranges.
  auto move = [&](int start, int k, int peer, bool out) {
    const int first = std::min(k, n - start);
    const int ranges[2][2] = {{start, first}, {0, k - first}};
    for (const auto& rg : ranges) {
      if (rg[1] <= 0) continue;
      if (out)
        s.send(block(rg[0]), rg[1] * cnt, type, peer);
      else
        s.recv(block(rg[0]), rg[1] * cnt, type, peer);
    }
  };
  for (int pof = 1; pof < n; pof *= 2) {
    const int k = std::min(pof, n - pof);
    const int to = (r - pof + n) % n, from = (r + pof) % n;
    move(r, k, to, true);
    move(from, k, from, false);
    s.endRound();
  }
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
