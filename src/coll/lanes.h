#pragma once
// The two-lane pipelined broadcasts' shapes (coll/bcast/bcast_two_tree.cc and
// bcast_two_chain.cc), as pure functions of the communicator size: the edges of the two
// trees or chains over ranks relative to the root, and the rail of each edge.
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
}  // namespace ccmpi::coll
