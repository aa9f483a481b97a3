// Bruck's allgatherv, any n. The blocks are packed in rank order into a temporary
// (allgatherv_packed.h); as in the allgather (allgather_bruck.cc), before round k rank r
// holds blocks r .. r+2^k-1 (mod n) and round k = 0 .. ceil(log2 n)-1 sends
// min(2^k, n-2^k) of them to r - 2^k and receives as many, starting with block r + 2^k,
// from r + 2^k. Blocks are received at their own place in the packed layout (a range
// wrapping past block n-1 moves as two messages), so the final rotation is the unpack
// into recvbuf that a derived receive type needs anyway.
// Cost: ceil(log2 n) rounds, the other ranks' data received once (packed), one pack and
// one unpack; a temporary of the whole vector's data. Empty ranges move no message
// (every rank knows every count). MPI_IN_PLACE: the own block is read from recvbuf.
#include <algorithm>

#include "coll/allgatherv/allgatherv_packed.h"

namespace ccmpi::coll {

int allgathervBruckSchedule(Plan& p) {
  p.algorithm = "bruck";
  Schedule& s = *p.schedule;
  const CollArgs& a = p.args;
  const int n = s.size(), r = s.rank();
  const PackedBlocks pb = packOwnBlock(s, a);
  if (int rc = s.buildError()) return rc;
  if (!pb.buf) return MPI_SUCCESS;  // one rank, or no data at all

  // Blocks start .. start+k-1 (mod n): up to two ranges of the packed layout.
  auto move = [&](int start, int k, int peer, bool out) {
    const int first = std::min(k, n - start);
    const int ranges[2][2] = {{start, start + first}, {0, k - first}};
    for (const auto& rg : ranges) {
      const int64_t b = rg[1] > rg[0] ? pb.bytes(rg[0], rg[1]) : 0;
      if (b == 0) continue;
      if (out)
        s.send(pb.at(rg[0]), b, MPI_BYTE, peer);
      else
        s.recv(pb.at(rg[0]), b, MPI_BYTE, peer);
    }
  };
  for (int pof = 1; pof < n; pof *= 2) {
    const int k = std::min(pof, n - pof);
    move(r, k, (r - pof + n) % n, true);
    move((r + pof) % n, k, (r + pof) % n, false);
    s.endRound();
  }
  unpackBlocks(s, a, pb);
  s.endRound();
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
