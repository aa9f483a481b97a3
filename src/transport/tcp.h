#pragma once
// TCP transport: one long-lived, authenticated connection per pair of ranks, opened
// lazily on first use.
//
// Set-up: every rank listens on the selected interface and publishes "ip:port". The
// rank that first needs a connection connects; the acceptor sends a random challenge,
// the connector answers with HELLO{rank, its own nonce, MAC(secret, challenge, ranks)},
// the acceptor verifies and answers ACCEPT{MAC(secret, connector nonce)}. Nothing a
// connection sends before it has proved the secret reaches the matching engine. If
// both ranks of a pair connect at once, the connection opened by the lower rank wins;
// the other is answered REJECT, and frames queued for the peer wait for the winner.
//
// Frames are written with one writev (header + payload iovecs) on non-blocking sockets
// with TCP_NODELAY; reads go through a per-connection buffer, except large payloads,
// which are read straight into their destination.
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/siphash.h"
#include "progress/engine.h"
#include "transport/rails.h"
#include "transport/transport.h"

namespace ccmpi::transport {

struct TcpConfig {
  int myRank = 0;
  int worldSize = 1;
  SipKey secret;
  uint64_t jobId = 0;
  std::string bindAddress;  // IPv4 address to listen on
  FrameLimits limits;
  // Looks up a peer's published "ip:port" (blocking PMI get).
  std::function<int(int peer, std::string* addr)> resolve;
  // This host's rails (rails.h), rails[0] holding bindAddress; empty = rail 0 alone.
  std::vector<Rail> rails;
  // Looks up a peer's published rail card (blocking PMI get).
  std::function<int(int peer, std::string* card)> resolveRails;
};

class TcpConn;

class TcpTransport {
 public:
  TcpTransport();
  ~TcpTransport();
  int init(const TcpConfig& cfg, Sink* sink);
  // The job secret and id used to authenticate connections (set before any traffic).
  void setSecret(const SipKey& key, uint64_t jobId) {
    cfg_.secret = key;
    cfg_.jobId = jobId;
    myJob_ = jobIdentity(key, jobId);
  }
  // The 64-bit identity of a job in handshakes: its launcher's job id, else one derived from
  // its secret (the same on every rank of the job).
  static uint64_t jobIdentity(const SipKey& key, uint64_t jobId) {
    return jobId ? jobId : siphash24(key, "ccmpi-job", 9) | 1;
  }
  uint64_t jobIdentity() const { return myJob_; }
  bool listening() const { return listenFd_ >= 0; }
  // Processes of other jobs (dynamic processes, docs/dynamic.md): peer `index` (>= the
  // world size) is rank `rank` of job `job`, listening at `addr`; connections to and from it
  // prove `key`, that job's secret, the way connections inside a job prove this job's.
  void addForeign(int index, uint64_t job, int rank, const SipKey& key, const std::string& addr);
  // The peer index of rank `rank` of foreign job `job`, or -1.
  int foreignIndex(uint64_t job, int rank) const;
  // "ip:port" this rank listens on.
  const std::string& address() const { return address_; }
  // Queues f for peer (world rank != self). Opens the connection on first use.
  void send(int peer, OutFrame* f);

  // Rails (rails.h, docs/multirail.md). This host's rails with the ports their listeners
  // took, and the card published for them.
  const std::vector<Rail>& rails() const { return cfg_.rails; }
  std::string railCard() const { return formatRailCard(cfg_.rails); }
  // The rails (indices into rails()) this rank shares with peer, rail 0 first; rail 0
  // alone for a peer on this host or one not connected yet. Reads the peer's card once.
  const std::vector<int>& railsTo(int peer);
  // Whether railsTo(peer) has decided (the connection to peer has been open).
  bool railsDecided(int peer) const { return peers_[static_cast<size_t>(peer)].railsKnown; }
  // Mbit/s of the slower end of a rail to peer (0 = unknown).
  double railMbits(int peer, int rail) const;
  // Queues f on the connection of that rail to peer (rail 0: send()), opening it on first
  // use; a rail found dead takes its frames to rail 0. A rail connection that breaks is
  // dropped: its queued frames are released (written()) and the sink hears onRailLost.
  void sendOnRail(int peer, int rail, OutFrame* f);
  // Whether that rail to peer has not been dropped (rail 0 always is up).
  bool railUp(int peer, int rail) const {
    const Peer& p = peers_[static_cast<size_t>(peer)];
    return rail <= 0 || static_cast<size_t>(rail) >= p.links.size() ||
           !p.links[static_cast<size_t>(rail)].dead;
  }
  uint64_t railsOpened() const { return railsOpened_; }
  uint64_t railsLost() const { return railsLost_; }
  // Stop treating peer disconnects as failures (after the finalize barrier).
  void beginShutdown() { shuttingDown_ = true; }
  // Flushes queued frames (for at most drainSeconds) and closes every connection.
  void shutdown(double drainSeconds = 10);
  FrameLimits& limits() { return cfg_.limits; }
  // Counters for tests and ccmpi_info.
  uint64_t connectionsOpened() const { return opened_; }
  // Connections opened to another host, and how many of them are paced (pacingRate()).
  uint64_t remoteOpened() const { return remoteOpened_; }
  uint64_t pacedOpened() const { return pacedOpened_; }
  uint64_t connectionsRejected() const { return rejectedAuth_; }
  bool hasPendingOutput() const;
  // The peers output still waits for, for a diagnostic: "rank 3 (2 frames, 65600 bytes
  // unsent)", comma-separated; empty if none.
  std::string pendingOutput() const;
  // Throughput to peer in bytes/s measured while its socket was backlogged (0 = unknown).
  double drainRate(int peer) const;
  // Starts the connection attempts that are due (progress hook); true if one started.
  bool retryDue();
  // Replaces attempts whose SYN went unanswered for CCMPI_TCP_SYN_RETRY_MS (doubling) by
  // new ones (progress hook); true if one started.
  bool checkConnects();
  // Closes accepted connections that did not authenticate within
  // CCMPI_TCP_HANDSHAKE_TIMEOUT and deletes closed unauthenticated ones (progress hook).
  bool sweepHandshakes();
  // Unauthenticated connections dropped since MPI_Init (reported up to 5 times).
  uint64_t connectionsDropped() const { return dropped_; }
  // Whether peer's connection is open and joins two addresses of this host (both ends
  // on one IP address, or loopback): the ranks share the machine.
  bool sameHost(int peer) const;
  // The process id of a same-host peer whose memory this rank may read (it proved the pid
  // with the HOSTINFO probe, cma.h), or 0.
  int cmaPid(int peer) const {
    return peer >= 0 && peer < static_cast<int>(peers_.size()) ? peers_[peer].cmaPid : 0;
  }
  // A read from peer failed: single-copy transfers from it stop (its messages stream).
  void disableCma(int peer) { peers_[peer].cmaPid = 0; }

 private:
  friend class TcpConn;
  // The connection of one rail beyond rail 0 to a peer.
  struct RailLink {
    TcpConn* active = nullptr;
    TcpConn* outgoing = nullptr;
    std::deque<OutFrame*> queue;
    bool dead = false;  // it broke: traffic stays on the other rails
  };
  struct Peer {
    TcpConn* active = nullptr;    // authenticated connection carrying the pair's traffic
    TcpConn* outgoing = nullptr;  // our connection attempt not yet accepted
    std::deque<OutFrame*> queue;  // frames waiting for `active`
    bool sameHost = false;        // of `active`, found when it opened
    int cmaPid = 0;               // see cmaPid()
    int connectRetries = 0;       // failed attempts since the last open connection
    int64_t retryUntilNs = 0;     // give up retrying after this
    int64_t retryAtNs = 0;        // next attempt due (0 = none)
    bool railsKnown = false;      // usable and theirRail are set (railsTo)
    std::vector<int> usable;      // rails shared with the peer, 0 first
    std::vector<int> theirRail;   // per rail of ours: the peer's rail it meets (-1: none)
    std::vector<Rail> theirs;     // the peer's card
    std::vector<RailLink> links;  // per rail of ours (index 0 unused)
    int synRetries = 0;           // attempts replaced for an unanswered SYN
    int64_t wantedNs = 0;         // when the first frame waited for a connection (0: none)
    // A process of another job (addForeign): its rank there, its job, the job's secret and
    // its listener's address.
    bool foreign = false;
    int remoteRank = -1;
    uint64_t job = 0;
    SipKey key{};
    std::string addr;
  };
  class Listener : public progress::EventHandler {
   public:
    Listener(TcpTransport* t, int fd, int rail) : t_(t), fd_(fd), rail_(rail) {}
    void onEvent(uint32_t events) override;
    TcpTransport* t_;
    int fd_;
    int rail_;
  };

  void connectTo(int peer);
  void connectRail(int peer, int rail);
  RailLink& link(int peer, int rail);
  // Opens a listener on ip (port 0: any); returns its fd or -1 and the port taken.
  int listenOn(const std::string& ip, uint16_t* port);
  void accepted(TcpConn* c);          // an accepted conn proved itself with HELLO
  void opened(int peer, TcpConn* c);  // c becomes the active connection for peer
  void connFailed(TcpConn* c, const std::string& why);
  void hostInfo(int peer, const FrameHeader& h);  // the peer's HOSTINFO frame
  // The peer dropped its end of our rail `rail` (kRailDown): ours goes too.
  void railDown(int peer, int rail);
  // An outgoing attempt failed for the network's sake: schedules another one (true) while
  // CCMPI_TCP_CONNECT_RETRY lasts; the caller closes c.
  bool retryConnect(TcpConn* c);
  bool scheduleRetry(int peer);
  void watchConnect(int peer);  // checkConnects() watches peer's new attempt
  // Accepted connections still to prove the job secret, and how many may wait at once.
  size_t handshakes() const;
  size_t maxHandshakes() const;
  // Closes the oldest of those (false if there is none).
  bool dropOldestHandshake();
  void noteDropped(const char* why);
  void watchHandshakes();
  uint64_t mac(char tag, uint64_t nonce0, uint64_t nonce1, int from, int to) const;
  // The MAC as peer's job computes it (its secret and job for a foreign peer).
  uint64_t peerMac(int peer, char tag, uint64_t nonce0, uint64_t nonce1, int from, int to) const;
  static uint64_t macWith(const SipKey& key, uint64_t job, char tag, uint64_t nonce0,
                          uint64_t nonce1, int from, int to);
  // The rank peer puts in the frames it sends (its rank in its own job).
  int wireRank(int peer) const {
    const Peer& p = peers_[static_cast<size_t>(peer)];
    return p.foreign ? p.remoteRank : peer;
  }

  TcpConfig cfg_;
  Sink* sink_ = nullptr;
  int listenFd_ = -1;
  std::string address_;
  std::unique_ptr<Listener> listener_;
  std::vector<std::unique_ptr<Listener>> railListeners_;  // rails 1..
  std::vector<Peer> peers_;
  // Connections made (kept until shutdown, but closed unauthenticated ones, which
  // sweepHandshakes deletes).
  std::vector<std::unique_ptr<TcpConn>> conns_;
  bool shuttingDown_ = false;
  bool retryPending_ = false;
  std::vector<int> synWatch_;  // peers whose attempt waits for a SYN-ACK
  uint64_t opened_ = 0;
  uint64_t remoteOpened_ = 0, pacedOpened_ = 0;
  uint64_t rejectedAuth_ = 0;
  uint64_t dropped_ = 0;
  uint64_t railsOpened_ = 0, railsLost_ = 0;
  unsigned sweepTurn_ = 0;
  uint64_t myJob_ = 0;  // jobIdentity()
};

// Whether this rank has seen a lossy network: some TCP connection retransmitted more than
// CCMPI_LOSSY_RETRANS percent of its segments (or CCMPI_ASSUME_LOSS). Local to the rank:
// a choice made on it must work whatever the other ranks chose.
bool lossSeen();

// How long an attempt that has made `retries` replacements so far waits for a SYN-ACK
// before it is replaced (CCMPI_TCP_SYN_RETRY_MS, doubling); 0 = no more replacements.
int64_t synRetryDelayNs(int retries);

// Bytes/s of TCP payload at which connections between hosts are paced (CCMPI_TCP_PACING);
// 0 when they are not.
uint64_t pacingRate();

// Helpers for interface selection: IPv4 address of interface `name`, or "" if none.
std::string interfaceAddress(const std::string& name);
// First non-loopback IPv4 address that is up, or "127.0.0.1".
std::string defaultAddress();

}  // namespace ccmpi::transport
