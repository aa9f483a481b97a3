// Pipelined broadcast down a tree, shared by the chain and binary-tree broadcasts.
//
// The packed buffer (B = count x size bytes) is cut into segments of CCMPI_BCAST_SEGMENT
// bytes (0 = one segment). Round k: a rank receives segment k from its parent while it
// forwards segment k-1 to its children (the root sends segment k in round k), so a tree
// of depth d moves S segments in S + d - 1 rounds and each link carries every byte once.
//
// The segment grid is in bytes, the same at every rank whatever its datatype (ranks may
// use different types of the same signature, e.g. contiguous(3, MPI_INT) x k at the root
// and MPI_INT x 3k elsewhere). How a rank cuts its own buffer on that grid:
//  - contiguous type: byte ranges of the buffer itself, sent and received as MPI_BYTE;
//  - non-contiguous type whose size divides the segment: whole elements, sent typed;
//  - otherwise (a segment would split an element): the buffer goes through a packed
//    temporary of B bytes, packed at the root first / unpacked at the end elsewhere.
#include <algorithm>

#include "base/tunables.h"
#include "coll/nb_algorithms.h"

namespace ccmpi::coll {
namespace {

Tunable<uint64_t> gSegment("CCMPI_BCAST_SEGMENT", 64 * 1024,
                           "segment size of the pipelined broadcasts (chain, binary_tree), "
                           "bytes of the packed buffer; 0 = no segmentation");

}  // namespace

void addBcastPipelined(Schedule& s, void* buf, int64_t count, MPI_Datatype type, int parent,
                       const std::vector<int>& children) {
  const datatype::Datatype& dt = typeOf(type);
  const int64_t size = dt.size();
  const int64_t total = count * size;
  if (total == 0) return;
  const int64_t seg = gSegment.get() == 0 ? total : static_cast<int64_t>(gSegment.get());
  const int64_t segs = (total + seg - 1) / seg;
  const bool typed = !dt.contiguous() && seg % size == 0;
  unsigned char* bytes = nullptr;  // the byte stream when not typed
  if (dt.contiguous()) {
    bytes = static_cast<unsigned char*>(byteAt(buf, dt.trueLb()));
  } else if (!typed) {
    bytes = static_cast<unsigned char*>(s.tempBytes(total));
    if (parent < 0) s.copy(buf, count, type, bytes, total, MPI_BYTE);
  }
  auto post = [&](int64_t k, bool send) {
    const int64_t off = k * seg, len = std::min(seg, total - off);
    if (typed) {
      void* at = elemAt(buf, off / size, dt);
      if (send)
        for (int child : children) s.send(at, len / size, type, child);
      else
        s.recv(at, len / size, type, parent);
    } else if (send) {
      for (int child : children) s.send(bytes + off, len, MPI_BYTE, child);
    } else {
      s.recv(bytes + off, len, MPI_BYTE, parent);
    }
  };
  for (int64_t k = 0; k <= segs; ++k) {
    if (parent >= 0 && k < segs) post(k, false);
    const int64_t out = parent >= 0 ? k - 1 : k;
    if (out >= 0 && out < segs && !children.empty()) post(out, true);
    s.endRound();
  }
  if (!typed && !dt.contiguous() && parent >= 0) {
    s.copy(bytes, total, MPI_BYTE, buf, count, type);
    s.endRound();
  }
}

}  // namespace ccmpi::coll
