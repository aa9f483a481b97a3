// Binomial-tree scatterv. Ranks are renumbered relative to the root (v = r - root mod n);
// v's subtree is [v, v + lowbit(v)). Only the root knows the counts, so the counts go
// down the tree first:
//  1. counts: the root sends every inner child (subtree of more than one rank) the byte
//     counts of its subtree (an int64 array); an inner rank receives its array and
//     forwards each inner child its part (leaves know their own count);
//  2. data, as the binomial scatter: the root packs blocks 1..n-1 (ranks root+1, ...,
//     root-1) in relative order into a temporary and sends each child its subtree's
//     blocks in one message; an inner rank receives its subtree's blocks, forwards the
//     children's parts and unpacks its own; a leaf receives straight into recvbuf.
//     Inner ranks build this phase when phase 1 has delivered (addDeferredPhase).
// Cost: ceil(log2 n) rounds of counts then of data (the root sends both at once); the
// root sends ceil(log2 n) data messages. Any datatypes; empty subtrees move no data
// message. MPI_IN_PLACE at the root. Any size.
#include <algorithm>
#include <vector>

#include "coll/nb_algorithms.h"

namespace ccmpi::coll {

int scattervBinomialSchedule(Plan& p) {
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
  constexpr int64_t kWord = sizeof(int64_t);

  if (r == root) {
    const datatype::Datatype& st = typeOf(a.sendtype);
    // cnt[j] = bytes of relative rank j; off[j] its offset in the packed temporary.
    auto* cnt = static_cast<int64_t*>(s.tempBytes(n * kWord));
    if (!cnt) return MPI_SUCCESS;  // allocation failed: the plan reports it
    std::vector<int64_t> off(n + 1, 0);
    for (int j = 0; j < n; ++j) {
      cnt[j] = dataBytes(a.sendcounts[real(j)], a.sendtype);
      off[j + 1] = off[j] + (j == 0 ? 0 : cnt[j]);
    }
    auto* tmp = static_cast<unsigned char*>(s.tempBytes(off[n]));
    for (int j = 1; j < n; ++j) {
      const int q = real(j);
      s.copy(elemAt(a.sendbuf, a.sdispls[q], st), a.sendcounts[q], a.sendtype, tmp + off[j], cnt[j],
             MPI_BYTE);
    }
    for (int m = low >> 1; m > 0; m >>= 1) {
      if (childSub(m) > 1) s.send(cnt + m, childSub(m) * kWord, MPI_BYTE, real(m));
      const int64_t len = off[m + childSub(m)] - off[m];
      if (len > 0) s.send(tmp + off[m], len, MPI_BYTE, real(m));
    }
    if (a.recvbuf != MPI_IN_PLACE)
      s.copy(elemAt(a.sendbuf, a.sdispls[r], st), a.sendcounts[r], a.sendtype, a.recvbuf,
             a.recvcount, a.recvtype);
    s.endRound();
    return MPI_SUCCESS;
  }

  const int parent = real(v - low);
  if (sub == 1) {  // a leaf
    if (dataBytes(a.recvcount, a.recvtype) > 0) s.recv(a.recvbuf, a.recvcount, a.recvtype, parent);
    s.endRound();
    return MPI_SUCCESS;
  }
  // Phase 1: cnt[j] = bytes of relative rank v+j, j < sub.
  auto* cnt = static_cast<int64_t*>(s.tempBytes(sub * kWord));
  if (!cnt) return MPI_SUCCESS;  // allocation failed: the plan reports it
  s.recv(cnt, sub * kWord, MPI_BYTE, parent);
  s.endRound();
  for (int m = low >> 1; m > 0; m >>= 1)
    if (v + m < n && childSub(m) > 1) s.send(cnt + m, childSub(m) * kWord, MPI_BYTE, real(v + m));
  // Phase 2, built once the counts are in.
  void* recvbuf = a.recvbuf;
  const int64_t recvcount = a.recvcount;
  const MPI_Datatype recvtype = a.recvtype;
  addDeferredPhase(s, [=](Schedule& in) {
    std::vector<int64_t> off(sub + 1, 0);
    for (int j = 0; j < sub; ++j) off[j + 1] = off[j] + cnt[j];
    auto* tmp = static_cast<unsigned char*>(in.tempBytes(off[sub]));
    if (off[sub] > 0) in.recv(tmp, off[sub], MPI_BYTE, parent);
    in.endRound();
    for (int m = low >> 1; m > 0; m >>= 1) {
      if (v + m >= n) continue;
      const int64_t len = off[m + childSub(m)] - off[m];
      if (len > 0) in.send(tmp + off[m], len, MPI_BYTE, real(v + m));
    }
    if (cnt[0] > 0) in.copy(tmp, cnt[0], MPI_BYTE, recvbuf, recvcount, recvtype);
    in.endRound();
  });
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
