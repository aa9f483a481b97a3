#pragma once
// ccmpi-sim's ranks: each runs a program, the steps of one collective as ccmpi's schedule
// for that rank lists them (coll/schedule.h: rounds of sends, receives and local work), on
// the flow-level network of network.h, with per-message CPU costs.
//
// Semantics, as ccmpi runs a schedule:
//  - a round posts its steps in order; each costs CPU time (a send or a receive posted, a
//    local copy or reduction at its rate), one after the other on the rank's CPU;
//  - the round is done when all its sends and receives have completed (and the receives
//    an earlier round posted "late", awaited at the end of the round after theirs); the
//    next round starts then, after the round overhead;
//  - messages between two ranks match in order (a schedule uses one tag);
//  - a message up to the eager limit flows at once and waits at the receiver until its
//    receive is posted; a larger one sends a request to send, the receiver answers when
//    its receive is posted, then the data flows (rendezvous);
//  - an eager send completes once its bytes are copied (into the connection's buffer), a
//    rendezvous send when its data has arrived; a receive when its data has arrived and
//    been taken, plus the receive overhead;
//  - ranks of one host exchange through shared memory: a latency and a copy rate, no
//    cable.
//  - a multicast step (mcast) sends one flow from the root to every other host of the
//    group; each receiver's step completes when the data arrives, the root's after the
//    acknowledgements came back up a binary tree.
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/network.h"

namespace ccmpi::sim {

struct Costs {
  double sendPost = 2e-6;       // CPU per send posted (s)
  double recvPost = 0.5e-6;     // CPU per receive posted
  double recvDone = 2e-6;       // CPU per receive completed
  double roundOverhead = 1e-6;  // between two rounds of a schedule
  double copyRate = 4e9;        // bytes/s of local copies (also an unexpected message taken)
  double reduceRate = 2e9;      // bytes/s of local reductions
  double eagerLimit = 65536;    // bytes: larger messages go by rendezvous
  double frameBytes = 64;       // ccmpi's frame header, added to every message
  double shmLatency = 1e-6;     // one way within a host
  double shmRate = 5e9;         // bytes/s within a host
  double stripeMin = 262144;    // bytes from which a message is striped over the rails
  double railDirectMin = 8192;  // bytes from which a send naming a rail takes it (Op::rail)
  // Messages up to this many bytes leave a host (each rail) in the order they were written:
  // a socket hands that much to the NIC's queue at once (TCP's initial window, 10
  // segments, after an idle connection), the queue is first in, first out, and drains at
  // the cable's rate whatever waits further on (the switch buffers it). A message's flow
  // starts when those written before it have been sent at that rate. Larger messages go
  // as their acknowledgements come back and share the cable with the others.
  double fifoBytes = 14480;
  // Measured on the emulated cluster (25 Mbit/s, 2026-11-27; docs/results/sim): the 1-byte
  // half round trip was 21.7 us, of which the send and receive costs above are 4.
  double wireLatency = 17e-6;  // one way between hosts, besides serialization (stack, wire)
  // The share of a cable's TCP payload rate that traffic in both directions at once gets
  // (the acknowledgements of the incoming data share the outgoing link): ccmpi's bibw at
  // 256 KiB on the emulated cluster, 5.41 of 5.88 MB/s.
  double linkEfficiency = 0.92;
  // TCP under tail drop (--tcp tail-drop; network.h's Topology says how they are used):
  // TCP incast on the emulated cluster's switch (128 KiB tail-drop ports, 25 Mbit/s;
  // bench/sim/incast.py, docs/results/sim/incast.csv).
  double portBuffer = 131072;    // bytes of a switch port's queue
  double tailDropFlows = 3.5;    // flows a 128 KiB port carries without timeouts
  double tailDropFull = 11.5;    // flows from which the idle time per byte stops growing
  double tailDropIdle = 174e-9;  // idle s per byte carried from tail_drop_full flows on
  // Reads "name value" lines (# comments); false with *why on an unknown name or a bad
  // value.
  bool load(const std::string& path, std::string* why);
  std::string describe() const;
};

struct Op {
  enum class Kind : uint8_t { kSend, kRecv, kLocalCopy, kLocalReduce, kMcastSend, kMcastRecv };
  Kind kind = Kind::kSend;
  bool late = false;  // kRecv: awaited at the end of the next round
  int32_t peer = -1;  // rank (kMcastRecv: the root); kMcast*: group id in `groups`
  double bytes = 0;
  // kSend, kLocalReduce: done only once the op `after` of the same round (its index from
  // the round's first op: a receive, or for a send a reduction) has completed; a send also
  // after the earlier such sends to the same peer, a reduction after the earlier such
  // reductions (coll::Schedule's `after`); -1: when the round starts.
  int32_t after = -1;
  // kSend: the rail its data takes (coll::Schedule::send's `rail`: from railDirectMin bytes
  // on, by rendezvous; rail 0 whole, not striped); -1: the ordinary way.
  int8_t rail = -1;
};

// One rank's collective: ops, and where each round starts.
struct Program {
  std::vector<Op> ops;
  std::vector<uint32_t> roundStart;
  void endRound() {
    if (roundStart.empty() || roundStart.back() != ops.size())
      roundStart.push_back(static_cast<uint32_t>(ops.size()));
  }
};

struct Result {
  double time = 0;              // the last rank's end
  std::vector<double> rankEnd;  // per rank
  uint64_t messages = 0;
  double wireBytes = 0;  // bytes that crossed a host's up link
  // -v: per round index, the latest time any rank finished it.
  std::vector<double> roundEnd;
};

class Simulator {
 public:
  // ranksPerHost: rank r lives on host r / ranksPerHost.
  Simulator(const Topology& t, const Costs& c, int ranks, int ranksPerHost);
  // Rank r's program; `groups` lists multicast groups (ranks; the first is the root).
  void setProgram(int rank, const Program& p);
  int addGroup(std::vector<int> ranks) {
    groups_.push_back(std::move(ranks));
    return static_cast<int>(groups_.size()) - 1;
  }
  // Runs every program from time 0; false with *why if ranks wait forever (a receive
  // without its send: the programs do not match).
  bool run(Result* out, std::string* why);

 private:
  struct Msg {
    int32_t src = -1, dst = -1;
    double bytes = 0;
    bool sendPosted = false, recvPosted = false;
    bool recvLate = false;
    uint32_t recvRound = 0;
    int64_t recvOp = -1;  // the receive's op (index in ops_)
    int8_t rail = -1;     // the data's one rail (a rail-directed send), or -1
    bool dataArrived = false, rtsArrived = false, ctsSent = false, rendezvous = false;
    int partsLeft = 0;  // striped data still in flight
    bool sendDone = false, recvDone = false;
  };

  // The messages of one ordered pair of ranks whose other side has not been posted yet:
  // unmatched sends or unmatched receives (never both), oldest first.
  struct Open {
    bool sends = true;
    size_t head = 0;
    std::vector<int32_t> ids;
  };

  struct RankState {
    uint32_t round = 0;
    int pendingCur = 0;  // this round's sends and receives still open
    int lateCur = 0;     // late receives posted this round, open
    int latePrev = 0;    // late receives posted the round before, open
    bool finished = false;
    bool posted = false;  // the current round's steps are posted
    double cpu = 0;       // when the rank's CPU is free
    // Rounds with sends that wait for a receive (Op::after): the round's first op, its
    // receives done (by op), and the waiting sends (ops_ indices, in order).
    uint64_t first = 0;
    std::vector<uint8_t> done;
    std::vector<uint64_t> waiting;
  };

  enum class Ev : uint8_t {
    kRankGo,
    kArrive,
    kCtsArrive,
    kRtsArrive,
    kSendLocal,
    kRecvDone,
    kMcastDone,
    kFifoStart  // a small message's turn on its host's NIC queue (a: sender, b: message)
  };
  struct Event {
    double t;
    uint64_t seq;
    Ev kind;
    int32_t a;
    int64_t b;
    bool operator>(const Event& o) const { return t != o.t ? t > o.t : seq > o.seq; }
  };

  int hostOf(int rank) const { return rank / perHost_; }
  void push(double t, Ev k, int32_t a, int64_t b = 0);
  void runRound(int rank, double now);
  double postSend(int rank, const Op& o, double t);
  void postWaiting(int rank, double now);
  void endRound(int rank, double t);
  void opDone(int rank, double t, bool late, uint32_t lateRound);
  // A TCP connection per ordered pair of ranks and rail carries its messages one after
  // the other (FIFO): a message's flow starts when the one before it has left.
  struct Send {
    int32_t msg;
    double bytes;
    uint8_t kind;  // FlowKind (sim.cc)
  };
  struct ConnSlot {  // a busy connection of a sender
    int dst;
    int rail;
    size_t head;          // in q: the next to go
    std::vector<Send> q;  // what waits behind the message on the wire
  };
  struct OpenSlot {  // a receiver's open pair
    int peer;
    Open q;
  };
  void flowOrLocal(double now, int msg, double bytes, int src, int dst, Ev onArrive);
  void transmit(double now, int src, int dst, int rail, const Send& piece);
  void connFree(double now, int src, int dst, int rail);
  void startFlow(double now, int src, int dst, int rail, const Send& piece);
  static Ev arrivalOf(int flowKind) {
    return flowKind == 0 ? Ev::kArrive : flowKind == 1 ? Ev::kRtsArrive : Ev::kCtsArrive;
  }
  void matched(double now, int msg);
  void arrived(double now, int msg);
  void deliver(double now, int msg);
  // The message a send (or receive) of src -> dst is: the oldest one the other side posted
  // and this side did not yet, else a new one.
  int32_t matchOrOpen(int src, int dst, bool isSend);
  int32_t newMsg();
  void releaseMsg(int32_t m);

  Topology topo_;
  Costs costs_;
  int ranks_, perHost_;
  Network net_;
  // Every rank's program in two arrays (ops, round starts as indices into ops), in huge
  // pages: thousands of ranks' programs take gigabytes, visited in no order.
  template <typename T>
  class BigArray {
   public:
    BigArray() = default;
    BigArray(const BigArray&) = delete;
    BigArray& operator=(const BigArray&) = delete;
    ~BigArray();
    void append(const T* v, size_t n);
    size_t size() const { return size_; }
    const T& operator[](size_t i) const { return data_[i]; }

   private:
    T* data_ = nullptr;
    size_t size_ = 0, cap_ = 0;
  };
  struct Placed {
    uint64_t firstRound = 0;  // in roundStarts_
    uint32_t rounds = 0;
    uint64_t opsEnd = 0;  // in ops_: this program's ops end here
  };
  BigArray<Op> ops_;
  BigArray<uint64_t> roundStarts_;
  std::vector<Placed> programs_;
  std::vector<std::vector<int>> groups_;
  std::vector<RankState> state_;
  std::vector<Msg> msgs_;
  std::vector<int32_t> freeMsgs_;
  std::vector<std::vector<OpenSlot>> openAt_;   // per receiver
  std::vector<std::vector<ConnSlot>> connsOf_;  // per sender: its busy connections
  // Per host: when its NIC's queue of small messages (Costs::fifoBytes, never striped: rail
  // 0) has been sent.
  std::vector<double> fifoFreeAt_;
  std::vector<double> mcastArrived_;            // per group: data at the receivers, or -1
  std::vector<std::vector<int>> mcastWaiting_;  // per group: receivers posted before that
  std::vector<Event> heap_;
  std::vector<int32_t> held_;  // postWaiting's scratch
  uint64_t seq_ = 0;
  Result* res_ = nullptr;
};

}  // namespace ccmpi::sim
