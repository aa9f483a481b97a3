#pragma once
// The two-lane pipelined broadcasts' shapes (coll/bcast/bcast_two_tree.cc and
// bcast_two_chain.cc), as pure functions of the communicator size: the edges of the two
// trees or chains over ranks relative to the root, and the rail of each edge.
#include <array>
#include <vector>

namespace ccmpi::coll {

// Two trees over relative ranks 0..n-1 (0 = the root) as edges (from, to, lane). The rails:
// edge i goes on rail railOf[i] (0 or 1), so that no rank sends two edges or receives two
// edges on one rail (a 2-colouring; every rank has at most two of each).
struct LaneEdge {
  int from, to, lane;
};
std::vector<int> twoRailColouring(int n, const std::vector<LaneEdge>& edges);
// The seed's two binary trees (bcast_two_tree.cc) over relative ranks 1..n-1: every rank
// interior in at most one. (The pipeline's depth in *depth.)
std::vector<LaneEdge> twoTreeEdges(int n, int* depth);
// The two chains 0 -> 1 -> ... -> n-1 and 0 -> n-1 -> ... -> 1.
std::vector<LaneEdge> twoChainEdges(int n);

// Relative rank v's place in each of the two lanes of `edges` (relative ranks, 0 = the
// root), the broadcasts' and reductions' common reading of them: its parent and the rail
// of that edge, its children with the rails of their edges (rails from
// twoRailColouring where `rails`, else -1), its depth (edges up to the root: 0 at the
// root; 1 for a rank outside the lane) and its and its children's heights (edges down to
// the deepest descendant: 0 at a leaf).
struct LaneChild {
  int rank, rail, height;
};
struct LaneView {
  int parent = -1, parentRail = -1;
  std::vector<LaneChild> children;
  int depth = 0, height = 0;
};
std::array<LaneView, 2> laneViews(int n, const std::vector<LaneEdge>& edges, int v, bool rails);
}  // namespace ccmpi::coll
