// The first phase of the scatter-allgather broadcasts (van de Geijn): the buffer seen as
// a stream of B = count x size bytes, cut into n blocks of chunk = ceil(B/n) bytes (the
// last ones short or empty when B is not a multiple of n or smaller than n), and scattered
// down a binomial tree so that block i ends up at relative rank i (v = r - root mod n).
// A rank receives once, from v minus its lowest set bit, the blocks of its subtree
// [v, v + lowbit) and then sends each child v + 2^k its subtree's blocks, one after the
// other, the largest subtree first. (All at once, the sends shared the rank's cable, so
// the first child, whose subtree is on the longest path, had its half only when the root
// had sent everything: 2.5 s instead of 1.3 for the scatter of 4 MiB on 16 hosts x 2 rails
// at 12.5 Mbit/s, in ccmpi-sim and on the emulated cluster alike.) A send completes once
// its data is in the socket's buffer, so "one after the other" needs the child to say its
// data is in: a child of kScatterAckMin bytes or more with a later sibling answers with an
// empty message, and the parent's next send waits for it (at 64 KiB-1 MiB on that cluster,
// the scatter-allgathers 8-41% faster).
// ceil(log2 n) hops; the root sends about B (n-1)/n bytes in all. Empty ranges move no
// message (both sides compute them alike).
//
// Non-contiguous types: the root packs the buffer into a temporary first, the other ranks
// receive into one and unpack it at the very end; contiguous buffers are used in place.
#include <algorithm>

#include "coll/nb_algorithms.h"

namespace ccmpi::coll {

unsigned char* addBcastPackBytes(Schedule& s, void* buf, int64_t count, MPI_Datatype type,
                                 int root) {
  const datatype::Datatype& dt = typeOf(type);
  if (dt.contiguous()) return static_cast<unsigned char*>(byteAt(buf, dt.trueLb()));
  const int64_t bytes = dataBytes(count, type);
  auto* tmp = static_cast<unsigned char*>(s.tempBytes(bytes));
  if (s.rank() == root) s.copy(buf, count, type, tmp, bytes, MPI_BYTE);
  return tmp;
}

void addBcastUnpackBytes(Schedule& s, unsigned char* bytes, void* buf, int64_t count,
                         MPI_Datatype type, int root) {
  const datatype::Datatype& dt = typeOf(type);
  if (dt.contiguous() || s.rank() == root) return;
  s.copy(bytes, dataBytes(count, type), MPI_BYTE, buf, count, type);
  s.endRound();
}

void addBcastScatterBytes(Schedule& s, unsigned char* bytes, int64_t total, int64_t chunk,
                          int root) {
  const int n = s.size();
  const int v = (s.rank() - root + n) % n;
  // Byte offset of block i (clipped).
  auto at = [&](int64_t i) { return std::min(total, i * chunk); };
  auto range = [&](int64_t first, int64_t last, int64_t* off, int64_t* len) {
    *off = at(first);
    *len = at(std::min<int64_t>(last, n)) - *off;
  };
  // Whether the child p + mask of p has a later sibling with blocks to receive, and so
  // answers its data with an empty message when it is as large as kScatterAckMin.
  auto acked = [&](int p, int mask2, int64_t len) {
    if (len < kScatterAckMin) return false;
    for (int m = mask2 >> 1; m > 0; m >>= 1) {
      int64_t o, l;
      range(p + m, p + 2 * m, &o, &l);
      if (p + m < n && l > 0) return true;
    }
    return false;
  };
  int mask = 1;
  while (mask < n) {
    if (v & mask) {
      int64_t off, len;
      range(v, v + mask, &off, &len);
      const int parent = (v - mask + root) % n;
      if (len > 0) {
        const int in = s.recv(bytes + off, len, MPI_BYTE, parent);
        if (acked(v - mask, mask, len)) s.send(nullptr, 0, MPI_BYTE, parent, -1, in);
      }
      s.endRound();
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (v + mask >= n) continue;
    int64_t off, len;
    range(v + mask, v + 2 * mask, &off, &len);
    const int child = (v + mask + root) % n;
    if (len > 0) s.send(bytes + off, len, MPI_BYTE, child);
    if (len > 0 && acked(v, mask, len)) s.recv(nullptr, 0, MPI_BYTE, child);
    s.endRound();
  }
}

}  // namespace ccmpi::coll
