// Recursive-doubling allgatherv. The blocks are packed in rank order into a temporary
// (allgatherv_packed.h), where the blocks of any group of consecutive ranks are one
// message; then as the allgather (allgather_recursive_doubling.cc): with n a power of
// two, round k exchanges with r ^ 2^k the packed blocks of the 2^k ranks each side
// holds; other n fold the extras r >= p (p = largest power of two below n) onto r - p
// before and send them the whole result after. Finally every block is unpacked into its
// place in recvbuf.
// Cost: log2(p) rounds (+2 with extras), the other ranks' data received once (packed),
// one pack and one unpack of the whole vector; a temporary of the whole vector's data.
// Empty ranges move no message (every rank knows every count). MPI_IN_PLACE: the own
// block is read from recvbuf.
#include <algorithm>

#include "coll/allgatherv/allgatherv_packed.h"

namespace ccmpi::coll {

int allgathervRecursiveDoublingSchedule(Plan& p) {
  p.algorithm = "recursive_doubling";
  Schedule& s = *p.schedule;
  const CollArgs& a = p.args;
  const int n = s.size(), r = s.rank();
  const PackedBlocks pb = packOwnBlock(s, a);
  if (int rc = s.buildError()) return rc;
  if (!pb.buf) return MPI_SUCCESS;  // one rank, or no data at all

  const int pw = floorPow2(n), extra = n - pw;
  auto range = [&](int lo, int hi, int peer, bool out) {
    const int64_t b = hi > lo ? pb.bytes(lo, hi) : 0;
    if (b == 0) return;
    if (out)
      s.send(pb.at(lo), b, MPI_BYTE, peer);
    else
      s.recv(pb.at(lo), b, MPI_BYTE, peer);
  };
  if (r >= pw) {
    range(r, r + 1, r - pw, true);
    s.endRound();
    range(0, n, r - pw, false);
    s.endRound();
    unpackBlocks(s, a, pb);
    s.endRound();
    return MPI_SUCCESS;
  }
  if (r < extra) {
    range(r + pw, r + pw + 1, r + pw, false);
    s.endRound();
  }
  auto group = [&](int g, int mask, int peer, bool out) {
    range(g, g + mask, peer, out);
    range(g + pw, std::min(g + mask, extra) + pw, peer, out);
  };
  for (int mask = 1; mask < pw; mask *= 2) {
    const int peer = r ^ mask;
    group(r & ~(mask - 1), mask, peer, true);
    group(peer & ~(mask - 1), mask, peer, false);
    s.endRound();
  }
  if (r < extra) range(0, n, r + pw, true);
  unpackBlocks(s, a, pb);
  s.endRound();
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
