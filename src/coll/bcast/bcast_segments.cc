// Pipelined broadcasts down trees, shared by the chain, binary-tree, two-tree and two-chain
// broadcasts.
//
// The packed buffer (B = count x size bytes) is split into lanes, one per tree (one lane:
// the whole buffer; two: each tree carries half, cut at an element), and each lane is cut
// into segments of `seg` bytes. A rank at depth d of a lane receives its segment k in round
// k + d - 1 and forwards it to the lane's children in round k + d (the root sends segment
// k in round k), so a tree of depth D moves S segments in S + D - 1 rounds and each link
// carries every byte of its lane once. Both ends of every message post it in the same
// round: with two trees a rank's parent in one may be its child in the other, and rounds
// numbered per rank would wait on each other. A child may name a rail
// (docs/multirail.md): the segments to it then travel on that NIC (Schedule::send).
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

void addBcastLanes(Schedule& s, void* buf, int64_t count, MPI_Datatype type,
                   const std::vector<BcastLane>& lanes, int64_t segment) {
  const datatype::Datatype& dt = typeOf(type);
  const int64_t size = dt.size();
  const int64_t total = count * size;
  if (total == 0 || lanes.empty()) return;
  const int64_t nl = static_cast<int64_t>(lanes.size());
  const bool root =
      std::all_of(lanes.begin(), lanes.end(), [](const BcastLane& l) { return l.parent < 0; });
  // Lane i: bytes [lo[i], lo[i+1]), cut at elements.
  std::vector<int64_t> lo(lanes.size() + 1);
  for (int64_t i = 0; i <= nl; ++i) lo[static_cast<size_t>(i)] = count * i / nl * size;
  int64_t seg = segment <= 0 ? total : segment;
  const bool typed = !dt.contiguous() && seg % size == 0;
  unsigned char* bytes = nullptr;  // the byte stream when not typed
  if (dt.contiguous()) {
    bytes = static_cast<unsigned char*>(byteAt(buf, dt.trueLb()));
  } else if (!typed) {
    bytes = static_cast<unsigned char*>(s.tempBytes(total));
    if (root) s.copy(buf, count, type, bytes, total, MPI_BYTE);
  }
  auto segsOf = [&](size_t l) { return (lo[l + 1] - lo[l] + seg - 1) / seg; };
  int64_t most = 0;
  for (size_t l = 0; l < lanes.size(); ++l) most = std::max(most, segsOf(l));
  auto post = [&](size_t l, int64_t k, bool send) {
    const int64_t off = lo[l] + k * seg, len = std::min(seg, lo[l + 1] - off);
    const BcastLane& lane = lanes[l];
    if (typed) {
      void* at = elemAt(buf, off / size, dt);
      if (send)
        for (const auto& [child, rail] : lane.children) s.send(at, len / size, type, child, rail);
      else
        s.recv(at, len / size, type, lane.parent);
    } else if (send) {
      for (const auto& [child, rail] : lane.children)
        s.send(bytes + off, len, MPI_BYTE, child, rail);
    } else {
      s.recv(bytes + off, len, MPI_BYTE, lane.parent);
    }
  };
  int deepest = 0;
  for (const BcastLane& l : lanes) deepest = std::max(deepest, l.parent < 0 ? 0 : l.depth);
  for (int64_t t = 0; t <= most + deepest; ++t) {
    // Receives first, lane by lane, then the sends: a parent that feeds both lanes of a
    // rank (2 ranks) sends them in lane order, and the receives are posted in that order.
    for (int pass = 0; pass < 2; ++pass)
      for (size_t l = 0; l < lanes.size(); ++l) {
        const int64_t segs = segsOf(l);
        const BcastLane& lane = lanes[l];
        const int64_t d = lane.parent < 0 ? 0 : lane.depth;
        const int64_t in = t - d + 1, out = t - d;
        if (pass == 0 && lane.parent >= 0 && in >= 0 && in < segs) post(l, in, false);
        if (pass == 1 && out >= 0 && out < segs && !lane.children.empty()) post(l, out, true);
      }
    s.endRound();
  }
  if (!typed && !dt.contiguous() && !root) {
    s.copy(bytes, total, MPI_BYTE, buf, count, type);
    s.endRound();
  }
}

int64_t pipelineSegment() {
  return static_cast<int64_t>(gSegment.get());
}

void addBcastPipelined(Schedule& s, void* buf, int64_t count, MPI_Datatype type, int parent,
                       const std::vector<int>& children) {
  BcastLane lane;
  lane.parent = parent;
  lane.depth = 1;  // one tree: every rank may count its rounds from its own first receive
  for (int c : children) lane.children.push_back({c, -1});
  addBcastLanes(s, buf, count, type, {lane}, static_cast<int64_t>(gSegment.get()));
}

}  // namespace ccmpi::coll
