// Binomial-tree gatherv. Ranks are renumbered relative to the root (v = r - root mod n);
// v's subtree is [v, v + lowbit(v)). Only the root knows the counts, so it runs in two
// phases:
//  1. counts: every rank whose parent is not the root gathers the byte counts of its
//     subtree from its children (one int64 array per child) and sends them on, so each
//     inner rank knows how much each child's subtree will send (leaves know their own);
//  2. data, as the binomial gather: a rank receives each child's subtree blocks into a
//     temporary holding its subtree's blocks in relative order (own block first, packed)
//     and sends it to its parent in one message. The root knows every count from
//     recvcounts, receives blocks 1..n-1 packed and unpacks each at its displacement.
//     Inner ranks build this phase when phase 1 has delivered (addDeferredPhase).
// Cost: 2 ceil(log2 n) rounds (the counts travel one tree ahead of the data); the root
// receives ceil(log2 n) messages. Latency-optimal for many small blocks. Any datatypes;
// empty subtrees move no data message. MPI_IN_PLACE at the root. Any size.
#include <algorithm>
#include <vector>

#include "coll/nb_algorithms.h"

namespace ccmpi::coll {

int gathervBinomialSchedule(Plan& p) {
  p.algorithm = "binomial";
  Schedule& s = *p.schedule;
  const CollArgs& a = p.args;
  const int n = s.size(), r = s.rank(), root = a.root;
  const int v = (r - root + n) % n;
  int low = 1;
  while (low < n && !(v & low)) low <<= 1;  // lowest set bit of v (>= n at the root)
  const int sub = std::min(low, n - v);
  auto real = [n, root](int rel) { return (rel + root) % n; };
  auto childSub = [n, v](int m) { return std::min(m, n - v - m); };  // child v+m's subtree

  if (r == root) {
    const datatype::Datatype& rt = typeOf(a.recvtype);
    // Byte offsets of relative blocks 1..n-1 in the temporary (off[j] for block j).
    std::vector<int64_t> off(n + 1, 0);
    for (int j = 1; j < n; ++j) off[j + 1] = off[j] + dataBytes(a.recvcounts[real(j)], a.recvtype);
    auto* tmp = static_cast<unsigned char*>(s.tempBytes(off[n]));
    for (int m = low >> 1; m > 0; m >>= 1) {
      const int64_t len = off[m + childSub(m)] - off[m];
      if (len > 0) s.recv(tmp + off[m], len, MPI_BYTE, real(m));
    }
    if (a.sendbuf != MPI_IN_PLACE)
      s.copy(a.sendbuf, a.sendcount, a.sendtype, elemAt(a.recvbuf, a.rdispls[r], rt),
             a.recvcounts[r], a.recvtype);
    s.endRound();
    for (int j = 1; j < n; ++j) {
      const int q = real(j);
      s.copy(tmp + off[j], off[j + 1] - off[j], MPI_BYTE, elemAt(a.recvbuf, a.rdispls[q], rt),
             a.recvcounts[q], a.recvtype);
    }
    s.endRound();
    return MPI_SUCCESS;
  }

  const int parent = real(v - low);
  const bool countsUp = v - low != 0;  // the root needs no counts
  const int64_t own = dataBytes(a.sendcount, a.sendtype);
  if (sub == 1) {  // a leaf: its count, then its block
    if (countsUp) {
      auto* cnt = static_cast<int64_t*>(s.tempBytes(sizeof(int64_t)));
      if (cnt) *cnt = own;
      s.send(cnt, sizeof(int64_t), MPI_BYTE, parent);
    }
    if (own > 0) s.send(a.sendbuf, a.sendcount, a.sendtype, parent);
    s.endRound();
    return MPI_SUCCESS;
  }
  // Phase 1: cnt[j] = bytes of relative rank v+j, j < sub.
  auto* cnt = static_cast<int64_t*>(s.tempBytes(sub * static_cast<int64_t>(sizeof(int64_t))));
  if (!cnt) return MPI_SUCCESS;  // allocation failed: the plan reports it
  cnt[0] = own;
  for (int m = low >> 1; m > 0; m >>= 1)
    if (v + m < n)
      s.recv(cnt + m, childSub(m) * static_cast<int64_t>(sizeof(int64_t)), MPI_BYTE, real(v + m));
  s.endRound();
  if (countsUp) s.send(cnt, sub * static_cast<int64_t>(sizeof(int64_t)), MPI_BYTE, parent);
  // Phase 2, built once the counts are in.
  const void* sendbuf = a.sendbuf;
  const int64_t sendcount = a.sendcount;
  const MPI_Datatype sendtype = a.sendtype;
  addDeferredPhase(s, [=](Schedule& in) {
    std::vector<int64_t> off(sub + 1, 0);
    for (int j = 0; j < sub; ++j) off[j + 1] = off[j] + cnt[j];
    auto* tmp = static_cast<unsigned char*>(in.tempBytes(off[sub]));
    if (own > 0) in.copy(sendbuf, sendcount, sendtype, tmp, own, MPI_BYTE);
    for (int m = low >> 1; m > 0; m >>= 1) {
      if (v + m >= n) continue;
      const int64_t len = off[m + childSub(m)] - off[m];
      if (len > 0) in.recv(tmp + off[m], len, MPI_BYTE, real(v + m));
    }
    in.endRound();
    if (off[sub] > 0) in.send(tmp, off[sub], MPI_BYTE, parent);
    in.endRound();
  });
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
