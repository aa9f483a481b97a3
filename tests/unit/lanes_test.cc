// The two-lane broadcasts' shapes (coll/lanes.h): two spanning trees of the non-root ranks
// fed by the root, every rank interior in at most one tree, and rails such that no rank
// sends or receives two edges on one rail.
#include "coll/lanes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <tuple>
#include <utility>

namespace ccmpi::coll {
namespace {

// Checks that each lane is a tree over 0..n-1 rooted at 0 (every other rank has exactly
// one parent and reaches 0), and returns the deepest rank's hop count.
int checkLanesAreTrees(int n, const std::vector<LaneEdge>& edges) {
  int deepest = 0;
  for (int lane = 0; lane < 2; ++lane) {
    std::map<int, int> parent;
    for (const LaneEdge& e : edges) {
      if (e.lane != lane) continue;
      EXPECT_GE(e.from, 0);
      EXPECT_LT(e.from, n);
      EXPECT_NE(e.to, 0) << "n " << n << ": the root receives nothing";
      EXPECT_TRUE(parent.emplace(e.to, e.from).second) << "n " << n << ": two parents of " << e.to;
    }
    EXPECT_EQ(parent.size(), static_cast<size_t>(n - 1)) << "n " << n << " lane " << lane;
    for (int x = 1; x < n; ++x) {
      int hops = 0;
      for (int y = x; y != 0 && hops <= n; y = parent[y]) ++hops;
      EXPECT_LE(hops, n - 1) << "n " << n << ": a cycle through " << x;
      deepest = std::max(deepest, hops);
    }
  }
  return deepest;
}

void checkColouring(int n, const std::vector<LaneEdge>& edges) {
  const std::vector<int> colour = twoRailColouring(n, edges);
  ASSERT_EQ(colour.size(), edges.size());
  std::map<int, std::multiset<int>> out, in;
  for (size_t i = 0; i < edges.size(); ++i) {
    ASSERT_TRUE(colour[i] == 0 || colour[i] == 1);
    out[edges[i].from].insert(colour[i]);
    in[edges[i].to].insert(colour[i]);
  }
  for (const auto& [r, c] : out) {
    EXPECT_LE(c.size(), 2u) << "n " << n << " rank " << r;
    EXPECT_LE(c.count(0), 1u) << "n " << n << ": rank " << r << " sends twice on rail 0";
    EXPECT_LE(c.count(1), 1u) << "n " << n << ": rank " << r << " sends twice on rail 1";
  }
  for (const auto& [r, c] : in) {
    EXPECT_EQ(c.size(), 2u) << "n " << n << " rank " << r;
    EXPECT_EQ(c.count(0), 1u) << "n " << n << ": rank " << r << " receives twice on one rail";
  }
}

TEST(Lanes, TwoTreesEveryRankInteriorInAtMostOne) {
  for (int n = 2; n <= 300; ++n) {
    int depth = 0;
    const std::vector<LaneEdge> edges = twoTreeEdges(n, &depth);
    ASSERT_EQ(edges.size(), static_cast<size_t>(2 * (n - 1)));
    EXPECT_EQ(checkLanesAreTrees(n, edges), depth) << "n " << n;
    // Binary trees of logarithmic depth: the root's hop and floor(log2(n-1)) + 1 levels.
    int log2 = 0;
    while ((2 << log2) <= n - 1) ++log2;
    EXPECT_LE(depth, log2 + 2) << "n " << n;
    std::map<int, std::set<int>> lanesWithChildren;
    std::map<std::pair<int, int>, int> children;
    for (const LaneEdge& e : edges) {
      if (e.from == 0) continue;
      lanesWithChildren[e.from].insert(e.lane);
      const std::pair<int, int> key(e.from, e.lane);
      EXPECT_LE(++children[key], 2) << "n " << n;
    }
    for (const auto& [r, lanes] : lanesWithChildren)
      EXPECT_EQ(lanes.size(), 1u) << "n " << n << ": rank " << r << " interior in both trees";
    // The root feeds each tree once, at two different ranks from 3 ranks on.
    std::vector<int> fed;
    for (const LaneEdge& e : edges) {
      if (e.from == 0) fed.push_back(e.to);
    }
    ASSERT_EQ(fed.size(), 2u) << "n " << n;
    if (n >= 3) {
      EXPECT_NE(fed[0], fed[1]) << "n " << n;
    }
    checkColouring(n, edges);
  }
}

TEST(Lanes, TwoChainsInOppositeDirections) {
  for (int n = 2; n <= 100; ++n) {
    const std::vector<LaneEdge> edges = twoChainEdges(n);
    ASSERT_EQ(edges.size(), static_cast<size_t>(2 * (n - 1)));
    EXPECT_EQ(checkLanesAreTrees(n, edges), n - 1) << "n " << n;
    checkColouring(n, edges);
  }
}

// Known shape: 7 ranks (positions 1..6, even: tree 2 mirrors tree 1).
TEST(Lanes, TwoTreesOfSevenRanks) {
  int depth = 0;
  const std::vector<LaneEdge> edges = twoTreeEdges(7, &depth);
  std::set<std::tuple<int, int, int>> got;
  for (const LaneEdge& e : edges) got.insert({e.lane, e.from, e.to});
  // Tree 1: 4 is the root, 2 -> 1, 3 and 4 -> 2, 6; 6 -> 5.
  const std::set<std::tuple<int, int, int>> want = {{0, 0, 4}, {0, 4, 2}, {0, 4, 6}, {0, 2, 1},
                                                    {0, 2, 3}, {0, 6, 5}, {1, 0, 3}, {1, 3, 5},
                                                    {1, 3, 1}, {1, 5, 6}, {1, 5, 4}, {1, 1, 2}};
  EXPECT_EQ(got, want);
  EXPECT_EQ(depth, 3);
}

// The ranks' views of the lanes agree with the edges and with each other: a rank's parent
// lists it as a child on the same rail, depth grows by one per edge down, height is one
// more than the highest child's (0 at a leaf), and the 7-rank trees' known shape.
TEST(Lanes, ViewsOfEveryRank) {
  for (int n = 2; n <= 40; ++n) {
    int depth = 0;
    for (const std::vector<LaneEdge>& edges : {twoTreeEdges(n, &depth), twoChainEdges(n)}) {
      std::vector<std::array<LaneView, 2>> views;
      for (int v = 0; v < n; ++v) views.push_back(laneViews(n, edges, v, true));
      for (int l = 0; l < 2; ++l) {
        EXPECT_EQ(views[0][l].parent, -1);
        EXPECT_EQ(views[0][l].depth, 0);
        for (int v = 0; v < n; ++v) {
          const LaneView& me = views[static_cast<size_t>(v)][l];
          int highest = -1;
          for (const LaneChild& c : me.children) {
            const LaneView& child = views[static_cast<size_t>(c.rank)][l];
            EXPECT_EQ(child.parent, v) << "n " << n << " lane " << l;
            EXPECT_EQ(child.parentRail, c.rail);
            EXPECT_GE(c.rail, 0);
            EXPECT_EQ(child.depth, me.depth + 1);
            EXPECT_EQ(child.height, c.height);
            highest = std::max(highest, c.height);
          }
          EXPECT_EQ(me.height, highest + 1) << "n " << n << " lane " << l << " rank " << v;
          if (v > 0) {
            EXPECT_GE(me.parent, 0);
          }
        }
      }
      // Without rails every edge says -1.
      for (int v = 0; v < n; ++v)
        for (const LaneView& lane : laneViews(n, edges, v, false)) {
          EXPECT_EQ(lane.parentRail, -1);
          for (const LaneChild& c : lane.children) EXPECT_EQ(c.rail, -1);
        }
    }
  }
  int depth = 0;
  const std::vector<LaneEdge> edges = twoTreeEdges(7, &depth);
  const std::array<LaneView, 2> four = laneViews(7, edges, 4, false);
  EXPECT_EQ(four[0].parent, 0);
  EXPECT_EQ(four[0].depth, 1);
  EXPECT_EQ(four[0].height, 2);  // 4 -> 2 -> 1
  EXPECT_EQ(four[1].parent, 5);
  EXPECT_EQ(four[1].depth, 3);  // 0 -> 3 -> 5 -> 4
  EXPECT_EQ(four[1].height, 0);
}

}  // namespace
}  // namespace ccmpi::coll
