#pragma once
// ccmpi-sim's network: a flow-level model of switched Ethernet.
//
// Hosts have R NICs (rails); each rail is its own fabric. A fabric is one switch, or a
// two-level tree: leaf switches of `radix` host ports whose uplinks to a non-blocking
// spine carry radix x rate / oversub each way (the uplinks of a leaf as one bundle). Every
// cable is two links, one per direction, each with the payload rate of the cable.
//
// A transfer is a flow over the links of its path (host up, [leaf up, leaf down,] host
// down; a multicast flow holds the sender's up link and the down link of every receiver).
// Flows that share links share them max-min fairly (output-queue sharing where several
// flows enter one port), recomputed by progressive filling over the flows connected to a
// change whenever a flow starts or ends.
//
// Time is in seconds (double). The network is driven by the simulator's event loop:
// start() returns a flow id; the flow's predicted end is kept current in a heap that
// nextEnd()/popEnded() read.
#include <cstdint>
#include <queue>
#include <string>
#include <vector>

namespace ccmpi::sim {

struct Topology {
  enum class Kind { kOneSwitch, kFatTree };
  Kind kind = Kind::kOneSwitch;
  int hosts = 1;
  int rails = 1;
  double rate = 0;       // payload bytes/s of one cable, one direction
  int radix = 0;         // fat tree: host ports of a leaf switch
  double oversub = 1;    // fat tree: host ports' rate over the uplinks' rate
  double latency = 0;    // one way, host to host, for the first byte (wire, switch, stack)
  double frameTime = 0;  // store and forward of one frame at the rate, per extra hop
  // How flows share a link: max-min fair (progressive filling over every flow connected to
  // a change: exact, but a fat tree's shared uplinks connect thousands of flows), or
  // per-link (each flow its smallest capacity / flows over its links, recomputed only for
  // the flows on the links a change touched: capacity a flow cannot use is not handed on).
  enum class Sharing { kMaxMin, kPerLink };
  Sharing sharing = Sharing::kMaxMin;
  // TCP under tail drop (ccmpi-sim --tcp tail-drop). A switch's output port (a host's down
  // link, a leaf's uplinks, the spine's links down to a leaf) shared by more concurrent TCP
  // flows than its buffer holds loses segments, and the flows whose losses fast
  // retransmission cannot repair wait for a retransmission timeout while the port idles.
  // Expected over many such events, each byte the port carries costs
  //   dropIdle x min(1, (k - dropFlows x b) / ((dropFull - dropFlows) x b))  seconds more
  // when that is positive, with k the TCP flows per port (a leaf's uplink bundle: its flows
  // over its radix / oversub ports; multicast flows, UDP and paced, do not count) and b =
  // portBuffer / kDropBuffer (a larger buffer holds more flows' windows). The figures are
  // measured on the emulated cluster's tail-drop switch (bench/sim/incast.py).
  bool tailDrop = false;
  double portBuffer = 131072;                    // bytes of each switch port's queue
  static constexpr double kDropBuffer = 131072;  // the port buffer of the figures below
  double dropFlows = 0;                          // flows a port carries without timeouts
  double dropFull = 0;  // flows from which the idle time per byte stops growing
  double dropIdle = 0;  // idle seconds per byte carried, from dropFull flows on
  bool parseSharing(const std::string& text, std::string* why);
  // "one-switch" or "fat-tree:RADIX:OVERSUB"; false with *why on error.
  bool parse(const std::string& text, std::string* why);
  int leafOf(int host) const { return kind == Kind::kFatTree ? host / radix : 0; }
  int leaves() const { return kind == Kind::kFatTree ? (hosts + radix - 1) / radix : 1; }
};

class Network {
 public:
  explicit Network(const Topology& t);

  const Topology& topology() const { return t_; }
  // A flow of `bytes` from host `src` to the hosts `dsts` (one: unicast) on `rail`,
  // starting now. `bytes` > 0; `tcp`: a TCP stream (false: multicast, UDP). Returns its id
  // (reused after it ends).
  int start(double now, int src, const std::vector<int>& dsts, int rail, double bytes, uint64_t tag,
            bool tcp = true);
  // Links of a path, for tests and for the verbose breakdown.
  std::vector<int> path(int src, const std::vector<int>& dsts, int rail) const;
  // Hops of the longest route of a path (1 on one switch, 1 or 3 in a tree).
  int hops(int src, int dst) const;

  // The earliest predicted end of an active flow (infinity when none).
  double nextEnd();
  // Ends the flow whose end is at `now` (the one nextEnd() gave); returns its tag.
  uint64_t popEnded(double now);
  int active() const { return active_; }
  double rateOf(int flow) const { return flows_[static_cast<size_t>(flow)].rate; }
  int links() const { return static_cast<int>(links_.size()); }

 private:
  struct Link {
    double cap = 0;
    double ports = 1;         // switch ports behind it (a leaf's uplink bundle: several)
    bool switchPort = false;  // a switch's output queue (tail drop applies)
    int tcp = 0;              // active TCP (unicast) flows
    std::vector<int> flows;   // active flows on this link
  };
  // The capacity the link's flows share now (less the tail-drop idle time, see Topology).
  double capacityOf(const Link& l) const {
    return t_.tailDrop && l.switchPort && l.tcp > 0 ? tailDropCapacity(l) : l.cap;
  }
  double tailDropCapacity(const Link& l) const;
  struct Flow {
    std::vector<int> links;
    double left = 0;  // bytes still to go at `since`
    double rate = 0;
    double since = 0;
    uint64_t tag = 0;
    uint32_t version = 0;
    bool live = false;
    bool tcp = true;  // unicast; a multicast flow is UDP
  };
  struct Due {
    double t;
    int flow;
    uint32_t version;
    bool operator>(const Due& o) const { return t > o.t; }
  };

  int upLink(int host, int rail) const { return (host * t_.rails + rail) * 2; }
  int downLink(int host, int rail) const { return (host * t_.rails + rail) * 2 + 1; }
  int leafUp(int leaf, int rail) const { return hostLinks_ + (leaf * t_.rails + rail) * 2; }
  int leafDown(int leaf, int rail) const { return leafUp(leaf, rail) + 1; }
  // Brings every flow connected to these links to `now` and shares the capacity anew.
  void reshare(double now, const std::vector<int>& seedLinks);
  void reshareLocal(double now, const std::vector<int>& seedLinks);
  void newMark();                        // a fresh mark for linkMark_/flowMark_
  void bringToNow(Flow& f, double now);  // its bytes sent since f.since

  Topology t_;
  int hostLinks_ = 0;
  std::vector<Link> links_;
  std::vector<Flow> flows_;
  std::vector<int> freeFlows_;
  std::priority_queue<Due, std::vector<Due>, std::greater<Due>> due_;
  int active_ = 0;
  // Scratch of reshare(), kept to avoid allocations.
  struct Key {
    double share;
    int link;  // index in compLinks_
  };
  std::vector<uint32_t> linkMark_, flowMark_;
  uint32_t mark_ = 0;
  std::vector<int> compLinks_, compFlows_, todo_, cnt_, linkPos_;
  std::vector<double> rem_;
  std::vector<Key> heap_;
};

}  // namespace ccmpi::sim
