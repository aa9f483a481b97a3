// Trees and chains of the two-lane pipelined broadcasts, and their rails (lanes.h).
#include "coll/lanes.h"

#include <algorithm>
#include <cstddef>

namespace ccmpi::coll {
namespace {

// Tree 1's parent of position p (1..m), 0 for its root.
int inorderParent(int p, int m) {
  int b = p & -p;
  if (2 * b > m) return 0;  // the largest power of two <= m
  for (;;) {
    const int q = (p & (2 * b)) ? p - b : p + b;
    if (q <= m) return q;
    p = q;  // beyond m: q stands in for its own parent
    b *= 2;
  }
}

}  // namespace

std::vector<LaneEdge> twoTreeEdges(int n, int* depth) {
  const int m = n - 1;
  std::vector<LaneEdge> edges;
  *depth = 0;
  if (m < 1) return edges;
  // Position of relative rank x (1..m) in tree 2, and back.
  auto pos2 = [m](int x) { return m % 2 == 0 ? m + 1 - x : x % m + 1; };
  auto node2 = [m](int q) { return m % 2 == 0 ? m + 1 - q : (q == 1 ? m : q - 1); };
  for (int lane = 0; lane < 2; ++lane)
    for (int x = 1; x <= m; ++x) {
      const int p = lane == 0 ? x : pos2(x);
      const int up = inorderParent(p, m);
      edges.push_back({up == 0 ? 0 : (lane == 0 ? up : node2(up)), x, lane});
    }
  // Depth: hops from the root to the deepest rank (the root's hop included).
  for (int x = 1; x <= m; ++x) {
    int d = 1;
    for (int p = x; inorderParent(p, m) != 0; p = inorderParent(p, m)) ++d;
    *depth = std::max(*depth, d);
  }
  return edges;
}

std::vector<int> twoRailColouring(int n, const std::vector<LaneEdge>& edges) {
  // Edges that share a sender or a receiver must differ. Each edge meets at most one other
  // at each end, and a cycle of such meetings alternates between senders and receivers, so
  // it is even: colour each chain of meetings alternately, from edge 0 on.
  std::vector<std::vector<int>> out(static_cast<size_t>(n)), in(static_cast<size_t>(n));
  for (size_t i = 0; i < edges.size(); ++i) {
    out[static_cast<size_t>(edges[i].from)].push_back(static_cast<int>(i));
    in[static_cast<size_t>(edges[i].to)].push_back(static_cast<int>(i));
  }
  std::vector<int> colour(edges.size(), -1);
  std::vector<int> stack;
  for (size_t start = 0; start < edges.size(); ++start) {
    if (colour[start] >= 0) continue;
    colour[start] = 0;
    stack.push_back(static_cast<int>(start));
    while (!stack.empty()) {
      const int e = stack.back();
      stack.pop_back();
      const LaneEdge& x = edges[static_cast<size_t>(e)];
      for (const std::vector<int>* group :
           {&out[static_cast<size_t>(x.from)], &in[static_cast<size_t>(x.to)]})
        for (int f : *group)
          if (f != e && colour[static_cast<size_t>(f)] < 0) {
            colour[static_cast<size_t>(f)] = 1 - colour[static_cast<size_t>(e)];
            stack.push_back(f);
          }
    }
  }
  return colour;
}

std::vector<LaneEdge> twoChainEdges(int n) {
  std::vector<LaneEdge> edges;
  for (int x = 1; x < n; ++x) edges.push_back({x - 1, x, 0});
  for (int x = n - 1; x >= 1; --x) edges.push_back({x == n - 1 ? 0 : x + 1, x, 1});
  return edges;
}

std::array<LaneView, 2> laneViews(int n, const std::vector<LaneEdge>& edges, int v, bool rails) {
  const std::vector<int> colour = rails ? twoRailColouring(n, edges) : std::vector<int>();
  std::array<LaneView, 2> lanes;
  std::vector<int> up[2] = {std::vector<int>(static_cast<size_t>(n), -1),
                            std::vector<int>(static_cast<size_t>(n), -1)};
  for (size_t i = 0; i < edges.size(); ++i) {
    const LaneEdge& e = edges[i];
    LaneView& lane = lanes[static_cast<size_t>(e.lane)];
    const int rail = rails ? colour[i] : -1;
    up[e.lane][static_cast<size_t>(e.to)] = e.from;
    if (e.to == v) {
      lane.parent = e.from;
      lane.parentRail = rail;
    }
    if (e.from == v) lane.children.push_back({e.to, rail, 0});
  }
  for (int l = 0; l < 2; ++l) {
    LaneView& lane = lanes[static_cast<size_t>(l)];
    const std::vector<int>& u = up[l];
    for (int x = v; x > 0 && lane.depth < n; x = u[static_cast<size_t>(x)]) ++lane.depth;
    std::vector<int> height(static_cast<size_t>(n), 0);
    for (int x = 1; x < n; ++x)  // each rank raises its ancestors' heights
      for (int y = x, h = 0; y > 0 && h < n; y = u[static_cast<size_t>(y)], ++h) {
        const int p = u[static_cast<size_t>(y)];
        if (p >= 0)
          height[static_cast<size_t>(p)] = std::max(height[static_cast<size_t>(p)], h + 1);
      }
    lane.height = height[static_cast<size_t>(v)];
    for (LaneChild& c : lane.children) c.height = height[static_cast<size_t>(c.rank)];
  }
  return lanes;
}

}  // namespace ccmpi::coll
