#pragma once
// Reliable IP multicast (CC-MPI, seed paper 003 §4.1), for one-to-all and one-to-many
// collectives.
//
// Data path: UDP datagrams to a group address, paced at CCMPI_MCAST_MBITS with bursts of
// at most CCMPI_MCAST_BURST bytes, fragmented to the path MTU. Every datagram carries
// the job id, the message's identity (context id, collective sequence number, root, sub
// id), its length, the fragment's offset, and a SipHash-2-4 MAC keyed with the job
// secret over all of it; receivers drop (and count) foreign, unauthenticated, malformed,
// stale, duplicate and too-far-ahead datagrams, so nothing a non-member sends reaches a
// receive buffer.
//
// Repair: a receiver that misses fragments (a gap after the last fragment arrived, or
// silence for CCMPI_MCAST_NAK_US) sends a NAK listing the missing fragment ranges to the
// root over the job's authenticated TCP connection, and the root answers with the bytes
// over the same connection. NAKs are repeated with back-off until the message is whole.
// Completion: a receiver that has a whole message acknowledges it to the root over TCP
// (ack). The root's send says how many acknowledgements to expect; once its datagrams
// are out, release() either hands the message to the transport (a copy of a message of
// at most CCMPI_MCAST_EAGER bytes, kept for repairs until every acknowledgement is in:
// the root completes at once, like an eager send) or leaves the root to wait until
// acked() and then retire() (larger messages, or too many copies outstanding).
//
// Groups: a pool of at most CCMPI_MCAST_GROUPS addresses per job (NICs filter only a
// limited number of groups), each joined with a reference count; a communicator's group
// is the pool entry of its context id, so past the pool size communicators share
// addresses and receivers drop the other communicators' datagrams by context id.
//
// Lanes: with several rails (rails.h) the transport holds a socket per rail, each sending
// and receiving on its rail's interface (lane k is rail k). A message may take several
// lanes: each datagram goes, in order, on the lane whose pacing allows it soonest, so the
// lanes carry the message in proportion to their rates, and the receiver, which takes the
// group on every lane, assembles the datagrams into one message as if one lane had carried
// them. Joins take every lane. Which lanes a message may take is the caller's choice
// (coll/mcast/mcast_coll.h probes them per communicator).
//
// Availability: if the socket cannot be set up, or a join fails, the caller is told and
// the multicast algorithms decline (coll/mcast.h agrees on that across a communicator
// and also checks that a probe datagram actually arrives).
#include <netinet/in.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "base/siphash.h"
#include "progress/engine.h"
#include "transport/frame.h"
#include "transport/rails.h"
#include "transport/transport.h"

namespace ccmpi::transport {

class TcpTransport;

struct McastStats {
  uint64_t sentPackets = 0, sentBytes = 0, recvPackets = 0, recvBytes = 0;
  uint64_t naksSent = 0, naksReceived = 0, repairBytesSent = 0, repairBytesReceived = 0;
  uint64_t dropForeign = 0;    // another job's (job id), or not our protocol
  uint64_t dropAuth = 0;       // MAC does not verify
  uint64_t dropMalformed = 0;  // bad field
  uint64_t dropStale = 0;      // a message already delivered
  uint64_t dropDuplicate = 0;  // a fragment already held
  uint64_t dropAhead = 0;      // too far ahead / too much buffered
  uint64_t dropOther = 0;      // for a communicator or group this rank is not in
  uint64_t dropInjected = 0;   // CCMPI_MCAST_TEST_DROP
  int commLanesMin = 0;        // the fewest and most lanes a communicator agreed on (0: none)
  int commLanesMax = 0;
  double paceMin = 1;  // the lowest pacing scale repairs brought the sender to (0.5 at least)
};

// Identity of one multicast message.
struct McastKey {
  uint32_t context = 0;
  uint64_t seq = 0;
  int32_t root = 0;  // world rank of the sender
  uint16_t sub = 0;  // several messages of one collective (probe, sizes, data ...)
  // The communicator's incarnation (McastGroup::epoch): a context id is reused once its
  // communicator is freed, and a late datagram or repair of the old one must not be
  // taken for the new one's message with the same numbers. Carried in every datagram
  // and repair-protocol frame.
  uint32_t epoch = 0;
  auto tie() const { return std::tie(context, seq, root, sub, epoch); }
  bool operator<(const McastKey& o) const { return tie() < o.tie(); }
};

// The lanes a message's datagrams may take: [first, first + count).
struct McastLanes {
  uint8_t first = 0, count = 1;
};
constexpr int kMcastMaxLanes = 4;
// Fragments a message may have waiting to go again after full sockets (McastSendOp::redo).
constexpr int kMcastMaxRedo = kMcastMaxLanes * 16;

// A message being multicast without blocking: sendStart(), then sendSome() until done.
struct McastSendOp {
  McastLanes lanes;
  in_addr_t group = 0;
  McastKey key;
  const unsigned char* data = nullptr;
  uint64_t len = 0;
  uint64_t next = 0;    // offset of the next data fragment
  uint8_t finSent = 0;  // lanes (bits, from lanes.first) whose end-of-message mark is out
  int attempts = 0;     // tries in a row that a full socket refused every datagram
  // Fragments (offset / fragment size) a full socket refused, sent before the next one.
  uint32_t redo[kMcastMaxRedo];
  uint16_t redoCount = 0;
};

// A message being awaited without blocking: receiveStart(), then receiveSome() until
// done (or receiveCancel()).
struct McastRecvOp {
  McastKey key;
  void* dest = nullptr;
  uint64_t len = 0;
  bool active = false;    // an entry is waited for
  bool viaMcast = false;  // (when done) some of it came by multicast
  int64_t delay = 0;      // silence before a NAK (ns)
  int64_t quietDue = 0;   // first NAK when nothing at all arrived
  int64_t nextNak = 0;    // earliest repeat of a NAK already sent
  int64_t backoff = 0;
};

class McastTransport final : public progress::EventHandler {
 public:
  McastTransport();
  ~McastTransport() override;
  // Sets up the socket on the interface with IPv4 address `ifaceAddr`, and one on each of
  // `rails` beyond the first (rails[0] is that interface's; lanes, above). Never fails the
  // job: on any error available() is false and why() says what happened (a rail beyond
  // the first that cannot be set up only ends the lanes before it). `oneHost`: every
  // rank shares this host's memory, so multicast carries nothing the job needs quickly
  // (only an algorithm forced by the user uses it): the progress engine then looks at the
  // socket as at a rare event's, not on every few polls of a spinning wait.
  void init(int myRank, int worldSize, const SipKey& key, uint64_t jobId,
            const std::string& ifaceAddr, TcpTransport* tcp, bool oneHost = false,
            const std::vector<Rail>& rails = {});
  void shutdown();
  bool available() const { return fd_ >= 0; }
  // Lanes set up (1 with one rail; 0 when multicast is not available).
  int lanes() const { return fd_ >= 0 ? static_cast<int>(lanes_.size()) : 0; }
  const std::string& why() const { return why_; }
  // Path MTU (CCMPI_MCAST_MTU), and the bytes a message of `len` bytes puts on the root's
  // cable: its datagrams and the end-of-message mark, each with the transport's header
  // and MAC, UDP/IP (28) and Ethernet framing (38: header, FCS, preamble, gap).
  uint32_t mtu() const { return mtu_; }
  uint64_t wireBytes(uint64_t len) const;

  // The pool address for a context id; join/leave count references. join returns false
  // (and sets why()) when the kernel refuses.
  in_addr_t groupFor(uint32_t context) const;
  // Another address of the pool than groupFor(context) when the pool has more than one
  // (groups of a subset of a communicator: its other ranks do not see the traffic).
  in_addr_t groupBeside(uint32_t context, uint64_t n) const;
  bool join(in_addr_t group);
  void leave(in_addr_t group);
  // Datagrams are accepted only for subscribed contexts (a pool address may carry other
  // communicators' traffic); counted, so several users may subscribe one context.
  void subscribe(uint32_t context) { ++subscribed_[context]; }
  void unsubscribe(uint32_t context);

  // Root: sends the message to the group, paced, serving repairs while it does; the
  // message stays available for repairs until retire().
  int send(in_addr_t group, const McastKey& key, const void* data, uint64_t len, int acks = 0,
           McastLanes lanes = {});
  // The same without blocking. sendSome emits the datagrams the pacing allows now (one
  // token bucket for every message of this process); *done once all are out, else
  // *wakeNs is when it can go on. The message is served for repairs from sendStart on.
  // `acks`: acknowledgements the message will get (0: none expected; the caller retires
  // it when it knows the receivers are done). A message of 0 bytes expects none.
  // `lanes`: the lanes its datagrams may take (those beyond lanes() are left out).
  int sendStart(McastSendOp* op, in_addr_t group, const McastKey& key, const void* data,
                uint64_t len, int acks = 0, McastLanes lanes = {});
  int sendSome(McastSendOp* op, bool* done, int64_t* wakeNs);
  // After the last datagram: true if the root is done with the message (every
  // acknowledgement is in, or the transport keeps a copy until they are); false: the
  // caller's buffer is still needed: wait for acked(), then retire().
  // `owned`: a buffer of the caller's that holds exactly the message and may be taken
  // instead of copied (it is left empty then).
  bool release(const McastKey& key, std::vector<unsigned char>* owned = nullptr);
  bool acked(const McastKey& key) const;
  void retire(const McastKey& key);
  // Blocking send with `acks` receivers that completes like an eager send where release()
  // allows, else once every acknowledgement is in (the message retired either way).
  int sendComplete(in_addr_t group, const McastKey& key, const void* data, uint64_t len, int acks,
                   std::vector<unsigned char>* owned = nullptr, McastLanes lanes = {});
  // Receiver: the message of `len` bytes is whole here (tells its root; nothing for a
  // message of 0 bytes, whose root expects no acknowledgement, see sendStart).
  void ack(const McastKey& key, uint64_t len);
  // Released messages not acknowledged by every receiver yet (MPI_Finalize waits for them).
  size_t releasedPending() const { return releasedCount_; }
  // The released messages still waiting for acknowledgements, for a diagnostic:
  // "context/seq/root/sub (acknowledgements missing)" each.
  std::string releasedKeys() const;
  // Drives progress for `ns` nanoseconds (sleeping, not spinning).
  void pause(int64_t ns);

  // Receiver: blocks until the whole message is here (NAKing as needed) and copies it
  // to dest (len bytes, which must be the message's length). *viaMcast (optional) tells
  // whether any of it came by multicast. `nakDelayUs` overrides the silence before the
  // first NAK (0 = CCMPI_MCAST_NAK_US).
  int receive(const McastKey& key, void* dest, uint64_t len, bool* viaMcast = nullptr,
              int64_t nakDelayUs = 0);
  // The same without blocking. receiveSome sends the NAKs that are due and copies the
  // message to dest once it is whole (*done); else *wakeNs is when it needs to be called
  // again (arrivals come through the progress engine and may finish it sooner).
  int receiveStart(McastRecvOp* op, const McastKey& key, void* dest, uint64_t len,
                   int64_t nakDelayUs = 0);
  int receiveSome(McastRecvOp* op, bool* done, int64_t* wakeNs);
  // Abandons a started receive (its entry goes once no repair is being read into it).
  void receiveCancel(McastRecvOp* op);
  // The receiver finished every message of collective `seq` on `context`: its datagrams
  // are stale from now on. Collectives may finish out of order (nonblocking ones).
  void retireSeq(uint32_t context, uint64_t seq);

  // TCP frames of the repair protocol, routed here by the p2p sink.
  int onTcpFrame(int peer, const FrameHeader& h, PayloadTarget* t);
  void onTcpPayload(int peer, const FrameHeader& h, const PayloadTarget& t);

  const McastStats& stats() const { return stats_; }
  // A communicator's agreement settled on `lanes` lanes (for the counters).
  void noteCommLanes(int lanes) {
    stats_.commLanesMin = stats_.commLanesMin ? std::min(stats_.commLanesMin, lanes) : lanes;
    stats_.commLanesMax = std::max(stats_.commLanesMax, lanes);
  }
  uint16_t port() const { return port_; }

  void onEvent(uint32_t events) override;

 private:
  struct Rx {
    uint64_t len = 0;
    uint32_t frag = 0;  // fragment payload size (from the first datagram / repair)
    std::vector<unsigned char> data;
    std::vector<uint8_t> have;  // per fragment
    uint64_t fragsHave = 0;
    uint64_t maxFragSeen = 0;
    bool any = false;
    bool viaMcast = false;
    bool finSeen = false;  // every lane's end-of-message mark arrived
    uint8_t fins = 0;      // lanes (bits) whose end-of-message mark arrived
    uint8_t lanes = 1;     // lanes the message takes (every datagram says)
    int64_t lastNs = 0;
    bool waiting = false;  // a receive() is on it
    // Repair payloads being read into data. Repairs go only to entries a receive() waits
    // for, and receive() erases its entry only once this is 0, so an entry with a
    // payload in flight is never retired or unsubscribed (those skip waited-for entries).
    int inflight = 0;
    bool abandoned = false;  // receiveCancel'ed with a repair in flight: erased after it
  };
  struct Tx {
    const unsigned char* data = nullptr;
    uint64_t len = 0;
    uint64_t sent = 0;       // bytes multicast so far: NAKs for later ones are premature
    int64_t lastSentNs = 0;  // when a datagram of it last went out
    bool slowed = false;     // its repairs slowed the pacing down (the NAK handler)
    uint64_t repairBytes = 0;
    int receivers = 0;
    int acksLeft = 0;
    std::vector<unsigned char> copy;  // released: the transport's copy of the message
    bool released = false;            // retired by the last acknowledgement
  };
  struct Ctx {
    uint64_t low = 0;            // every seq below this is retired
    std::set<uint64_t> retired;  // retired seqs above low
    bool stale(uint64_t seq) const { return seq < low || retired.count(seq) != 0; }
    // Above every retired seq (a datagram far beyond it is dropped as too far ahead).
    uint64_t top() const { return retired.empty() ? low : *retired.rbegin() + 1; }
  };

  // One lane: its socket (lane 0's is fd_), interface, pacing, and its reader.
  struct Lane final : progress::EventHandler {
    McastTransport* owner = nullptr;
    int fd = -1;
    in_addr addr{};
    double rate = 0;         // configured pacing, bytes per second on the wire
    double allowance = 0;    // the pacing token bucket: bytes that may go now
    int64_t lastFillNs = 0;  // when it was last filled
    // A lane beyond the first whose socket refused a datagram for good (its interface is
    // down, say) takes none until then; the others carry its share and its end marks.
    int64_t downUntilNs = 0;
    // What its socket holds (SIOCOUTQ, read at queuedAtNs) plus what went out since.
    int64_t queued = 0;
    int64_t queuedAtNs = 0;
    void onEvent(uint32_t) override { owner->readPackets(fd); }
  };
  // A socket bound to the port on interface `addr` (IPv4 `ia`), sending there; -1 with
  // *why on failure.
  int openSocket(const std::string& addr, const in_addr& ia, std::string* why);
  void readPackets(int fd);
  void handlePacket(const unsigned char* p, size_t n);
  Rx* rxFor(const McastKey& key, uint64_t len, uint32_t frag, bool create);
  void markRange(Rx& rx, uint64_t offset, uint64_t n);
  // Asks the root for the missing fragments: only the holes below the highest fragment
  // seen (`all`: every missing fragment, after silence).
  void sendNak(const McastKey& key, Rx& rx, bool all);
  uint64_t buffered() const;
  // A repair-protocol TCP frame about message `key` (context, a = seq, b = sub).
  FrameHeader tcpFrame(FrameType type, const McastKey& key) const;
  uint32_t fragSize() const;

  int fd_ = -1;
  int myRank_ = 0;
  int worldSize_ = 1;
  SipKey key_;
  uint64_t jobId_ = 0;
  TcpTransport* tcp_ = nullptr;
  std::string why_;
  in_addr ifAddr_{};
  uint16_t port_ = 0;
  in_addr_t base_ = 0;
  uint32_t poolSize_ = 1;
  uint32_t mtu_ = 1500;
  double rate_ = 0;   // lane 0's configured pacing, bytes per second on the wire
  double scale_ = 1;  // share of the lanes' rates in use (loss feedback, 0.5 .. 1)
  uint64_t burst_ = 0;
  std::vector<std::unique_ptr<Lane>> lanes_;  // [0] is fd_'s
  uint64_t arrivals_ = 0;       // datagrams and repairs taken into waited-for messages
  uint64_t releasedBytes_ = 0;  // copies held for released messages
  size_t releasedCount_ = 0;
  double testDrop_ = 0;
  uint64_t dropState_ = 0;
  std::map<in_addr_t, int> joined_;
  std::map<uint32_t, int> subscribed_;
  std::map<McastKey, Rx> rx_;
  std::map<McastKey, Tx> tx_;
  // Released messages a newer one under the same key replaced (a reused context id),
  // still waiting for their acknowledgements, oldest first.
  std::multimap<McastKey, Tx> superseded_;
  std::map<uint32_t, Ctx> ctx_;
  McastStats stats_;
  static constexpr size_t kSendBatch = 16;
  static_assert(kSendBatch * kMcastMaxLanes <= kMcastMaxRedo);
  std::vector<unsigned char> pkt_;  // kSendBatch datagrams being sent
  static constexpr size_t kReadBatch = 32;
  std::vector<unsigned char> rbuf_;                 // kReadBatch datagrams of at most mtu_ bytes
  std::vector<std::vector<unsigned char>> nakBuf_;  // per peer: a NAK's ranges arriving
};

McastTransport& mcast();
// CCMPI_MCAST_EAGER: the largest message whose root does not wait for acknowledgements.
uint64_t mcastEagerLimit();

}  // namespace ccmpi::transport
