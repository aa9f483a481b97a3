// Recursive-doubling allgather, directly on recvbuf (no temporaries). With n a power of
// two, round k = 0 .. log2(n)-1 exchanges with r ^ 2^k the 2^k blocks each side holds
// (a contiguous range of recvbuf: one message of recvtype elements each way).
// Other n (MPICH-style fold): with p = the largest power of two below n, ranks r >= p
// first send their block to r - p, the first p ranks run the power-of-two exchange, each
// holding its block and that of r + p (two ranges, so at most two messages per round),
// and finally send the whole result to r + p.
// Cost: log2(p) rounds (+2 with extras), (n-1) blocks received per rank (the extras and
// their partners move n more). MPI_IN_PLACE: the own block is already in recvbuf.
#include <algorithm>

#include "coll/nb_algorithms.h"

namespace ccmpi::coll {

int allgatherRecursiveDoublingSchedule(Plan& p) {
  p.algorithm = "recursive_doubling";
  Schedule& s = *p.schedule;
  const CollArgs& a = p.args;
  const int n = s.size(), r = s.rank();
  const int64_t cnt = a.recvcount;
  const MPI_Datatype type = a.recvtype;
  const datatype::Datatype& rt = typeOf(type);
  auto block = [&](int64_t i) { return elemAt(a.recvbuf, i * cnt, rt); };
  if (a.sendbuf != MPI_IN_PLACE) s.copy(a.sendbuf, a.sendcount, a.sendtype, block(r), cnt, type);
  if (n == 1 || dataBytes(cnt, type) == 0) return MPI_SUCCESS;  // the same at every rank

  const int pw = floorPow2(n), extra = n - pw;
  if (r >= pw) {
    s.send(block(r), cnt, type, r - pw);
    s.endRound();
    s.recv(block(0), n * cnt, type, r - pw);
    s.endRound();
    return MPI_SUCCESS;
  }
  if (r < extra) {
    s.recv(block(r + pw), cnt, type, r + pw);
    s.endRound();
  }
  // The blocks of the group of 2^k ranks starting at g: [g, g+2^k) and their extras.
  auto exchange = [&](int g, int mask, int peer, bool out) {
    const int ranges[2][2] = {{g, g + mask}, {g + pw, std::min(g + mask, extra) + pw}};
    for (const auto& rg : ranges) {
      if (rg[1] <= rg[0]) continue;
      if (out)
        s.send(block(rg[0]), (rg[1] - rg[0]) * cnt, type, peer);
      else
        s.recv(block(rg[0]), (rg[1] - rg[0]) * cnt, type, peer);
    }
  };
  for (int mask = 1; mask < pw; mask *= 2) {
    const int peer = r ^ mask;
    exchange(r & ~(mask - 1), mask, peer, true);
    exchange(peer & ~(mask - 1), mask, peer, false);
    s.endRound();
  }
  if (r < extra) {
    s.send(block(0), n * cnt, type, r + pw);
    s.endRound();
  }
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
