// Cost models of the broadcasts (cost_model.h). Notation: p ranks, B bytes, b bytes per
// microsecond of one rail, R rails, l = hopUs, u = roundUs, s a pipeline's segment, S its
// number of segments, D a tree's depth.
#include "coll/cost_model.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "base/link.h"
#include "base/tunables.h"
#include "coll/lanes.h"
#include "coll/nb_algorithms.h"
#include "coll/rules.h"
#include "p2p/engine.h"
#include "p2p/p2p.h"
#include "transport/mcast.h"

namespace ccmpi::coll {
namespace {

Tunable<double> gLatencyUs("CCMPI_LINK_LATENCY_US", 100,
                           "one-way time of a small message between two hosts (microseconds), "
                           "for the broadcasts' cost model (coll/cost_model.h)");
Tunable<double> gSendUs("CCMPI_SEND_OVERHEAD_US", 5,
                        "what each message costs its sender before the next can start "
                        "(microseconds; LogP's o), for the broadcasts' cost model");
Tunable<double> gRoundUs("CCMPI_LANE_ROUND_US", -1,
                         "what a round of a two-lane pipeline adds to its segments' transfer "
                         "(microseconds), for the broadcasts' cost model; below 0: "
                         "CCMPI_RAIL_HOP_US");

constexpr double kMss = 1448;  // TCP payload per packet (Ethernet, timestamps)

int ceilLog2(int n) {
  int k = 0;
  while ((1 << k) < n) ++k;
  return k;
}

struct Model {
  const BcastCostParams& p;
  double b() const { return p.bytesPerSec * 1e-6; }
  // The bytes of one message of m on the wire: striped over the rails from stripeMin.
  double xfer(double m) const {
    const int over = p.rails > 1 && m >= static_cast<double>(p.stripeMin) ? p.rails : 1;
    return m / (b() * over);
  }
  bool eager(double m) const { return m <= static_cast<double>(p.eagerLimit); }
  // One message: its sender's overhead, a hop (three for a rendezvous: RTS, CTS, data)
  // and its bytes.
  double msg(double m) const { return p.sendUs + (eager(m) ? 1 : 3) * p.hopUs + xfer(m); }
  // The i-th (from 1) of k eager messages of m bytes a sender hands to TCP at once: they
  // share its cable packet by packet, so it is whole after ((P - 1)·k + i) of its P
  // packets' times (one packet each: i of them; long ones: about k messages' time).
  double shared(double m, int i, int k) const {
    const double packets = std::max(1.0, std::ceil(m / kMss));
    return i * p.sendUs + ((packets - 1) * k + i) * xfer(m) / packets;
  }
  // A pipeline of `segs` segments of s bytes through `depth` hops, flowing: each rank
  // forwards a segment as soon as it is in (bcast_segments.cc), `sends` segments on one
  // rail's cable for every segment it receives. The first segment goes down the depth, a
  // whole message and `extra` a hop; the others follow at the pace of the busiest cable.
  double pipeline(double s, double segs, int depth, int sends, double extra) const {
    const double pace = sends * (xfer(s) + p.sendUs);
    const double hop = msg(s) + (sends - 1) * (xfer(s) + p.sendUs) + extra;
    return std::max(depth, 1) * hop + (segs - 1) * pace;
  }
  // The binomial tree (bcast_binomial.cc): each rank sends to its children largest
  // subtree first with blocking sends. Eager ones are all handed to TCP at once and share
  // the cable (shared()); a rendezvous waits for its transfer, so they go one after the
  // other. The time is the last rank's arrival, walking the tree.
  double binomial(double B) const {
    const int n = p.ranks;
    std::vector<double> at(static_cast<size_t>(n), 0);
    for (int v = 0; v < n; ++v) {
      int low = 1;  // v's lowest set bit (n's next power of two for the root)
      while (low < n && !(v & low)) low <<= 1;
      int k = 0;
      for (int mask = low >> 1; mask > 0; mask >>= 1) k += v + mask < n;
      int i = 0;
      for (int mask = low >> 1; mask > 0; mask >>= 1) {
        if (v + mask >= n) continue;
        ++i;
        at[static_cast<size_t>(v + mask)] =
            at[static_cast<size_t>(v)] + (eager(B) ? p.hopUs + shared(B, i, k) : i * msg(B));
      }
    }
    return *std::max_element(at.begin(), at.end());
  }
  // The two-lane pipelines: half of the buffer down each lane in segments of
  // laneSegment(); with two rails a rank's two lanes go on two NICs (a rail-directed send
  // from CCMPI_RAIL_DIRECT_MIN: a rendezvous, u more a hop), with one both on the same.
  double twoLanes(double B, int depth) const {
    const double s = static_cast<double>(laneSegment(static_cast<int64_t>(B), depth));
    const double lane = B / 2;
    const double seg = std::min(s, lane);
    const double segs = std::ceil(lane / seg);
    const bool rails = p.rails >= 2;
    const bool directed = rails && seg >= static_cast<double>(p.railDirectMin);
    return pipeline(seg, segs, depth, rails ? 1 : 2, directed ? p.roundUs : 0);
  }
};

}  // namespace

BcastCostParams bcastCostParams(int ranks) {
  BcastCostParams p;
  p.ranks = ranks;
  p.rails = jobRails();
  p.bytesPerSec = tcpPayloadBytesPerSecond(linkMbits());  // found, declared or assumed
  p.hopUs = gLatencyUs.get();
  p.sendUs = gSendUs.get();
  p.roundUs = gRoundUs.get() >= 0 ? gRoundUs.get() : railHopUs();
  p.mcastLanes = std::max(1, std::min(transport::mcast().lanes(), p.rails));
  p.eagerLimit = p2p::eagerLimit();
  p.stripeMin = p2p::stripeMin();
  p.railDirectMin = p2p::railDirectMin();
  return p;
}

double predictBcastUs(const std::string& a, uint64_t bytes, const BcastCostParams& p) {
  if (p.bytesPerSec <= 0 || p.ranks < 1) return -1;
  const Model m{p};
  const double B = static_cast<double>(bytes);
  const int n = p.ranks;
  if (n == 1) return 0;
  if (a == "binomial") return m.binomial(B);
  // The root's n - 1 sends at once: the last is whole after all of them.
  if (a == "linear")
    return m.eager(B) ? p.hopUs + m.shared(B, n - 1, n - 1)
                      : m.msg(B) + (n - 2) * (m.xfer(B) + p.sendUs);
  if (a == "chain" || a == "binary_tree") {
    const double s0 = static_cast<double>(pipelineSegment());
    const double s = s0 > 0 ? std::min(s0, B) : B;
    const double segs = s > 0 ? std::ceil(B / s) : 1;
    if (a == "chain") return m.pipeline(s, segs, n - 1, 1, 0);
    int depth = 0;
    while ((2 << depth) <= n) ++depth;  // floor(log2 n)
    return m.pipeline(s, segs, depth, n > 2 ? 2 : 1, 0);
  }
  if (a == "scatter_ring_allgather") {
    // The binomial scatter halves the buffer at every level; the ring then passes n - 1
    // blocks of B/n on.
    double t = 0;
    for (int k = 1; k <= ceilLog2(n); ++k) t += m.msg(B / std::pow(2.0, k));
    return t + (n - 1) * m.msg(std::ceil(B / n));
  }
  if (a == "two_tree") {
    int depth = 0;
    twoTreeEdges(n, &depth);
    return m.twoLanes(B, depth);
  }
  if (a == "two_chain") return m.twoLanes(B, n - 1);
  if (a == "mcast") {
    // Paced at the link's wire rate on every lane; a message above the multicast eager
    // limit waits for its acknowledgements (one more hop).
    const double wire = static_cast<double>(transport::mcast().wireBytes(bytes));
    const double wireRate = m.b() * 1538.0 / 1448.0 * p.mcastLanes;
    return p.sendUs + p.hopUs * (bytes > transport::mcastEagerLimit() ? 2 : 1) + wire / wireRate;
  }
  return -1;
}

std::vector<std::string> bcastByModel(uint64_t bytes, const BcastCostParams& p) {
  static const char* const kModelled[] = {
      "mcast",    "binomial",  "binary_tree", "chain",
      "two_tree", "two_chain", "linear",      "scatter_ring_allgather"};
  std::vector<std::pair<double, std::string>> v;
  for (const char* a : kModelled) {
    const double t = predictBcastUs(a, bytes, p);
    if (t >= 0) v.emplace_back(t, a);
  }
  std::stable_sort(v.begin(), v.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (auto& e : v) out.push_back(std::move(e.second));
  return out;
}

std::vector<std::string> modelRanking(const std::string& collective, int ranks, int64_t bytes) {
  if (!hasCostModel(collective) || bytes < 0) return {};
  return bcastByModel(static_cast<uint64_t>(bytes), bcastCostParams(ranks));
}

}  // namespace ccmpi::coll
