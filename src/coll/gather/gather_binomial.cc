// Binomial-tree gather. Ranks are renumbered relative to the root (v = r - root mod n);
// v's subtree is the ranks [v, v + lowbit(v)) (all n at the root). Round 1: a rank
// receives from each child v + 2^k (2^k below its lowest set bit) that child's subtree's
// blocks, all at once, into a temporary holding its own subtree's blocks in relative
// order (its own block first, packed). Round 2: it sends that temporary to its parent
// v - lowbit(v) in one message. The root receives blocks 1..n-1 in a temporary and unpacks
// them into recvbuf in real rank order (a rotation by root).
// Cost: ceil(log2 n) rounds; the root receives (n-1) blocks in ceil(log2 n) messages,
// inner ranks forward their subtree's blocks once. Latency-optimal for small blocks.
// Blocks travel as packed bytes (any datatypes, lb/extent honoured). Leaves send straight
// from sendbuf. MPI_IN_PLACE at the root. Any size.
#include <algorithm>

#include "coll/nb_algorithms.h"

namespace ccmpi::coll {

int gatherBinomialSchedule(Plan& p) {
  p.algorithm = "binomial";
  Schedule& s = *p.schedule;
  const CollArgs& a = p.args;
  const int n = s.size(), r = s.rank(), root = a.root;
  const int v = (r - root + n) % n;
  // One block's bytes, from the side significant here (equal at every rank).
  const int64_t block =
      r == root ? dataBytes(a.recvcount, a.recvtype) : dataBytes(a.sendcount, a.sendtype);
  if (block == 0) return MPI_SUCCESS;
  int low = 1;
  while (low < n && !(v & low)) low <<= 1;  // lowest set bit of v (>= n at the root)
  const int64_t sub = std::min<int64_t>(low, n - v);
  auto real = [&](int rel) { return (rel + root) % n; };

  if (r == root) {
    const datatype::Datatype& rt = typeOf(a.recvtype);
    auto* tmp = static_cast<unsigned char*>(s.tempBytes((n - 1) * block));  // blocks 1..n-1
    for (int m = low >> 1; m > 0; m >>= 1) {
      if (m >= n) continue;
      const int64_t childSub = std::min<int64_t>(m, n - m);
      s.recv(tmp + (m - 1) * block, childSub * block, MPI_BYTE, real(m));
    }
    if (a.sendbuf != MPI_IN_PLACE)
      s.copy(a.sendbuf, a.sendcount, a.sendtype, elemAt(a.recvbuf, root * a.recvcount, rt),
             a.recvcount, a.recvtype);
    s.endRound();
    // Relative blocks 1..n-root-1 are ranks root+1..n-1, the rest ranks 0..root-1.
    const int64_t upper = n - root - 1;
    s.copy(tmp, upper * block, MPI_BYTE, elemAt(a.recvbuf, (root + 1) * a.recvcount, rt),
           upper * a.recvcount, a.recvtype);
    s.copy(tmp + upper * block, root * block, MPI_BYTE, a.recvbuf, root * a.recvcount, a.recvtype);
    s.endRound();
    return MPI_SUCCESS;
  }

  const int parent = real(v - low);
  if (sub == 1) {  // a leaf
    s.send(a.sendbuf, a.sendcount, a.sendtype, parent);
    s.endRound();
    return MPI_SUCCESS;
  }
  auto* tmp = static_cast<unsigned char*>(s.tempBytes(sub * block));
  s.copy(a.sendbuf, a.sendcount, a.sendtype, tmp, block, MPI_BYTE);
  for (int m = low >> 1; m > 0; m >>= 1) {
    if (v + m >= n) continue;
    const int64_t childSub = std::min<int64_t>(m, n - v - m);
    s.recv(tmp + m * block, childSub * block, MPI_BYTE, real(v + m));
  }
  s.endRound();
  s.send(tmp, sub * block, MPI_BYTE, parent);
  s.endRound();
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
