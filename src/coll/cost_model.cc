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

Tunable<double> gBurstBytes("CCMPI_LINK_BURST_BYTES", 0,
                            "bytes a cable that has been idle passes at once (a shaper's token "
                            "bucket: the emulated cluster's --bucket frames of 1448), for the "
                            "broadcasts' cost model");
Tunable<double> gLinkShare("CCMPI_LINK_SHARE", 1,
                           "share of the link's payload rate one TCP stream gets (0..1), for "
                           "the broadcasts' cost model");
Tunable<double> gDuplexShare("CCMPI_LINK_DUPLEX_SHARE", 1,
                             "share of a cable's payload rate left to data when the cable also "
                             "carries the acknowledgements of data coming the other way "
                             "(0..1), for the broadcasts' cost model");
Tunable<double> gCpuUs("CCMPI_MESSAGE_CPU_US", 0,
                       "CPU time of waking a rank for a message (microseconds: the context "
                       "switches, the receive and what it sends on) when the job's ranks "
                       "outnumber their machine's cores, for the broadcasts' cost model");

constexpr double kMss = 1448;  // TCP payload per packet (Ethernet, timestamps)
// Rings longer than this are costed in closed form rather than step by step.
constexpr int kRingSteps = 1024;

// A tree over ranks 0..n-1 (0 the root): each rank's sends in the order it makes them,
// as (child, bytes); empty messages are left out.
// An edge that is acknowledged blocks its parent until the child's empty answer is back
// (the scatter's, bcast_scatter_bytes.cc).
struct Edge {
  int to;
  double bytes;
  bool acked = false;
};
using Tree = std::vector<std::vector<Edge>>;

// The binomial tree (bcast_binomial.cc, bcast_scatter_bytes.cc): v sends to v + 2^k for
// every 2^k below its lowest set bit, largest first; `bytes(v, mask)` what that edge
// carries.
template <typename Bytes>
Tree binomialTree(int n, Bytes bytes) {
  Tree t(static_cast<size_t>(n));
  for (int v = 0; v < n; ++v) {
    int low = 1;  // v's lowest set bit (n's next power of two for the root)
    while (low < n && !(v & low)) low <<= 1;
    for (int mask = low >> 1; mask > 0; mask >>= 1)
      if (v + mask < n) {
        const double m = bytes(v, mask);
        if (m > 0) t[static_cast<size_t>(v)].push_back({v + mask, m});
      }
  }
  return t;
}

struct Model {
  const BcastCostParams& p;
  double b() const { return p.bytesPerSec * 1e-6; }
  // Bytes per microsecond a message of m gets: striped over the rails from stripeMin.
  double rate(double m) const {
    const int over = p.rails > 1 && m >= static_cast<double>(p.stripeMin) ? p.rails : 1;
    return b() * over * p.linkShare;
  }
  double xfer(double m) const { return m / rate(m); }
  // The same on a cable that has been idle: its first burstBytes pass at once.
  double idle(double m) const { return std::max(0.0, m - p.burstBytes) / rate(m); }
  // In a stream through ranks that send and receive at once (pipelines, rings).
  double duplex(double m) const { return xfer(m) / std::max(0.05, p.duplexShare); }
  bool eager(double m) const { return m <= static_cast<double>(p.eagerLimit); }
  // One message on an idle cable: its sender's overhead, a hop (three for a rendezvous:
  // RTS, CTS, data) and its bytes.
  double msg(double m) const { return p.sendUs + (eager(m) ? 1 : 3) * p.hopUs + idle(m); }

  // When each rank has its data, walking `t` from the root (at 0). A parent's sends go in
  // order: a rendezvous waits for its transfer (the blocking sends of the binomial tree,
  // one send per round in the scatter), so the next starts after it; a run of eager ones
  // is handed to TCP at once and shares the cable packet by packet, so each is whole once
  // the cable has carried, of every message of the run, as much as it has (a packet less
  // of those after it). The time is the last rank's.
  double walk(const Tree& t, std::vector<double>* at) const {
    const size_t n = t.size();
    at->assign(n, -1);
    (*at)[0] = 0;
    std::vector<int> order{0};
    for (size_t q = 0; q < order.size(); ++q) {
      const auto& kids = t[static_cast<size_t>(order[q])];
      double cursor = (*at)[static_cast<size_t>(order[q])];
      bool cableIdle = true;
      for (size_t i = 0; i < kids.size();) {
        const double m = kids[i].bytes;
        if (!eager(m) || kids[i].acked) {
          cursor += p.sendUs + (eager(m) ? 1 : 3) * p.hopUs + (cableIdle ? idle(m) : xfer(m));
          (*at)[static_cast<size_t>(kids[i].to)] = cursor;
          if (kids[i].acked) cursor += p.hopUs;  // the answer's way back
          order.push_back(kids[i].to);
          cableIdle = true;  // the next one's handshake leaves the cable idle
          ++i;
          continue;
        }
        size_t end = i;
        while (end < kids.size() && eager(kids[end].bytes) && !kids[end].acked) ++end;
        for (size_t j = i; j < end; ++j) {
          const double mj = kids[j].bytes;
          double carried = 0;
          for (size_t k = i; k < end; ++k)
            carried += std::min(kids[k].bytes, k <= j ? mj : std::max(0.0, mj - kMss));
          if (cableIdle) carried = std::max(0.0, carried - p.burstBytes);
          (*at)[static_cast<size_t>(kids[j].to)] =
              cursor + static_cast<double>(j - i + 1) * p.sendUs + p.hopUs + carried / rate(mj);
          order.push_back(kids[j].to);
        }
        cursor += static_cast<double>(end - i) * p.sendUs;
        cableIdle = false;
        i = end;
      }
    }
    return *std::max_element(at->begin(), at->end());
  }
  double walk(const Tree& t) const {
    std::vector<double> at;
    return walk(t, &at);
  }

  // A pipeline of `segs` segments of s bytes down `t` (its edges carry s each), flowing:
  // each rank forwards a segment as soon as it is in (bcast_segments.cc). The first goes
  // down the tree as a message of s would; the others follow at the pace of the busiest
  // cable, `sends` segments for every one it receives.
  double pipeline(const Tree& t, double segs, int sends) const {
    return walk(t) + (segs - 1) * sends * (duplex(t[0].front().bytes) + p.sendUs);
  }

  // The two-lane pipelines: half of the buffer down each lane in segments of
  // laneSegment(); with two rails a rank's two lanes go on two NICs (a rail-directed send
  // from CCMPI_RAIL_DIRECT_MIN: a rendezvous, u more a hop), with one both on the same.
  double laneSeg(double B, int depth) const {
    const double s = static_cast<double>(laneSegment(static_cast<int64_t>(B), depth));
    return std::max(1.0, std::min(s, B / 2));
  }
  double laneSegments(double B, int depth) const {
    return std::max(1.0, std::ceil(B / 2 / laneSeg(B, depth)));
  }
  double twoLanes(double B, int depth) const {
    const double seg = laneSeg(B, depth);
    const double segs = laneSegments(B, depth);
    const bool rails = p.rails >= 2;
    const bool directed = rails && seg >= static_cast<double>(p.railDirectMin);
    const int sends = rails ? 1 : 2;
    const double pace = sends * (duplex(seg) + p.sendUs);
    const double hop =
        msg(seg) + (sends - 1) * (xfer(seg) + p.sendUs) + (directed ? 2 * p.hopUs + p.roundUs : 0);
    return std::max(depth, 1) * hop + (segs - 1) * pace;
  }

  // Van de Geijn's: the blocks of ceil(B/n) scattered down the binomial tree (each edge
  // carries its subtree's blocks), then the ring (bcast_scatter_ring_allgather.cc): at
  // step i rank v sends block v - i to v + 1 once it has it (from v - 1 at step i - 1),
  // after its own scatter and its previous send, and a rendezvous block also after the
  // receiver's scatter (its receive is posted then).
  double scatterRing(double B) const {
    const int n = p.ranks;
    const double chunk = std::ceil(B / n);
    auto blockBytes = [&](int64_t first, int64_t last) {
      return std::max(0.0, std::min(B, static_cast<double>(std::min<int64_t>(last, n)) * chunk) -
                               std::min(B, static_cast<double>(first) * chunk));
    };
    Tree t = binomialTree(n, [&](int v, int mask) { return blockBytes(v + mask, v + 2 * mask); });
    for (auto& kids : t)  // acknowledged: large enough, and a sibling after it
      for (size_t i = 0; i + 1 < kids.size(); ++i)
        kids[i].acked = kids[i].bytes >= static_cast<double>(kScatterAckMin);
    std::vector<double> ready;
    const double scatter = walk(t, &ready);
    auto block = [&](int64_t i) { return blockBytes(i, i + 1); };
    const double c = block(0);
    const double step = p.sendUs + (eager(c) ? 1 : 3) * p.hopUs + duplex(c);
    if (n > kRingSteps) return scatter + (n - 1) * step;
    // sent[v]: when v's send of the current step ends (-1: none yet); in[v]: when v has
    // the block it sends at this step.
    std::vector<double> sent(static_cast<size_t>(n), -1), in(ready), next(static_cast<size_t>(n));
    double last = scatter;
    for (int i = 0; i < n - 1; ++i) {
      for (int v = 0; v < n; ++v) {
        const auto vs = static_cast<size_t>(v), right = static_cast<size_t>((v + 1) % n);
        const double m = block(((v - i) % n + n) % n);
        if (m <= 0) {
          next[right] = ready[right];
          continue;
        }
        double start = std::max({ready[vs], in[vs], sent[vs]});
        if (!eager(m)) start = std::max(start, ready[right]);
        sent[vs] = start + (i == 0 ? p.sendUs + (eager(m) ? 1 : 3) * p.hopUs + idle(m) : step);
        next[right] = sent[vs];
        last = std::max(last, sent[vs]);
      }
      in.swap(next);
    }
    return last;
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
  p.burstBytes = std::max(0.0, gBurstBytes.get());
  p.linkShare = std::clamp(gLinkShare.get(), 0.05, 1.0);
  p.duplexShare = std::clamp(gDuplexShare.get(), 0.05, 1.0);
  p.cpuUs = std::max(0.0, gCpuUs.get());
  const int perCore = jobRanksPerCore();
  p.cores = perCore > 1 ? std::max(1, ranks / perCore) : 0;
  return p;
}

namespace {

// The wake-ups of a tree's ranks for one message each: a whole one for a rank that sends
// it on, half for one that only receives it.
double wakesOf(const Tree& t) {
  double w = 0;
  for (size_t v = 1; v < t.size(); ++v) w += t[v].empty() ? 0.5 : 1;
  return w;
}

// The broadcast's time on the network, and how often its ranks are woken for a message
// (*wakes, the CPU bound's count; wakesOf()): once per message received down a tree,
// once per segment in the two-lane pipelines (a rank's two lanes arrive together), and
// once for the whole ring of the scatter-allgather (its ranks stay busy).
double networkUs(const Model& m, const std::string& a, double B, double* wakes) {
  const BcastCostParams& p = m.p;
  const int n = p.ranks;
  *wakes = n - 1;
  if (a == "binomial") {
    const Tree t = binomialTree(n, [B](int, int) { return B; });
    *wakes = wakesOf(t);
    return m.walk(t);
  }
  // The root's n - 1 sends at once: eager ones share its cable, the last is whole after
  // all of them; rendezvous ones follow each other's transfers.
  if (a == "linear") {
    if (!m.eager(B)) return m.msg(B) + (n - 2) * (m.xfer(B) + p.sendUs);
    Tree t(static_cast<size_t>(n));
    for (int v = 1; v < n; ++v) t[0].push_back({v, B});
    *wakes = wakesOf(t);
    return m.walk(t);
  }
  if (a == "chain" || a == "binary_tree") {
    const double s0 = static_cast<double>(pipelineSegment());
    const double s = s0 > 0 ? std::min(s0, B) : B;
    const double segs = s > 0 ? std::max(1.0, std::ceil(B / s)) : 1;
    Tree t(static_cast<size_t>(n));
    for (int v = 0; v < n; ++v)
      for (int c : a == "chain" ? std::vector<int>{v + 1} : std::vector<int>{2 * v + 1, 2 * v + 2})
        if (c < n) t[static_cast<size_t>(v)].push_back({c, std::max(1.0, s)});
    *wakes = wakesOf(t) * segs;
    return m.pipeline(t, segs, a == "chain" || n <= 2 ? 1 : 2);
  }
  if (a == "scatter_ring_allgather") {
    *wakes = std::min<double>(n - 1, std::max(1.0, B)) + (n - 1);
    return m.scatterRing(B);
  }
  if (a == "two_tree" || a == "two_chain") {
    int depth = n - 1;
    if (a == "two_tree") twoTreeEdges(n, &depth);
    *wakes = (n - 1) * m.laneSegments(B, depth);
    return m.twoLanes(B, depth);
  }
  if (a == "mcast") {
    *wakes = 1 + (n - 1) / 2.0;  // the sender, and receivers that send nothing on
    // Paced at the link's wire rate on every lane; a message above the multicast eager
    // limit waits for its acknowledgements (one more hop).
    const double wire = static_cast<double>(transport::mcast().wireBytes(static_cast<uint64_t>(B)));
    const double wireRate = m.b() * 1538.0 / 1448.0 * p.mcastLanes;
    return p.sendUs + p.hopUs * (B > static_cast<double>(transport::mcastEagerLimit()) ? 2 : 1) +
           wire / wireRate;
  }
  return -1;
}

}  // namespace

double predictBcastUs(const std::string& a, uint64_t bytes, const BcastCostParams& p) {
  if (p.bytesPerSec <= 0 || p.ranks < 1) return -1;
  if (p.ranks == 1) return 0;
  const Model m{p};
  const double B = static_cast<double>(bytes);
  double wakes = 0;
  const double net = networkUs(m, a, B, &wakes);
  if (net < 0 || p.cores <= 0 || p.cpuUs <= 0) return net;
  // Ranks outnumber cores: the wake-ups' CPU time over the cores is a floor.
  return std::max(net, wakes * p.cpuUs / p.cores);
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
