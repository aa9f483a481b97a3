// Two-tree broadcast (the multirail seed, ../shared/seeds/004; Sanders, Speck and Traeff's
// two-tree broadcast; NCCL's double binary tree). The ranks other than the root form two
// binary trees such that every rank is interior in at most one of them; the root sends
// half of the buffer down each tree, pipelined in segments (bcast_segments.cc). So every
// rank receives each half once and sends at most one half twice: where hosts have two NICs
// (docs/multirail.md), the edges are spread over both rails so that no rank sends or
// receives two edges on one rail, and each NIC carries half of the buffer each way. Cost:
// log2(n) hops of latency plus B/(2b) on two rails of b each (B/b on one rail, like the
// chain but with a logarithmic depth).
//
// Tree 1 is the in-order binary tree over positions 1..m (m = n-1, position = the rank
// relative to the root): position p has height ctz(p), its children are p -+ 2^(h-1)
// (the right one moved down while beyond m), so odd positions are the leaves and even
// positions interior. Tree 2 is tree 1 mirrored (p -> m+1-p) when m is even, which makes
// tree 1's leaves tree 2's interior ranks; shifted by one (p -> p+1, m -> 1) when m is
// odd (then rank m is a leaf in both).
#include <algorithm>
#include <cmath>
#include <vector>

#include "base/link.h"
#include "base/tunables.h"
#include "coll/nb_algorithms.h"
#include "coll/rules.h"

namespace ccmpi::coll {
namespace {

Tunable<uint64_t> gLaneSegment(
    "CCMPI_BCAST_LANE_SEGMENT", 0,
    "segment size of the two-lane pipelines (broadcast two_tree and two_chain, reduce and "
    "allreduce two_tree), bytes; 0 = from the cost model: sqrt(lane bytes x hop latency x "
    "rail rate / depth)");
Tunable<double> gHopUs("CCMPI_RAIL_HOP_US", 300,
                       "latency of one hop of a pipelined broadcast segment (microseconds: the "
                       "rendezvous handshake and the acknowledgement of a rail-directed "
                       "message), for the two-lane broadcasts' segment size");

}  // namespace

double railHopUs() {
  return gHopUs.get();
}

int64_t laneSegment(int64_t bytes, int depth) {
  if (gLaneSegment.get() > 0) return static_cast<int64_t>(gLaneSegment.get());
  // (L/s + depth) x (hop + s/b) over s, for a lane of L bytes at b bytes/s per rail.
  const double lane = static_cast<double>(bytes) / 2;
  const double b = tcpPayloadBytesPerSecond(linkMbits());
  const double s = std::sqrt(lane * gHopUs.get() * 1e-6 * b / std::max(1, depth));
  const int64_t kPage = 4096;
  return std::clamp<int64_t>(static_cast<int64_t>(s) / kPage * kPage, 2 * kPage, 1 << 20);
}

void addBcastTwoLanes(Schedule& s, const CollArgs& a, const std::vector<LaneEdge>& edges,
                      int depth) {
  const int n = s.size();
  const int v = (s.rank() - a.root + n) % n;
  auto real = [&](int rel) { return (rel + a.root) % n; };
  std::vector<BcastLane> lanes(2);
  const std::array<LaneView, 2> views = laneViews(n, edges, v, jobRails() >= 2);
  for (size_t l = 0; l < 2; ++l) {
    if (views[l].parent >= 0) lanes[l].parent = real(views[l].parent);
    lanes[l].depth = views[l].depth;
    for (const LaneChild& c : views[l].children)
      lanes[l].children.push_back({real(c.rank), c.rail});
  }
  const int64_t bytes = a.recvcount * typeOf(a.recvtype).size();
  addBcastLanes(s, a.recvbuf, a.recvcount, a.recvtype, lanes, laneSegment(bytes, depth));
}

int bcastTwoTreeSchedule(Plan& p) {
  p.algorithm = "two_tree";
  int depth = 0;
  const std::vector<LaneEdge> edges = twoTreeEdges(p.schedule->size(), &depth);
  addBcastTwoLanes(*p.schedule, p.args, edges, depth);
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
