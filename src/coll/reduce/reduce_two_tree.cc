// Two-tree reduction (the multirail seed's mirror image of the two-tree broadcast,
// bcast_two_tree.cc): the vector is cut into two halves, and each half is reduced up one of
// the two binary trees (coll/lanes.h) to the root, pipelined in segments. Every rank sends
// each half's partial result once and combines at most two children's in one tree only;
// where hosts have two NICs the edges are spread over both rails (twoRailColouring: no rank
// sends or receives two edges on one rail), so each NIC carries half of the vector each
// way. Commutative ops only (partial results combine ranks out of rank order).
//
// The pipeline is one round of the schedule (like the broadcast's, bcast_segments.cc): a
// rank posts the receive of every segment from every child at once, reduces a child's
// segment k into its accumulator (the lane's part of its own input, copied) as soon as it
// is in, and sends segment k on to its parent once every child's has been combined
// (Schedule's `after`; the reductions run in step order). Leaves send everything at once.
// Each child's partial results land in a temporary of the lane's size, so a fast child
// never overwrites a segment not yet combined. Segments go to a parent in the order
// (k, lane), the order the parent posts its receives from that child in.
//
// The two-tree allreduce is this reduction to rank 0 followed by the two-tree broadcast
// from rank 0 in one schedule.
#include <algorithm>
#include <vector>

#include "coll/nb_algorithms.h"
#include "coll/rules.h"

namespace ccmpi::coll {

void addReduceTwoLanes(Schedule& s, const void* sendbuf, void* recvbuf, int64_t count,
                       MPI_Datatype type, MPI_Op op, int root, bool resultHere) {
  const int n = s.size();
  const int v = (s.rank() - root + n) % n;
  auto real = [&](int rel) { return (rel + root) % n; };
  const datatype::Datatype& dt = typeOf(type);
  const int64_t size = dt.size();
  if (count == 0 || n < 2) return;
  int depth = 0;
  const std::vector<LaneEdge> edges = twoTreeEdges(n, &depth);
  // Per lane: this rank's parent (with the rail of the edge), children and height.
  const std::array<LaneView, 2> lanes = laneViews(n, edges, v, jobRails() >= 2);

  // The accumulator: the result buffer at the root (and wherever the caller wants the
  // result, allreduce), else a temporary; it starts as this rank's input.
  const void* mine = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  void* acc = recvbuf;
  if (!resultHere && v != 0) acc = s.temp(count, type);
  if (acc != mine) {
    s.copy(mine, count, type, acc, count, type);
    s.endRound();
  }
  const int64_t seg = std::max<int64_t>(1, laneSegment(count * size, depth) / size);
  const int64_t lo[3] = {0, count / 2, count};
  // Children's partial results, a lane-sized temporary per child.
  std::vector<void*> from[2];
  for (int l = 0; l < 2; ++l)
    for (size_t c = 0; c < lanes[l].children.size(); ++c)
      from[l].push_back(s.temp(lo[l + 1] - lo[l], type));
  auto segsOf = [&](int l) { return (lo[l + 1] - lo[l] + seg - 1) / seg; };
  const int64_t most = std::max(segsOf(0), segsOf(1));
  // Per segment, both lanes' receives and reductions, then the sends up: one that leaves
  // rail 0 first (as in bcast_segments.cc: a rendezvous request posted after an eager
  // segment waits on the NIC behind all of it), unless both go to the same parent, whose
  // receives match them in lane order.
  const bool swap =
      lanes[0].parent != lanes[1].parent && lanes[0].parentRail <= 0 && lanes[1].parentRail > 0;
  int combined[2];  // the last reduction of this segment in each lane
  for (int64_t k = 0; k < most; ++k) {
    for (int l = 0; l < 2; ++l) {
      combined[l] = -1;
      if (k >= segsOf(l)) continue;
      const int64_t off = k * seg, len = std::min(seg, lo[l + 1] - lo[l] - off);
      void* at = elemAt(acc, lo[l] + off, dt);
      for (size_t c = 0; c < lanes[l].children.size(); ++c) {
        void* part = elemAt(from[l][c], off, dt);
        const int in = s.recv(part, len, type, real(lanes[l].children[c].rank));
        combined[l] = s.reduce(op, part, at, len, type, in);
      }
    }
    if (v == 0) continue;
    for (int i = 0; i < 2; ++i) {
      const int l = swap ? 1 - i : i;
      if (k >= segsOf(l)) continue;
      const int64_t off = k * seg, len = std::min(seg, lo[l + 1] - lo[l] - off);
      s.send(elemAt(acc, lo[l] + off, dt), len, type, real(lanes[l].parent), lanes[l].parentRail,
             combined[l]);
    }
  }
  s.endRound();
}

int reduceTwoTreeSchedule(Plan& p) {
  p.algorithm = "two_tree";
  const CollArgs& a = p.args;
  addReduceTwoLanes(*p.schedule, a.sendbuf, a.recvbuf, a.recvcount, a.recvtype, a.op, a.root,
                    false);
  return MPI_SUCCESS;
}

int allreduceTwoTreeSchedule(Plan& p) {
  p.algorithm = "two_tree";
  const CollArgs& a = p.args;
  Schedule& s = *p.schedule;
  addReduceTwoLanes(s, a.sendbuf, a.recvbuf, a.recvcount, a.recvtype, a.op, 0, true);
  CollArgs b = a;
  b.root = 0;
  int depth = 0;
  addBcastTwoLanes(s, b, twoTreeEdges(s.size(), &depth), depth);
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
