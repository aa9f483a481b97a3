// Binomial-tree scatter, the mirror of the binomial gather. Ranks are renumbered relative
// to the root (v = r - root mod n); v's subtree is the ranks [v, v + lowbit(v)). The root
// packs blocks 1..n-1 (real ranks root+1, ..., root-1) into a temporary in relative
// order and sends each child v + 2^k its subtree's blocks in one message, all at once.
// Every other rank receives its subtree's blocks from v - lowbit(v) into a temporary
// (leaves: straight into recvbuf), then forwards the children's parts and unpacks its own
// block. Cost: ceil(log2 n) rounds; the root sends (n-1) blocks in ceil(log2 n) messages.
// Blocks travel as packed bytes (any datatypes, lb/extent honoured). MPI_IN_PLACE at the
// root. Any size.
#include <algorithm>

#include "coll/nb_algorithms.h"

namespace ccmpi::coll {

int scatterBinomialSchedule(Plan& p) {
  p.algorithm = "binomial";
  Schedule& s = *p.schedule;
  const CollArgs& a = p.args;
  const int n = s.size(), r = s.rank(), root = a.root;
  const int v = (r - root + n) % n;
  // One block's bytes, from the side significant here (equal at every rank).
  const int64_t block =
      r == root ? dataBytes(a.sendcount, a.sendtype) : dataBytes(a.recvcount, a.recvtype);
  if (block == 0) return MPI_SUCCESS;
  int low = 1;
  while (low < n && !(v & low)) low <<= 1;  // lowest set bit of v (>= n at the root)
  const int64_t sub = std::min<int64_t>(low, n - v);
  auto real = [&](int rel) { return (rel + root) % n; };

  if (r == root) {
    const datatype::Datatype& st = typeOf(a.sendtype);
    auto* tmp = static_cast<unsigned char*>(s.tempBytes((n - 1) * block));  // blocks 1..n-1
    const int64_t upper = n - root - 1;  // relative 1..upper are ranks root+1..n-1
    s.copy(elemAt(a.sendbuf, (root + 1) * a.sendcount, st), upper * a.sendcount, a.sendtype, tmp,
           upper * block, MPI_BYTE);
    s.copy(a.sendbuf, root * a.sendcount, a.sendtype, tmp + upper * block, root * block, MPI_BYTE);
    for (int m = low >> 1; m > 0; m >>= 1) {
      const int64_t childSub = std::min<int64_t>(m, n - m);
      s.send(tmp + (m - 1) * block, childSub * block, MPI_BYTE, real(m));
    }
    if (a.recvbuf != MPI_IN_PLACE)
      s.copy(elemAt(a.sendbuf, root * a.sendcount, st), a.sendcount, a.sendtype, a.recvbuf,
             a.recvcount, a.recvtype);
    s.endRound();
    return MPI_SUCCESS;
  }

  const int parent = real(v - low);
  if (sub == 1) {  // a leaf
    s.recv(a.recvbuf, a.recvcount, a.recvtype, parent);
    s.endRound();
    return MPI_SUCCESS;
  }
  auto* tmp = static_cast<unsigned char*>(s.tempBytes(sub * block));
  s.recv(tmp, sub * block, MPI_BYTE, parent);
  s.endRound();
  for (int m = low >> 1; m > 0; m >>= 1) {
    if (v + m >= n) continue;
    const int64_t childSub = std::min<int64_t>(m, n - v - m);
    s.send(tmp + m * block, childSub * block, MPI_BYTE, real(v + m));
  }
  s.copy(tmp, block, MPI_BYTE, a.recvbuf, a.recvcount, a.recvtype);
  s.endRound();
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
