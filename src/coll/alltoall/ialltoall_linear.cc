// Linear alltoall as a schedule of one round: every receive and every send posted at
// once (receives first, peers in the order r+1, r+2, ... so that not everyone targets
// the same rank first), the own block copied locally. MPI_IN_PLACE: every outgoing block
// is packed into a temporary at the start of the round, before any receive can land.
#include <vector>

#include "coll/nb_algorithms.h"

namespace ccmpi::coll {

Block alltoallSendBlock(const CollArgs& a, int i) {
  return Block{const_cast<void*>(elemAt(a.sendbuf, i * a.sendcount, typeOf(a.sendtype))),
               a.sendcount, a.sendtype};
}
Block alltoallRecvBlock(const CollArgs& a, int i) {
  return Block{elemAt(a.recvbuf, i * a.recvcount, typeOf(a.recvtype)), a.recvcount, a.recvtype};
}
Block alltoallvSendBlock(const CollArgs& a, int i) {
  return Block{const_cast<void*>(elemAt(a.sendbuf, a.sdispls[i], typeOf(a.sendtype))),
               a.sendcounts[i], a.sendtype};
}
Block alltoallvRecvBlock(const CollArgs& a, int i) {
  return Block{elemAt(a.recvbuf, a.rdispls[i], typeOf(a.recvtype)), a.recvcounts[i], a.recvtype};
}

std::vector<Block> outgoingBlocks(Schedule& s, bool inPlace,
                                  const std::function<Block(int)>& sendBlock,
                                  const std::function<Block(int)>& recvBlock) {
  const int n = s.size(), r = s.rank();
  std::vector<Block> out(n, Block{nullptr, 0, MPI_BYTE});
  for (int i = 1; i < n; ++i) {
    const int to = (r + i) % n;
    if (!inPlace) {
      out[to] = sendBlock(to);
      continue;
    }
    const Block b = recvBlock(to);
    const int64_t bytes = dataBytes(b.count, b.type);
    void* packed = s.tempBytes(bytes);
    if (bytes > 0) s.copy(b.addr, b.count, b.type, packed, bytes, MPI_BYTE);
    out[to] = Block{packed, bytes, MPI_BYTE};
  }
  return out;
}

void addAlltoallLinear(Schedule& s, bool inPlace, const std::function<Block(int)>& sendBlock,
                       const std::function<Block(int)>& recvBlock) {
  const int n = s.size(), r = s.rank();
  const std::vector<Block> out = outgoingBlocks(s, inPlace, sendBlock, recvBlock);
  for (int i = 1; i < n; ++i) {
    const int from = (r - i + n) % n;
    const Block b = recvBlock(from);
    if (dataBytes(b.count, b.type) > 0) s.recv(b.addr, b.count, b.type, from);
  }
  for (int i = 1; i < n; ++i) {
    const int to = (r + i) % n;
    const Block& b = out[to];
    if (dataBytes(b.count, b.type) > 0) s.send(b.addr, b.count, b.type, to);
  }
  if (!inPlace) {
    const Block from = sendBlock(r), to = recvBlock(r);
    s.copy(from.addr, from.count, from.type, to.addr, to.count, to.type);
  }
  s.endRound();
}

int ialltoallLinear(Plan& p) {
  p.algorithm = "linear";
  const CollArgs& a = p.args;
  addAlltoallLinear(
      *p.schedule, a.sendbuf == MPI_IN_PLACE, [&](int i) { return alltoallSendBlock(a, i); },
      [&](int i) { return alltoallRecvBlock(a, i); });
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
