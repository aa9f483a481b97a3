#pragma once
// The packed layout the log-round allgatherv algorithms (recursive_doubling, bruck) work
// in: every block's data (recvcounts[i] elements of recvtype) packed in rank order into
// one temporary, so that any range of consecutive blocks is one message. Every rank knows
// every count, so both sides of a message agree on its size.
#include <cstdint>
#include <vector>

#include "coll/nb_algorithms.h"

namespace ccmpi::coll {

struct PackedBlocks {
  std::vector<int64_t> off;  // off[i] = first byte of block i; off[n] = total
  unsigned char* buf = nullptr;
  int64_t bytes(int lo, int hi) const { return off[hi] - off[lo]; }
  unsigned char* at(int i) const { return buf + off[i]; }
};

// Lays out the blocks, allocates the temporary (nothing when the total is 0) and adds the
// steps that pack the own block into it (and, unless in place, copy it into recvbuf).
inline PackedBlocks packOwnBlock(Schedule& s, const CollArgs& a) {
  const int n = s.size(), r = s.rank();
  const datatype::Datatype& rt = typeOf(a.recvtype);
  PackedBlocks pb;
  pb.off.assign(n + 1, 0);
  for (int i = 0; i < n; ++i) pb.off[i + 1] = pb.off[i] + dataBytes(a.recvcounts[i], a.recvtype);
  void* own = elemAt(a.recvbuf, a.rdispls[r], rt);
  if (a.sendbuf != MPI_IN_PLACE)
    s.copy(a.sendbuf, a.sendcount, a.sendtype, own, a.recvcounts[r], a.recvtype);
  if (n == 1 || pb.off[n] == 0) return pb;
  pb.buf = static_cast<unsigned char*>(s.tempBytes(pb.off[n]));
  if (!pb.buf) return pb;
  const int64_t b = pb.bytes(r, r + 1);
  if (b > 0) s.copy(own, a.recvcounts[r], a.recvtype, pb.at(r), b, MPI_BYTE);
  return pb;
}

// Unpacks every block but the own one into its place in recvbuf.
inline void unpackBlocks(Schedule& s, const CollArgs& a, const PackedBlocks& pb) {
  const int n = s.size(), r = s.rank();
  const datatype::Datatype& rt = typeOf(a.recvtype);
  for (int i = 0; i < n; ++i) {
    const int64_t b = pb.bytes(i, i + 1);
    if (i == r || b == 0) continue;
    s.copy(pb.at(i), b, MPI_BYTE, elemAt(a.recvbuf, a.rdispls[i], rt), a.recvcounts[i], a.recvtype);
  }
}

}  // namespace ccmpi::coll
