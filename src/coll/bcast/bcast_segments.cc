// Pipelined broadcasts down trees, shared by the chain, binary-tree, two-tree and two-chain
// broadcasts.
//
// The packed buffer (B = count x size bytes) is split into lanes, one per tree (one lane:
// the whole buffer; two: each tree carries half, cut at an element), and each lane is cut
// into segments of `seg` bytes. The whole pipeline is one round of the schedule: a rank
// posts the receive of every segment at once and forwards segment k of a lane to the
// lane's children as soon as it is in (Schedule::send's `after`), so each link carries
// every byte of its lane once, and a tree of depth D moves S segments in about S + D - 1
// segment times. Nothing holds a rank's lanes or segments in step with each other: the
// rendezvous handshakes of the next segments overlap the data of the current one, and a
// lane whose parent is slow does not stall the other lane. (Rounds in lockstep, one
// segment per round, left each cable idle about half the time: a round ended only when
// every handshake of the slowest edge had.) Segments go out to each child in the order
// (k, lane), which is also the order the child posts its receives from that parent in:
// with two trees a rank's parent in one may be its parent or its child in the other. A
// child may name a rail (docs/multirail.md): the segments to it then travel on that NIC
// (Schedule::send).
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
  auto at = [&](size_t l, int64_t k) -> std::pair<int64_t, int64_t> {
    const int64_t off = lo[l] + k * seg;
    return {off, std::min(seg, lo[l + 1] - off)};
  };
  // Every segment's receives, then its forwarding, in the order (k, lane). A send that
  // leaves rail 0 (rail-directed: a rendezvous whose request and clear-to-send travel on
  // rail 0) is posted before those that stay on it, unless one of them goes to the same
  // child earlier (the child's receives match that order): posted after, the request
  // would queue on the NIC behind the whole of the eager segment just handed to TCP.
  std::vector<int> in(lanes.size());
  struct Out {
    size_t lane;
    int child, rail;
  };
  std::vector<Out> outs, later;
  std::vector<int> stays;  // children of sends of this segment that stay on rail 0
  for (int64_t k = 0; k < most; ++k) {
    outs.clear();
    later.clear();
    stays.clear();
    for (size_t l = 0; l < lanes.size(); ++l) {
      in[l] = -1;
      if (k >= segsOf(l)) continue;
      if (lanes[l].parent >= 0) {
        const auto [off, len] = at(l, k);
        in[l] = typed ? s.recv(elemAt(buf, off / size, dt), len / size, type, lanes[l].parent)
                      : s.recv(bytes + off, len, MPI_BYTE, lanes[l].parent);
      }
      for (const auto& [child, rail] : lanes[l].children) {
        const bool ahead = rail > 0 && std::find(stays.begin(), stays.end(), child) == stays.end();
        (ahead ? outs : later).push_back({l, child, rail});
        if (!ahead) stays.push_back(child);
      }
    }
    outs.insert(outs.end(), later.begin(), later.end());
    for (const Out& o : outs) {
      const auto [off, len] = at(o.lane, k);
      if (typed)
        s.send(elemAt(buf, off / size, dt), len / size, type, o.child, o.rail, in[o.lane]);
      else
        s.send(bytes + off, len, MPI_BYTE, o.child, o.rail, in[o.lane]);
    }
  }
  s.endRound();
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
