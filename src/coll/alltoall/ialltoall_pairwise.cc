// Pairwise-exchange alltoall as a schedule: round i = 1..n-1 sends the block for
// (r + i) mod n and receives the block from (r - i) mod n. Each round is a permutation, so
// no rank receives two messages at once and at most one block per peer is in flight: the
// choice for long blocks. MPI_IN_PLACE: every outgoing block is packed into a temporary
// at the start of the first round, before any receive is posted.
#include <vector>

#include "coll/nb_algorithms.h"

namespace ccmpi::coll {

void addAlltoallPairwise(Schedule& s, bool inPlace, const std::function<Block(int)>& sendBlock,
                         const std::function<Block(int)>& recvBlock) {
  const int n = s.size(), r = s.rank();
  const std::vector<Block> out = outgoingBlocks(s, inPlace, sendBlock, recvBlock);
  if (!inPlace) {
    const Block from = sendBlock(r), to = recvBlock(r);
    s.copy(from.addr, from.count, from.type, to.addr, to.count, to.type);
  }
  for (int i = 1; i < n; ++i) {
    const int to = (r + i) % n, from = (r - i + n) % n;
    const Block in = recvBlock(from);
    if (dataBytes(in.count, in.type) > 0) s.recv(in.addr, in.count, in.type, from);
    if (dataBytes(out[to].count, out[to].type) > 0)
      s.send(out[to].addr, out[to].count, out[to].type, to);
    s.endRound();
  }
  s.endRound();
}

int ialltoallPairwise(Plan& p) {
  p.algorithm = "pairwise";
  const CollArgs& a = p.args;
  addAlltoallPairwise(
      *p.schedule, a.sendbuf == MPI_IN_PLACE, [&](int i) { return alltoallSendBlock(a, i); },
      [&](int i) { return alltoallRecvBlock(a, i); });
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
