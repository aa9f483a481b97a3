// TCP transport implementation (see tcp.h for the protocol).
#include "transport/tcp.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>

#include "base/link.h"
#include "base/log.h"
#include "base/tunables.h"
#include "transport/cma.h"

namespace ccmpi::transport {
namespace {

Tunable<uint64_t> kSockBuf(
    "CCMPI_TCP_SOCKBUF", 0,
    "SO_SNDBUF/SO_RCVBUF of TCP connections in bytes (0 = kernel autotuning)");

Tunable<std::string> kCongestion(
    "CCMPI_TCP_CONGESTION", "",
    "TCP congestion control of the connections (e.g. cubic, bbr; empty = the kernel's default)");

Tunable<double> kHandshakeSeconds(
    "CCMPI_TCP_HANDSHAKE_TIMEOUT", 10,
    "seconds an accepted TCP connection has to prove the job secret before it is closed; "
    "at most max(64, 2 x ranks) connections may be waiting at once (the oldest is closed "
    "for a new one)");
Tunable<double> kConnectRetrySeconds(
    "CCMPI_TCP_CONNECT_RETRY", 30,
    "seconds a connection attempt that fails for the network's sake (no route to host: a "
    "lost ARP exchange on a lossy link; network unreachable; timed out) is repeated, with "
    "growing pauses, before the peer counts as lost");

Tunable<uint64_t> kSynRetryMs(
    "CCMPI_TCP_SYN_RETRY_MS", 100,
    "milliseconds a connection attempt waits for the peer's answer to its SYN before a new "
    "attempt replaces it, the wait doubling for each of up to 4 replacements (then the "
    "kernel's own retransmissions); the kernel repeats a lost SYN only after 1 s, so on a "
    "lossy network every lost SYN or SYN-ACK held up the first message to a peer for 1 s. "
    "0 = leave it to the kernel");

Tunable<uint64_t> kUserTimeoutMs(
    "CCMPI_TCP_USER_TIMEOUT_MS", 20000,
    "milliseconds a connection's sent data may stay unacknowledged before the peer counts "
    "as lost and the job ends naming its address (TCP_USER_TIMEOUT; a cable down for good "
    "otherwise holds the job for the kernel's 15 minutes of retransmissions). Shorter "
    "outages are survived as TCP survives them; 0 = the kernel's");

Tunable<uint64_t> kNotsentLowat(
    "CCMPI_TCP_NOTSENT_LOWAT", 128 * 1024,
    "bytes of unsent data a connection's kernel buffer may hold (TCP_NOTSENT_LOWAT; 0 = no "
    "limit). Data waits in ccmpi's queue instead, where small frames (a rendezvous "
    "clear-to-send) pass a large transfer in progress");

Tunable<std::string> kPacing(
    "CCMPI_TCP_PACING", "auto",
    "pacing of TCP connections between hosts (SO_MAX_PACING_RATE): auto = at the link's TCP "
    "payload rate when the link rate is known (CCMPI_LINK_MBITS set), off, or a line rate "
    "in Mbit/s. A connection paced at the link rate leaves no standing queue in its host's "
    "transmit queue, so small frames to other peers (a clear-to-send, a phase's ready "
    "message) do not wait behind it");

Tunable<uint64_t> kRtoMinUs(
    "CCMPI_TCP_RTO_MIN_US", 10000,
    "lowest retransmission timeout of connections between hosts in microseconds "
    "(TCP_RTO_MIN_US, Linux 6.15 and later; ignored where the kernel lacks it; 0 = the "
    "kernel's, 200 ms). A lost segment that no later one reveals (a message's tail, a small "
    "message alone) waits for this timeout or for the tail loss probe derived from it: at "
    "200 ms one loss holds up a whole collective for 200 ms on a network whose round trip "
    "is a fraction of a millisecond");

Tunable<double> kUnpaceLoss(
    "CCMPI_TCP_UNPACE_LOSS", 0.2,
    "percent of a paced connection's segments retransmitted (from 8 retransmissions on) "
    "above which it stops pacing (CCMPI_TCP_PACING) and uses the unpaced unsent-data "
    "limit: on a lossy path pacing delays the repairs; 0 = never");

Tunable<double> kRailTimeout(
    "CCMPI_RAIL_TIMEOUT", 5,
    "seconds data written to a rail beyond the first may stay unacknowledged (TCP_USER_TIMEOUT) "
    "before the rail counts as failed for that peer: its data in flight is sent again on the "
    "other rails (docs/multirail.md)");

// Sets TCP_USER_TIMEOUT on the socket of a rail beyond rail 0.
void setRailTimeout(int fd) {
  const double s = kRailTimeout.get();
  if (s <= 0) return;
  unsigned v = static_cast<unsigned>(std::min(s * 1000, 3.6e6));
  setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &v, sizeof v);
}

Tunable<double> kLossyRetrans(
    "CCMPI_LOSSY_RETRANS", 1.0,
    "percent of the segments of this rank's connections retransmitted (from 16 "
    "retransmissions on) above which this rank counts the network as lossy "
    "(transport::lossSeen()): collectives then prefer fewer rounds where each rank may "
    "choose alone (the pairwise Alltoall posts every exchange at once, the phased "
    "Alltoallv sends in one round); 0 = never. Drops at a congested switch port on a "
    "clean network stay well below 1%");
Tunable<bool> kAssumeLoss(
    "CCMPI_ASSUME_LOSS", false,
    "act as if this rank had seen loss from the start (CCMPI_LOSSY_RETRANS): for a "
    "network known to lose packets, and for tests");
std::atomic<bool> gLossSeen{false};
// Over all of this rank's connections: segments sent (estimated) and retransmitted.
std::atomic<uint64_t> gSegments{0}, gRetrans{0};

// A connection's counters grew by `segments` and `retrans` since its last report. The sums
// over every connection decide: a rank talks to many peers, so it knows within a few
// messages what one connection would learn only after hundreds of segments.
void noteSegments(uint64_t segments, uint64_t retrans) {
  const uint64_t segs = gSegments.fetch_add(segments, std::memory_order_relaxed) + segments;
  const uint64_t re = gRetrans.fetch_add(retrans, std::memory_order_relaxed) + retrans;
  const double lossy = kLossyRetrans.get();
  if (lossy <= 0 || re < 16 || static_cast<double>(re) * 100.0 < lossy * static_cast<double>(segs))
    return;
  if (!gLossSeen.exchange(true, std::memory_order_relaxed))
    log::info(
        "%llu of about %llu segments retransmitted on this rank's connections; the network "
        "counts as lossy (CCMPI_LOSSY_RETRANS)",
        static_cast<unsigned long long>(re), static_cast<unsigned long long>(segs));
}

// Linux's socket option for the per-socket minimum RTO (uapi linux/tcp.h since 6.15);
// Debian 12's headers predate it.
#ifndef TCP_RTO_MIN_US
#define TCP_RTO_MIN_US 45
#endif

// Small enough that little of a large payload is read into it (and copied again).
constexpr size_t kInBufBytes = 64 * 1024;
constexpr size_t kDirectReadMin = 16 * 1024;  // payload reads this large bypass the buffer
constexpr int kMaxIov = 64;
constexpr uint64_t kRateMinBytes = 256 * 1024;  // smallest backlog period that is a sample
constexpr uint64_t kRateMaxBytes = 1 << 20;     // a sample at least every this many bytes
constexpr int kReadsPerEvent = 32;
constexpr int kMaxSynRetries = 4;  // see CCMPI_TCP_SYN_RETRY_MS
// Bytes written between loss checks (checkLoss) of a paced connection, and of every
// connection until the rank has counted the network as lossy.
constexpr uint64_t kLossCheckBytes = 64 * 1024;
// Largest SO_RCVLOWAT (see setReadThreshold): far below what the receive window holds
// (tcp_rmem's default 128 KiB buffer, less its per-segment overhead), so the sender can
// always put that much in flight and the wait ends even on a lossy path.
constexpr uint64_t kLowatMax = 32 * 1024;

uint64_t randomU64() {
  uint64_t v = 0;
  if (getrandom(&v, sizeof v, 0) != sizeof v)
    v = static_cast<uint64_t>(progress::Engine::nowNs()) ^ 0x9e3779b97f4a7c15ull;
  return v;
}

// On a listener too: an accepted socket inherits it, and the first RTO of the acceptor's
// challenge is computed at the end of the TCP handshake, before accept() returns.
void setRtoMin(int fd) {
  if (const uint64_t rto = kRtoMinUs.get()) {
    int v = static_cast<int>(std::min<uint64_t>(rto, 200000));
    setsockopt(fd, IPPROTO_TCP, TCP_RTO_MIN_US, &v, sizeof v);  // fails on older kernels
  }
}

void setSocketOptions(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  const std::string& cc = kCongestion.get();
  if (!cc.empty() &&
      setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc.data(), static_cast<socklen_t>(cc.size())))
    log::warn("CCMPI_TCP_CONGESTION=%s: %s", cc.c_str(), strerror(errno));
  if (const uint64_t lowat = kNotsentLowat.get()) {
    int v = static_cast<int>(std::min<uint64_t>(lowat, 1u << 30));
    setsockopt(fd, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &v, sizeof v);
  }
  if (const uint64_t ms = kUserTimeoutMs.get()) {
    unsigned v = static_cast<unsigned>(std::min<uint64_t>(ms, 1u << 30));
    setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &v, sizeof v);
  }
  setRtoMin(fd);
  const uint64_t buf = kSockBuf.get();
  if (buf > 0) {
    int b = static_cast<int>(std::min<uint64_t>(buf, 1u << 30));
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &b, sizeof b);
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &b, sizeof b);
  }
}

void setKeepalive(int fd, bool on) {
  int v = on ? 1 : 0;
  setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &v, sizeof v);
  if (!on) return;
  int idle = 1, interval = 1, count = 10;
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof interval);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof count);
}

// A handshake frame owned by its connection.
class CtrlFrame final : public OutFrame {
 public:
  explicit CtrlFrame(const FrameHeader& h) { setFrame(h); }
  void written() override { delete this; }
};

// The pacing rate for a line rate of `mbits`: its TCP payload rate. SO_MAX_PACING_RATE
// counts a segment's IP length and a GSO packet of several segments its headers once, so
// this keeps the line at or just below its capacity.
uint64_t payloadRate(double mbits) {
  return static_cast<uint64_t>(tcpPayloadBytesPerSecond(mbits));
}

}  // namespace

void OutFrame::setFrame(const FrameHeader& h, const void* p1, size_t n1, const void* p2,
                        size_t n2) {
  encodeHeader(h, hdr);
  iov[0] = {hdr, kHeaderBytes};
  iovcnt = 1;
  bytesLeft = kHeaderBytes;
  if (n1) {
    iov[iovcnt++] = {const_cast<void*>(p1), n1};
    bytesLeft += n1;
  }
  if (n2) {
    iov[iovcnt++] = {const_cast<void*>(p2), n2};
    bytesLeft += n2;
  }
}

class TcpConn final : public progress::EventHandler {
 public:
  enum class State {
    kConnecting,
    kAwaitChallenge,
    kAwaitAccept,
    kAwaitHello,
    kOpen,
    kRejecting,
    kClosed
  };

  TcpConn(TcpTransport* t, int fd, int peer, State st) : t_(t), fd_(fd), peer_(peer), st_(st) {
    in_.resize(kInBufBytes);
  }
  ~TcpConn() override { closeFd(); }

  int fd() const { return fd_; }
  int peer() const { return peer_; }
  int64_t acceptedNs() const { return acceptedNs_; }
  int64_t connectNs() const { return connectNs_; }
  void setConnectNs(int64_t ns) { connectNs_ = ns; }
  State state() const { return st_; }
  bool idle() const { return outq_.empty(); }

  void enqueue(OutFrame* f) {
    if (f->urgent && outq_.size() > 1 && !consuming_) {
      // Behind the frame being written (the front) and the urgent frames before it. (Not
      // while consume() walks the queue: the bytes written belong to the frames in order.)
      auto at = outq_.begin() + 1;
      while (at != outq_.end() && (*at)->urgent) ++at;
      outq_.insert(at, f);
      return;
    }
    outq_.push_back(f);
    if (outq_.size() == 1 && st_ != State::kConnecting) flush();
  }
  void enqueueAll(std::deque<OutFrame*>& q) {
    while (!q.empty()) {
      outq_.push_back(q.front());
      q.pop_front();
    }
    if (st_ != State::kConnecting) flush();
  }

  // The peer's IP address, for messages (a timed-out socket no longer has it).
  void notePeerAddress() {
    sockaddr_in sa{};
    socklen_t len = sizeof sa;
    if (getpeername(fd_, reinterpret_cast<sockaddr*>(&sa), &len) == 0)
      inet_ntop(AF_INET, &sa.sin_addr, peerIp_, sizeof peerIp_);
  }

  // Our attempt's first frame (FrameType::kPreamble): written as soon as the socket
  // connects, before the challenge can arrive.
  void queuePreamble() {
    FrameHeader h;
    h.type = FrameType::kPreamble;
    h.src = t_->cfg_.myRank;
    enqueue(new CtrlFrame(h));
  }

  void startAccepted() {
    notePeerAddress();
    acceptedNs_ = progress::Engine::nowNs();
    challenge_[0] = randomU64();
    challenge_[1] = randomU64();
    FrameHeader h;
    h.type = FrameType::kChallenge;
    h.src = t_->cfg_.myRank;
    h.a = challenge_[0];
    h.b = challenge_[1];
    enqueue(new CtrlFrame(h));
  }

  void onEvent(uint32_t events) override {
    if (st_ == State::kClosed) return;
    if (st_ == State::kConnecting && (events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) {
      int err = 0;
      socklen_t len = sizeof err;
      getsockopt(fd_, SOL_SOCKET, SO_ERROR, &err, &len);
      if (err) {
        if ((err == EHOSTUNREACH || err == ENETUNREACH || err == ETIMEDOUT) &&
            t_->retryConnect(this)) {
          closeQuietly();
          return;
        }
        return fail(std::string("connect failed: ") + strerror(err));
      }
      st_ = State::kAwaitChallenge;
      notePeerAddress();
      updateInterest();
    }
    if (events & EPOLLOUT) flush();
    if (st_ == State::kClosed) return;
    if (events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
      readSome();
      if (st_ != State::kClosed) setReadThreshold();
    }
  }

  // Writes as much of the queue as the socket takes, several frames per writev.
  void flush() {
    while (!outq_.empty() && st_ != State::kClosed) {
      iovec iov[kMaxIov];
      int cnt = 0;
      for (OutFrame* f : outq_) {
        if (f->unprepared) {
          f->unprepared = false;
          f->prepare();
        }
        if (cnt + f->iovcnt > kMaxIov) break;
        for (int i = 0; i < f->iovcnt; ++i)
          if (f->iov[i].iov_len) iov[cnt++] = f->iov[i];
        if (f->isStream()) break;  // its next frame comes before anything queued behind it
      }
      // sendmsg with MSG_NOSIGNAL, not writev: a peer that has gone (its job ends) must
      // give EPIPE here, not a SIGPIPE that kills this rank (seen at MPI_Finalize of a
      // 5-rank job, 2026-11-26).
      msghdr mh{};
      mh.msg_iov = iov;
      mh.msg_iovlen = static_cast<size_t>(cnt);
      ssize_t n = ::sendmsg(fd_, &mh, MSG_NOSIGNAL);
      if (n < 0) {
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
          if (busyStartNs_ == 0) {
            busyStartNs_ = progress::Engine::nowNs();
            busyBytes_ = 0;
          }
          wantWrite(true);
          return;
        }
        return failIo(std::string("write failed: ") + strerror(errno));
      }
      if (busyStartNs_) {
        busyBytes_ += static_cast<uint64_t>(n);
        // A long backlog gives a sample every kRateMaxBytes (and goes on).
        if (busyBytes_ >= kRateMaxBytes) {
          endBusyPeriod();
          busyStartNs_ = progress::Engine::nowNs();
        }
      }
      consume(static_cast<size_t>(n));
      written_ += static_cast<uint64_t>(n);
      if ((paced_ || !gLossSeen.load(std::memory_order_relaxed)) &&
          written_ - lossCheckedAt_ >= kLossCheckBytes)
        checkLoss();
    }
    if (outq_.empty()) {
      endBusyPeriod();
      wantWrite(false);
      if (st_ == State::kRejecting) closeQuietly();
    }
  }

  void closeQuietly() {
    closeFd();
    st_ = State::kClosed;
  }

  void fail(const std::string& why) {
    if (st_ == State::kClosed) return;
    closeQuietly();
    t_->connFailed(this, why);
  }

  // The socket broke. An attempt of ours still waiting for the peer's challenge or
  // acceptance is made again (within CCMPI_TCP_CONNECT_RETRY): on a lossy network the
  // peer's end of a connection can fail to come up although ours did (its last handshake
  // segments lost), and the keepalive probes of a connecting socket find that out.
  void failIo(const std::string& what) {
    std::string why = what;
    // TCP_USER_TIMEOUT (or the kernel's retransmissions) gave up, or this host lost its
    // route (its interface went down): name the host the path leads to.
    if (what.find(strerror(ETIMEDOUT)) != std::string::npos)
      why += std::string(": the network path to its host ") + peerIp_ +
             " is down (nothing acknowledged within CCMPI_TCP_USER_TIMEOUT_MS)";
    else if (what.find(strerror(ENETUNREACH)) != std::string::npos ||
             what.find(strerror(EHOSTUNREACH)) != std::string::npos)
      why += std::string(": the network path to its host ") + peerIp_ +
             " is down (this host has no route to it)";
    if ((st_ == State::kAwaitChallenge || st_ == State::kAwaitAccept) && t_->retryConnect(this)) {
      log::info("connection to rank %d broke during the handshake (%s); trying again", peer_,
                why.c_str());
      closeQuietly();
      return;
    }
    fail(why);
  }

  // Frames still queued when the connection dies are released so nothing leaks.
  void dropQueue() {
    while (!outq_.empty()) {
      OutFrame* f = outq_.front();
      outq_.pop_front();
      f->written();
    }
  }

  // Paced at the link rate (TcpTransport::opened); see checkLoss().
  void setPaced(bool on) { paced_ = on; }

  // Throughput to the peer (bytes/s), measured over periods in which the socket stayed
  // full (the path, not this process, was the bottleneck); 0 until measured.
  double drainRate() const { return rate_; }

  TcpTransport* t_;
  int fd_;
  int peer_;
  State st_;
  int rail_ = 0;  // the rail it runs on (rails.h)
  uint64_t challenge_[2] = {0, 0};
  uint64_t myNonce_ = 0;
  std::deque<OutFrame*> outq_;
  bool consuming_ = false;  // consume() is walking outq_ (enqueue only appends)

 private:
  friend class TcpTransport;
  // A paced connection that loses segments stops pacing. Pacing keeps the host's transmit
  // queue short on a clean network, but on a lossy one it spaces out the segments that
  // would reveal a loss (and the repairs): measured on 8 emulated hosts at 2% loss, the
  // mixed collectives of bench/reliability took 22-24 s paced, 13-16 s unpaced.
  void checkLoss() {
    lossCheckedAt_ = written_;
    tcp_info ti{};
    socklen_t len = sizeof ti;
    if (getsockopt(fd_, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0) return;
    const double segments = static_cast<double>(written_) / 1448 + 1;
    const uint64_t segs = written_ / 1448 + 1;
    if (segs > reportedSegs_ || ti.tcpi_total_retrans > reportedRetrans_) {
      noteSegments(segs - std::min(segs, reportedSegs_),
                   ti.tcpi_total_retrans - std::min(ti.tcpi_total_retrans, reportedRetrans_));
      reportedSegs_ = std::max(segs, reportedSegs_);
      reportedRetrans_ = std::max(ti.tcpi_total_retrans, reportedRetrans_);
    }
    const double limit = kUnpaceLoss.get();
    if (!paced_ || limit <= 0 || ti.tcpi_total_retrans < 8 ||
        ti.tcpi_total_retrans * 100.0 < limit * segments)
      return;
    unsigned long unlimited = ~0UL;
    setsockopt(fd_, SOL_SOCKET, SO_MAX_PACING_RATE, &unlimited, sizeof unlimited);
    int lowat = static_cast<int>(std::min<uint64_t>(kNotsentLowat.get(), 1u << 30));
    setsockopt(fd_, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &lowat, sizeof lowat);
    paced_ = false;
    log::info("connection to rank %d: %u of about %.0f segments retransmitted; stopped pacing",
              peer_, ti.tcpi_total_retrans, segments);
  }

  void closeFd() {
    if (fd_ >= 0) {
      progress::engine().remove(fd_);
      ::close(fd_);
      fd_ = -1;
    }
  }

  // A backlog period ended (the queue drained): a sample of the path's throughput if it
  // moved enough bytes to mean something. Weighted mean of the samples.
  void endBusyPeriod() {
    if (busyStartNs_ == 0) return;
    const int64_t ns = progress::Engine::nowNs() - busyStartNs_;
    if (busyBytes_ >= kRateMinBytes && ns > 0) {
      const double sample = static_cast<double>(busyBytes_) * 1e9 / static_cast<double>(ns);
      rate_ = rate_ == 0 ? sample : 0.7 * rate_ + 0.3 * sample;
    }
    busyStartNs_ = 0;
    busyBytes_ = 0;
  }

  void wantWrite(bool on) {
    if (on == writeArmed_) return;
    writeArmed_ = on;
    updateInterest();
  }
  void updateInterest() {
    uint32_t ev = EPOLLIN;
    if (writeArmed_ || st_ == State::kConnecting) ev |= EPOLLOUT;
    progress::engine().modify(fd_, ev, this);
  }

  void consume(size_t n) {
    consuming_ = true;
    struct Done {
      bool& flag;
      ~Done() { flag = false; }
    } done{consuming_};
    while (n > 0 && !outq_.empty()) {
      OutFrame* f = outq_.front();
      if (n >= f->bytesLeft) {
        n -= f->bytesLeft;
        f->bytesLeft = 0;
        if (f->refill()) {
          // Next frame of the stream. Frames queued behind it go first (a clear-to-send
          // must not wait for a large transfer to this peer to finish); DATA frames say
          // where they belong, so streams interleave.
          if (outq_.size() > 1) {
            outq_.pop_front();
            outq_.push_back(f);
          }
          continue;
        }
        outq_.pop_front();
        f->written();
        continue;
      }
      f->bytesLeft -= n;
      for (int i = 0; i < f->iovcnt && n > 0; ++i) {
        const size_t take = std::min(n, f->iov[i].iov_len);
        f->iov[i].iov_base = static_cast<char*>(f->iov[i].iov_base) + take;
        f->iov[i].iov_len -= take;
        n -= take;
      }
    }
    // Zero-length frames left at the front (refilled streams) are finished here.
    while (!outq_.empty() && outq_.front()->bytesLeft == 0 && !outq_.front()->unprepared) {
      OutFrame* f = outq_.front();
      if (f->refill()) break;
      outq_.pop_front();
      f->written();
    }
  }

  void readSome() {
    for (int round = 0; round < kReadsPerEvent && st_ != State::kClosed; ++round) {
      ssize_t n;
      size_t asked;
      const size_t avail = inEnd_ - inStart_;
      if (inPayload_ && avail == 0 && keepLeft() >= kDirectReadMin) {
        // Large payload: read straight into the destination, and whatever follows into
        // the buffer (only the next frame's header when the stream is a large transfer,
        // so that frame's payload is read straight into place too).
        inStart_ = inEnd_ = 0;
        const size_t tail = streaming_ ? kHeaderBytes : in_.size();
        iovec iov[2] = {{tgt_.dest + got_, keepLeft()}, {in_.data(), tail}};
        asked = keepLeft() + tail;
        n = ::readv(fd_, iov, 2);
        if (n > 0) {
          const size_t direct = std::min<size_t>(n, keepLeft());
          got_ += direct;
          payloadLeft_ -= direct;
          inEnd_ = n - direct;
        }
      } else {
        if (inStart_ == inEnd_) inStart_ = inEnd_ = 0;
        if (inEnd_ == in_.size()) {
          memmove(in_.data(), in_.data() + inStart_, avail);
          inStart_ = 0;
          inEnd_ = avail;
        }
        asked = in_.size() - inEnd_;
        // In a large transfer (the last frame's payload was read in place), a frame
        // boundary reads just the header: a buffered read would pull the next frame's
        // payload (CCMPI_RNDV_FRAME, 64 KiB) into the buffer and copy it again.
        if (streaming_ && !inPayload_ && avail < kHeaderBytes)
          asked = std::min(asked, kHeaderBytes - avail);
        n = ::read(fd_, in_.data() + inEnd_, asked);
        if (n > 0) inEnd_ += n;
      }
      if (n == 0) return failIo("connection closed by peer");
      if (n < 0) {
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return;
        return failIo(std::string("read failed: ") + strerror(errno));
      }
      parse();
      // A short read drained the socket: level-triggered epoll reports more data later,
      // so skip the read that would only say EAGAIN.
      if (static_cast<size_t>(n) < asked) return;
    }
  }

  // In the middle of a large payload, the socket wakes this process only once the rest of
  // it (up to kLowatMax) is there (SO_RCVLOWAT), instead of for every segment: at 100
  // Mbit/s a segment arrives every 123 us, and a wake-up, an epoll_wait and a read per
  // segment cost a receiver more CPU than the data itself. The rest of a frame's payload
  // always follows (frames are never interleaved on a connection), and kLowatMax stays
  // well inside the receive window, so the wait ends.
  void setReadThreshold() {
    const uint64_t avail = inEnd_ - inStart_;
    uint64_t want = 1;
    if (inPayload_ && payloadLeft_ > avail && payloadLeft_ - avail >= kDirectReadMin)
      want = std::min<uint64_t>(payloadLeft_ - avail, kLowatMax);
    if (want == lowat_) return;
    int v = static_cast<int>(want);
    if (setsockopt(fd_, SOL_SOCKET, SO_RCVLOWAT, &v, sizeof v) == 0) lowat_ = want;
  }

  uint64_t keepLeft() const { return got_ < tgt_.keep ? tgt_.keep - got_ : 0; }

  void parse() {
    while (st_ != State::kClosed) {
      if (inPayload_) {
        if (payloadLeft_ > 0) {
          const size_t avail = inEnd_ - inStart_;
          if (avail == 0) return;
          const size_t take = std::min<uint64_t>(avail, payloadLeft_);
          const size_t keep = std::min<uint64_t>(take, keepLeft());
          if (keep) memcpy(tgt_.dest + got_, in_.data() + inStart_, keep);
          got_ += keep;
          inStart_ += take;
          payloadLeft_ -= take;
          if (payloadLeft_ > 0) return;
        }
        inPayload_ = false;
        t_->sink_->onPayload(peer_, cur_, tgt_);
        continue;
      }
      FrameHeader h;
      const char* why = nullptr;
      const DecodeStatus ds =
          decodeHeader(in_.data() + inStart_, inEnd_ - inStart_, t_->cfg_.limits, &h, &why);
      if (ds == DecodeStatus::kNeedMore) return;
      if (ds == DecodeStatus::kBad) return fail(std::string("malformed frame: bad ") + why);
      inStart_ += kHeaderBytes;
      if (!handleHeader(h)) return;
    }
  }

  bool handleHeader(const FrameHeader& h) {
    TcpTransport& t = *t_;
    const int me = t.cfg_.myRank;
    switch (st_) {
      case State::kAwaitChallenge: {
        if (h.type != FrameType::kChallenge || h.src != t.wireRank(peer_)) {
          fail("expected a challenge");
          return false;
        }
        myNonce_ = randomU64();
        FrameHeader r;
        r.type = FrameType::kHello;
        r.src = me;
        // The connector's job (docs/dynamic.md): the acceptor tells its own job's ranks from
        // processes of other jobs by it.
        r.context = static_cast<uint32_t>(t.myJob_);
        r.tag = static_cast<int32_t>(static_cast<uint32_t>(t.myJob_ >> 32));
        r.a = t.peerMac(peer_, 'H', h.a, h.b, me, t.wireRank(peer_));
        r.b = myNonce_;
        st_ = State::kAwaitAccept;
        // An attempt holds no data before it is accepted (its frames wait in the peer's
        // queue): at most the preamble is still here, and the hello goes behind it.
        outq_.push_back(new CtrlFrame(r));
        flush();
        return st_ != State::kClosed;
      }
      case State::kAwaitAccept: {
        if (h.src != t.wireRank(peer_) ||
            (h.type != FrameType::kAccept && h.type != FrameType::kReject) ||
            h.a != t.peerMac(peer_, h.type == FrameType::kAccept ? 'A' : 'R', myNonce_, 0,
                             t.wireRank(peer_), me)) {
          ++t.rejectedAuth_;
          fail("peer failed to authenticate");
          return false;
        }
        if (h.type == FrameType::kReject) {
          // The peer's own connection to us wins; it will arrive on the listener.
          closeQuietly();
          if (rail_ > 0) {
            if (t.link(peer_, rail_).outgoing == this) t.link(peer_, rail_).outgoing = nullptr;
          } else if (t.peers_[peer_].outgoing == this) {
            t.peers_[peer_].outgoing = nullptr;
          }
          return false;
        }
        st_ = State::kOpen;
        t.opened(peer_, this);
        return st_ != State::kClosed;
      }
      case State::kAwaitHello:
        if (h.type == FrameType::kPreamble && !sawPreamble_) {
          sawPreamble_ = true;
          return true;
        }
        return onHello(h);
      case State::kOpen: {
        if (h.src != t.wireRank(peer_)) {
          fail("frame claims another source rank");
          return false;
        }
        if (h.type == FrameType::kHostInfo) {
          t.hostInfo(peer_, h);
          return true;
        }
        if (h.type == FrameType::kRailDown) {
          t.railDown(peer_, static_cast<int>(h.a));
          return st_ != State::kClosed;
        }
        if (h.type < FrameType::kEager) {
          fail("handshake frame on an open connection");
          return false;
        }
        cur_ = h;
        tgt_ = PayloadTarget{};
        if (t.sink_->onFrame(peer_, h, &tgt_) != 0) {
          fail("protocol error in frame from peer");
          return false;
        }
        // Control frames (a clear-to-send between DATA frames) leave the hint alone.
        if (h.payloadLen > 0) streaming_ = h.payloadLen >= kDirectReadMin;
        if (h.payloadLen > 0) {
          if (tgt_.keep > h.payloadLen) tgt_.keep = h.payloadLen;
          inPayload_ = true;
          payloadLeft_ = h.payloadLen;
          got_ = 0;
        }
        return true;
      }
      default:
        fail("frame in unexpected connection state");
        return false;
    }
  }

  // The HELLO of an accepted connection. A process of another job may connect before this
  // process has learnt of it (its group finished connecting first): that HELLO is parked
  // until addForeign() names the process, or the handshake timeout closes the connection.
  bool onHello(const FrameHeader& h) {
    TcpTransport& t = *t_;
    const int me = t.cfg_.myRank;
    const uint64_t job = h.context | (static_cast<uint64_t>(static_cast<uint32_t>(h.tag)) << 32);
    const bool ownJob = job == 0 || job == t.myJob_;
    const int index = ownJob ? h.src : t.foreignIndex(job, h.src);
    if (h.type == FrameType::kHello && !ownJob && index < 0) {
      parked_ = true;
      parkedHello_ = h;
      return true;
    }
    parked_ = false;
    if (h.type != FrameType::kHello || (ownJob && h.src == me) || index < 0 ||
        (ownJob && h.src >= t.cfg_.worldSize) ||
        h.a != t.mac('H', challenge_[0], challenge_[1], h.src, me)) {
      closeQuietly();
      t.noteDropped("it did not prove the job secret");
      return false;
    }
    peer_ = index;
    myNonce_ = h.b;  // the connector's nonce, answered below
    t.accepted(this);
    return st_ != State::kClosed;
  }
  // A parked HELLO from rank `rank` of job `job`, which is now known: resumes it.
  void resumeHello(uint64_t job, int rank) {
    if (!parked_ || st_ != State::kAwaitHello || parkedHello_.src != rank) return;
    const uint64_t j = parkedHello_.context |
                       (static_cast<uint64_t>(static_cast<uint32_t>(parkedHello_.tag)) << 32);
    if (j == job) onHello(parkedHello_);
  }

  bool parked_ = false;
  bool sawPreamble_ = false;
  FrameHeader parkedHello_;
  int64_t acceptedNs_ = 0;  // when the listener accepted it (0: our own attempt)
  int64_t connectNs_ = 0;   // when our attempt called connect()
  char peerIp_[INET_ADDRSTRLEN] = "?";
  std::vector<unsigned char> in_;
  size_t inStart_ = 0, inEnd_ = 0;
  uint64_t lowat_ = 1;  // SO_RCVLOWAT of the socket
  bool inPayload_ = false;
  bool streaming_ = false;  // the last frame had a large payload: more are likely to follow
  FrameHeader cur_;
  PayloadTarget tgt_;
  uint64_t payloadLeft_ = 0;
  uint64_t got_ = 0;
  bool writeArmed_ = false;
  int64_t busyStartNs_ = 0;  // start of the current backlog period (0 = none)
  uint64_t busyBytes_ = 0;
  double rate_ = 0;
  bool paced_ = false;
  uint64_t reportedSegs_ = 0;  // segments and retransmissions counted in noteSegments
  uint32_t reportedRetrans_ = 0;
  uint64_t written_ = 0;        // bytes written to the socket
  uint64_t lossCheckedAt_ = 0;  // written_ at the last checkLoss()
};

uint64_t TcpTransport::mac(char tag, uint64_t nonce0, uint64_t nonce1, int from, int to) const {
  return macWith(cfg_.secret, myJob_, tag, nonce0, nonce1, from, to);
}

uint64_t TcpTransport::peerMac(int peer, char tag, uint64_t nonce0, uint64_t nonce1, int from,
                               int to) const {
  const Peer& p = peers_[static_cast<size_t>(peer)];
  return p.foreign ? macWith(p.key, p.job, tag, nonce0, nonce1, from, to)
                   : mac(tag, nonce0, nonce1, from, to);
}

uint64_t TcpTransport::macWith(const SipKey& key, uint64_t job, char tag, uint64_t nonce0,
                               uint64_t nonce1, int from, int to) {
  struct {
    char tag[8];
    uint64_t n0, n1, job;
    int32_t from, to;
  } m{};
  m.tag[0] = tag;
  memcpy(m.tag + 1, "ccmpi", 5);
  m.n0 = nonce0;
  m.n1 = nonce1;
  m.job = job;
  m.from = from;
  m.to = to;
  return siphash24(key, &m, sizeof m);
}

int TcpTransport::foreignIndex(uint64_t job, int rank) const {
  for (size_t i = static_cast<size_t>(cfg_.worldSize); i < peers_.size(); ++i)
    if (peers_[i].foreign && peers_[i].job == job && peers_[i].remoteRank == rank)
      return static_cast<int>(i);
  return -1;
}

void TcpTransport::addForeign(int index, uint64_t job, int rank, const SipKey& key,
                              const std::string& addr) {
  if (peers_.size() <= static_cast<size_t>(index)) peers_.resize(static_cast<size_t>(index) + 1);
  Peer& p = peers_[static_cast<size_t>(index)];
  p.foreign = true;
  p.job = job;
  p.remoteRank = rank;
  p.key = key;
  p.addr = addr;
  cfg_.limits.worldSize = std::max(cfg_.limits.worldSize, rank + 1);
  for (size_t i = 0; i < conns_.size(); ++i) conns_[i]->resumeHello(job, rank);
}

TcpTransport::TcpTransport() = default;

int TcpTransport::listenOn(const std::string& ip, uint16_t* port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  setRtoMin(fd);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  if (inet_pton(AF_INET, ip.c_str(), &sa.sin_addr) != 1) {
    log::error("invalid bind address '%s'", ip.c_str());
    ::close(fd);
    return -1;
  }
  if (::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 || ::listen(fd, 1024) != 0) {
    log::error("cannot listen on %s: %s", ip.c_str(), strerror(errno));
    ::close(fd);
    return -1;
  }
  socklen_t len = sizeof sa;
  getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len);
  *port = ntohs(sa.sin_port);
  return fd;
}

int TcpTransport::init(const TcpConfig& cfg, Sink* sink) {
  cfg_ = cfg;
  sink_ = sink;
  peers_.assign(cfg.worldSize, Peer{});
  cma::init();
  uint16_t port = 0;
  listenFd_ = listenOn(cfg.bindAddress, &port);
  if (listenFd_ < 0) return -1;
  address_ = cfg.bindAddress + ":" + std::to_string(port);
  listener_ = std::make_unique<Listener>(this, listenFd_, 0);
  progress::engine().add(listenFd_, EPOLLIN, listener_.get());
  if (cfg_.rails.empty()) {
    Rail r;
    r.ip = cfg.bindAddress;
    r.prefix = 32;
    cfg_.rails.push_back(r);
  }
  cfg_.rails[0].port = port;
  // Every further rail gets a listener of its own: a connection's rail is the listener
  // that accepted it. A rail whose address cannot be listened on is left out.
  for (size_t i = 1; i < cfg_.rails.size();) {
    uint16_t p = 0;
    const int fd = listenOn(cfg_.rails[i].ip, &p);
    if (fd < 0) {
      log::warn("rail %s (%s) left out: no listener", cfg_.rails[i].iface.c_str(),
                cfg_.rails[i].ip.c_str());
      cfg_.rails.erase(cfg_.rails.begin() + static_cast<std::ptrdiff_t>(i));
      continue;
    }
    cfg_.rails[i].port = p;
    railListeners_.push_back(std::make_unique<Listener>(this, fd, static_cast<int>(i)));
    progress::engine().add(fd, EPOLLIN, railListeners_.back().get());
    ++i;
  }
  return 0;
}

void TcpTransport::Listener::onEvent(uint32_t) {
  for (;;) {
    int fd = ::accept4(fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0 && (errno == EMFILE || errno == ENFILE) && t_->dropOldestHandshake()) continue;
    if (fd < 0) return;
    // Connections that have not proved the job secret are capped: the oldest goes for a
    // new one (a peer of the job proves it within milliseconds; an intruder holding
    // connections open does not starve it, nor exhaust this process's descriptors).
    while (t_->handshakes() >= t_->maxHandshakes() && t_->dropOldestHandshake()) {
    }
    setSocketOptions(fd);
    if (rail_ > 0) setRailTimeout(fd);
    auto c = std::make_unique<TcpConn>(t_, fd, -1, TcpConn::State::kAwaitHello);
    TcpConn* raw = c.get();
    raw->rail_ = rail_;
    t_->conns_.push_back(std::move(c));
    progress::engine().add(fd, EPOLLIN, raw, /*traffic=*/true);
    raw->startAccepted();
    t_->watchHandshakes();
  }
}

void TcpTransport::send(int peer, OutFrame* f) {
  Peer& p = peers_[peer];
  if (p.active) {
    p.active->enqueue(f);
    return;
  }
  if (p.queue.empty() && p.wantedNs == 0) p.wantedNs = progress::Engine::nowNs();
  p.queue.push_back(f);
  if (!p.outgoing) connectTo(peer);
}

void TcpTransport::connectTo(int peer) {
  std::string addr = peers_[static_cast<size_t>(peer)].addr;
  if (addr.empty() && (!cfg_.resolve || cfg_.resolve(peer, &addr) != 0))
    log::fatal("cannot find the address of rank %d", peer);
  const size_t colon = addr.rfind(':');
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  if (colon == std::string::npos ||
      inet_pton(AF_INET, addr.substr(0, colon).c_str(), &sa.sin_addr) != 1)
    log::fatal("rank %d published a malformed address '%s'", peer, addr.c_str());
  sa.sin_port = htons(static_cast<uint16_t>(atoi(addr.c_str() + colon + 1)));
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) log::fatal("socket() failed: %s", strerror(errno));
  setSocketOptions(fd);
  // Until the peer's challenge arrives, probe the connection every second: a peer whose
  // end never came up (its last handshake segments lost) answers with a reset, and we try
  // again, instead of both sides waiting forever. A peer that is merely busy acknowledges
  // the probes. Switched off once the connection is open.
  setKeepalive(fd, true);
  int rc = ::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa);
  if (rc != 0 && errno != EINPROGRESS) {
    const int err = errno;
    ::close(fd);
    if ((err == EHOSTUNREACH || err == ENETUNREACH) && scheduleRetry(peer)) return;
    log::fatal("cannot connect to rank %d at %s: %s", peer, addr.c_str(), strerror(err));
  }
  auto c = std::make_unique<TcpConn>(
      this, fd, peer, rc == 0 ? TcpConn::State::kAwaitChallenge : TcpConn::State::kConnecting);
  TcpConn* raw = c.get();
  if (rc == 0) raw->notePeerAddress();
  conns_.push_back(std::move(c));
  peers_[peer].outgoing = raw;
  progress::engine().add(fd, EPOLLIN | (rc == 0 ? 0u : static_cast<uint32_t>(EPOLLOUT)), raw,
                         /*traffic=*/true);
  raw->queuePreamble();
  if (rc != 0 && kSynRetryMs.get() > 0 && peers_[peer].synRetries < kMaxSynRetries) {
    raw->setConnectNs(progress::Engine::nowNs());
    watchConnect(peer);
  }
}

TcpTransport::RailLink& TcpTransport::link(int peer, int rail) {
  Peer& p = peers_[peer];
  if (p.links.size() < cfg_.rails.size()) p.links.resize(cfg_.rails.size());
  return p.links[static_cast<size_t>(rail)];
}

const std::vector<int>& TcpTransport::railsTo(int peer) {
  Peer& p = peers_[peer];
  if (p.railsKnown) return p.usable;
  p.usable.assign(1, 0);
  // Decided once rail 0 is open (it tells whether the peer shares this host).
  if (!p.active) return p.usable;
  p.railsKnown = true;
  std::string card;
  // (A process of another job has no rail card in this job's key space: rail 0 only.)
  if (p.sameHost || p.foreign || cfg_.rails.size() < 2 || !cfg_.resolveRails ||
      cfg_.resolveRails(peer, &card) != 0 || !parseRailCard(card, &p.theirs))
    return p.usable;
  p.theirRail = matchRails(cfg_.rails, p.theirs);
  for (size_t i = 1; i < p.theirRail.size(); ++i)
    if (p.theirRail[i] > 0) p.usable.push_back(static_cast<int>(i));
  link(peer, 0);
  return p.usable;
}

double TcpTransport::railMbits(int peer, int rail) const {
  const Peer& p = peers_[peer];
  if (rail < 0 || static_cast<size_t>(rail) >= cfg_.rails.size()) return 0;
  const double mine = cfg_.rails[static_cast<size_t>(rail)].mbits;
  double theirs = 0;
  if (static_cast<size_t>(rail) < p.theirRail.size() && p.theirRail[rail] >= 0 &&
      static_cast<size_t>(p.theirRail[rail]) < p.theirs.size())
    theirs = p.theirs[static_cast<size_t>(p.theirRail[rail])].mbits;
  if (mine > 0 && theirs > 0) return std::min(mine, theirs);
  return std::max(mine, theirs);
}

void TcpTransport::sendOnRail(int peer, int rail, OutFrame* f) {
  if (rail <= 0 || static_cast<size_t>(rail) >= cfg_.rails.size()) return send(peer, f);
  RailLink& l = link(peer, rail);
  if (l.dead) return send(peer, f);
  if (l.active) {
    l.active->enqueue(f);
    return;
  }
  l.queue.push_back(f);
  if (!l.outgoing) connectRail(peer, rail);
}

void TcpTransport::connectRail(int peer, int rail) {
  Peer& p = peers_[peer];
  RailLink& l = link(peer, rail);
  const Rail& mine = cfg_.rails[static_cast<size_t>(rail)];
  const Rail& theirs = p.theirs[static_cast<size_t>(p.theirRail[static_cast<size_t>(rail)])];
  sockaddr_in local{}, sa{};
  local.sin_family = sa.sin_family = AF_INET;
  sa.sin_port = htons(theirs.port);
  int fd = -1;
  int rc = -1;
  if (inet_pton(AF_INET, mine.ip.c_str(), &local.sin_addr) == 1 &&
      inet_pton(AF_INET, theirs.ip.c_str(), &sa.sin_addr) == 1)
    fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd >= 0) {
    setSocketOptions(fd);
    setKeepalive(fd, true);
    setRailTimeout(fd);
    // A rail whose peer never answers (its cable already down, a subnet that only looks
    // shared) is given up after about 7 s of SYN retries, not the kernel's two minutes.
    int syn = 2;
    setsockopt(fd, IPPROTO_TCP, TCP_SYNCNT, &syn, sizeof syn);
    // From this rail's address: the reply comes back over the same NIC.
    if (::bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof local) == 0) {
      rc = ::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa);
      if (rc != 0 && errno == EINPROGRESS) rc = 1;
    }
  }
  if (rc < 0) {
    // Nothing was sent on it: the rail is dropped and its frames go on rail 0 as they are.
    log::notice("rail %d (%s) to rank %d at %s:%u unusable (%s): dropped", rail, mine.iface.c_str(),
                peer, theirs.ip.c_str(), theirs.port, strerror(errno));
    if (fd >= 0) ::close(fd);
    l.dead = true;
    ++railsLost_;
    while (!l.queue.empty()) {
      OutFrame* f = l.queue.front();
      l.queue.pop_front();
      send(peer, f);
    }
    return;
  }
  auto c = std::make_unique<TcpConn>(
      this, fd, peer, rc == 0 ? TcpConn::State::kAwaitChallenge : TcpConn::State::kConnecting);
  TcpConn* raw = c.get();
  raw->rail_ = rail;
  conns_.push_back(std::move(c));
  l.outgoing = raw;
  progress::engine().add(fd, EPOLLIN | (rc == 0 ? 0u : static_cast<uint32_t>(EPOLLOUT)), raw,
                         /*traffic=*/true);
  raw->queuePreamble();
}

void TcpTransport::accepted(TcpConn* c) {
  const int peer = c->peer_;
  const int me = cfg_.myRank;
  Peer& p = peers_[peer];
  FrameHeader r;
  r.src = me;
  TcpConn* active = p.active;
  TcpConn* outgoing = p.outgoing;
  if (c->rail_ > 0) {
    active = link(peer, c->rail_).active;
    outgoing = link(peer, c->rail_).outgoing;
  }
  // Ties are broken by (job, rank): the same answer at both ends, also across jobs.
  const bool meFirst =
      p.foreign ? (myJob_ < p.job || (myJob_ == p.job && me < p.remoteRank)) : me < peer;
  if (active || (outgoing && meFirst)) {
    // Our connection (lower rank) wins, or one is already open: refuse this one.
    r.type = FrameType::kReject;
    r.a = mac('R', c->myNonce_, 0, me, wireRank(peer));
    c->st_ = TcpConn::State::kRejecting;
    c->enqueue(new CtrlFrame(r));
    return;
  }
  r.type = FrameType::kAccept;
  r.a = mac('A', c->myNonce_, 0, me, wireRank(peer));
  c->st_ = TcpConn::State::kOpen;
  // If we had an attempt of our own, it will be rejected by the peer; its queued frames
  // are still in p.queue (attempts never hold data before they are accepted).
  c->outq_.push_back(new CtrlFrame(r));
  opened(peer, c);
}

namespace {
// Both ends of a connected TCP socket on one IPv4 address (or on loopback).
bool socketIsLocal(int fd) {
  sockaddr_in mine{}, theirs{};
  socklen_t a = sizeof mine, b = sizeof theirs;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&mine), &a) != 0 ||
      getpeername(fd, reinterpret_cast<sockaddr*>(&theirs), &b) != 0 ||
      mine.sin_family != AF_INET || theirs.sin_family != AF_INET)
    return false;
  const bool loop = (ntohl(theirs.sin_addr.s_addr) >> 24) == 127;
  return loop || mine.sin_addr.s_addr == theirs.sin_addr.s_addr;
}
}  // namespace

bool TcpTransport::sameHost(int peer) const {
  return peer >= 0 && peer < static_cast<int>(peers_.size()) && peers_[peer].active &&
         peers_[peer].sameHost;
}

uint64_t pacingRate() {
  static const uint64_t rate = [] {
    const std::string& v = kPacing.get();
    if (v == "off") return uint64_t{0};
    if (v == "auto" || v.empty()) return linkMbitsKnown() ? payloadRate(linkMbits()) : 0;
    char* end = nullptr;
    const double mbits = strtod(v.c_str(), &end);
    if (end != v.c_str() && *end == '\0' && mbits > 0) return payloadRate(mbits);
    log::warn("CCMPI_TCP_PACING=%s is not auto, off or a rate in Mbit/s; not pacing", v.c_str());
    return uint64_t{0};
  }();
  return rate;
}

uint64_t pacedNotsentLowat() {
  // Enough unsent data to cover about a millisecond of the paced rate (the process may be
  // slow to refill the socket on a busy host), and at least 16 KiB.
  return std::max<uint64_t>(16 * 1024, pacingRate() / 1000);
}

void TcpTransport::opened(int peer, TcpConn* c) {
  Peer& p = peers_[peer];
  if (c->rail_ > 0) {
    RailLink& l = link(peer, c->rail_);
    if (l.outgoing == c) {
      setKeepalive(c->fd(), false);
      l.outgoing = nullptr;
    }
    l.active = c;
    l.dead = false;
    if (const uint64_t rate = pacingRate(); rate > 0) {
      unsigned long r = rate;
      if (setsockopt(c->fd(), SOL_SOCKET, SO_MAX_PACING_RATE, &r, sizeof r) == 0) c->setPaced(true);
    }
    ++railsOpened_;
    log::debug("rail %d (%s) to rank %d open", c->rail_, cfg_.rails[c->rail_].iface.c_str(), peer);
    c->enqueueAll(l.queue);
    return;
  }
  if (p.outgoing == c) setKeepalive(c->fd(), false);
  if (p.outgoing == c) p.outgoing = nullptr;
  p.active = c;
  p.sameHost = socketIsLocal(c->fd());
  if (!p.sameHost) ++remoteOpened_;
  if (const uint64_t rate = pacingRate(); rate > 0 && !p.sameHost) {
    unsigned long r = rate;
    if (setsockopt(c->fd(), SOL_SOCKET, SO_MAX_PACING_RATE, &r, sizeof r) == 0) {
      ++pacedOpened_;
      c->setPaced(true);
    } else
      log::warn("SO_MAX_PACING_RATE: %s", strerror(errno));
    kNotsentLowat.get();
    if (!kNotsentLowat.fromEnv()) {
      int v = static_cast<int>(pacedNotsentLowat());
      setsockopt(c->fd(), IPPROTO_TCP, TCP_NOTSENT_LOWAT, &v, sizeof v);
    }
  }
  if (p.wantedNs) {
    log::debug("connection to rank %d open %.1f ms after its first frame (%s, %d SYN retries)",
               peer, static_cast<double>(progress::Engine::nowNs() - p.wantedNs) / 1e6,
               c->acceptedNs() ? "accepted" : "ours", p.synRetries);
    p.wantedNs = 0;
  }
  p.cmaPid = 0;
  p.connectRetries = 0;
  p.synRetries = 0;
  p.retryAtNs = 0;
  ++opened_;
  if (p.sameHost && cma::enabled()) {
    // Before any queued frame: the peer knows our pid before our first rendezvous offer.
    FrameHeader h;
    h.type = FrameType::kHostInfo;
    h.src = cfg_.myRank;
    h.a = static_cast<uint64_t>(getpid());
    h.b = cma::tokenAddress();
    h.offset = cma::tokenValue();
    c->outq_.push_back(new CtrlFrame(h));
  }
  c->enqueueAll(p.queue);
}

void TcpTransport::hostInfo(int peer, const FrameHeader& h) {
  Peer& p = peers_[peer];
  p.cmaPid = 0;
  if (!p.sameHost || !cma::enabled()) return;
  std::string why;
  if (cma::probe(static_cast<pid_t>(h.a), h.b, h.offset, &why)) {
    p.cmaPid = static_cast<int>(h.a);
    log::debug("single-copy transfers from rank %d (pid %d)", peer, p.cmaPid);
  } else {
    log::info(
        "no single-copy transfers from rank %d on this host (%s): its messages stream "
        "over TCP",
        peer, why.c_str());
  }
}

void TcpTransport::railDown(int peer, int rail) {
  if (rail < 1 || static_cast<size_t>(rail) >= cfg_.rails.size()) return;
  RailLink& l = link(peer, rail);
  TcpConn* gone[2] = {l.active, l.outgoing};
  const bool carried = l.active != nullptr;
  l.active = l.outgoing = nullptr;
  l.dead = true;
  for (TcpConn* c : gone)
    if (c) {
      c->closeQuietly();
      c->dropQueue();
    }
  while (!l.queue.empty()) {
    OutFrame* f = l.queue.front();
    l.queue.pop_front();
    send(peer, f);
  }
  if (!carried) return;
  ++railsLost_;
  log::notice("rail %d (%s) to rank %d failed at rank %d's end: dropped", rail,
              cfg_.rails[static_cast<size_t>(rail)].iface.c_str(), peer, peer);
  sink_->onRailLost(peer, rail);
}

void TcpTransport::connFailed(TcpConn* c, const std::string& why) {
  const int peer = c->peer_;
  if (peer < 0) {
    noteDropped(why.c_str());
    return;
  }
  Peer& p = peers_[peer];
  if (c->rail_ > 0) {
    RailLink& l = link(peer, c->rail_);
    const bool mattered = l.active == c || l.outgoing == c;
    const bool carried = l.active == c;  // an attempt never holds data
    if (l.active == c) l.active = nullptr;
    if (l.outgoing == c) l.outgoing = nullptr;
    c->dropQueue();
    if (!mattered || shuttingDown_) return;
    l.dead = true;
    ++railsLost_;
    // Frames that never reached the connection go to rail 0 as they are.
    while (!l.queue.empty()) {
      OutFrame* f = l.queue.front();
      l.queue.pop_front();
      send(peer, f);
    }
    log::notice("rail %d (%s) to rank %d failed (%s): dropped, its traffic goes on the others",
                c->rail_, cfg_.rails[c->rail_].iface.c_str(), peer, why.c_str());
    if (!carried) return;
    // The peer closes its end too (its rail 0 delivers this before what is sent again), so
    // bytes of the failed connection still on their way cannot land after the ranges they
    // carried came again on another rail.
    railsTo(peer);
    const size_t r = static_cast<size_t>(c->rail_);
    if (r < p.theirRail.size() && p.theirRail[r] > 0) {
      FrameHeader h;
      h.type = FrameType::kRailDown;
      h.src = cfg_.myRank;
      h.a = static_cast<uint64_t>(p.theirRail[r]);
      send(peer, new CtrlFrame(h));
    }
    sink_->onRailLost(peer, c->rail_);
    return;
  }
  bool mattered = p.active == c || p.outgoing == c;
  if (p.active == c) p.active = nullptr;
  if (p.outgoing == c) p.outgoing = nullptr;
  // A process of another job may finish before this one (its MPI_Finalize closes the
  // connection): a failure only when something was still to be sent to it.
  if (p.foreign && c->idle() && p.queue.empty()) {
    mattered = false;
    log::debug("connection to process %d (rank %d of job %llx) closed: %s", peer, p.remoteRank,
               static_cast<unsigned long long>(p.job), why.c_str());
  }
  c->dropQueue();
  if (mattered && !shuttingDown_) sink_->onPeerLost(peer, why);
}

namespace {
TcpTransport* gGuarded = nullptr;  // the transport whose handshakes are watched
bool handshakeHook() {
  return gGuarded && gGuarded->sweepHandshakes();
}
// Lines about dropped connections per process: one intruder must not flood the job's
// output; the rest are counted and summed up at the end.
constexpr uint64_t kDropReports = 5;
}  // namespace

size_t TcpTransport::handshakes() const {
  size_t n = 0;
  for (const auto& c : conns_)
    if (c->state() == TcpConn::State::kAwaitHello) ++n;
  return n;
}

size_t TcpTransport::maxHandshakes() const {
  return std::max<size_t>(64, 2 * static_cast<size_t>(cfg_.worldSize));
}

bool TcpTransport::dropOldestHandshake() {
  TcpConn* oldest = nullptr;
  for (const auto& c : conns_)
    if (c->state() == TcpConn::State::kAwaitHello &&
        (!oldest || c->acceptedNs() < oldest->acceptedNs()))
      oldest = c.get();
  if (!oldest) return false;
  oldest->closeQuietly();
  noteDropped("too many connections waiting to authenticate; closed the oldest");
  return true;
}

void TcpTransport::noteDropped(const char* why) {
  ++rejectedAuth_;
  ++dropped_;
  if (dropped_ <= kDropReports)
    log::error("dropped an unauthenticated TCP connection: %s%s", why,
               dropped_ == kDropReports ? " (further ones are counted, not reported)" : "");
}

void TcpTransport::watchHandshakes() {
  gGuarded = this;
  progress::engine().addHook(&handshakeHook);
}

bool TcpTransport::sweepHandshakes() {
  // Cheap on most turns: the clock is read every 256th, and only while connections wait.
  if ((++sweepTurn_ & 255) != 0) return false;
  const int64_t now = progress::Engine::nowNs();
  const int64_t limit = static_cast<int64_t>(std::max(0.0, kHandshakeSeconds.get()) * 1e9);
  bool any = false;
  for (auto it = conns_.begin(); it != conns_.end();) {
    TcpConn* c = it->get();
    if (c->state() == TcpConn::State::kAwaitHello && now - c->acceptedNs() > limit) {
      c->closeQuietly();
      noteDropped("it did not authenticate in time (CCMPI_TCP_HANDSHAKE_TIMEOUT)");
      any = true;
    }
    // Closed connections that never belonged to a peer are deleted here, after the
    // engine's event batch (none of their events is pending any more).
    if (c->state() == TcpConn::State::kClosed && c->peer() < 0 && c->acceptedNs() != 0)
      it = conns_.erase(it);
    else
      ++it;
  }
  return any;
}

namespace {
TcpTransport* gConnecting = nullptr;  // the transport with attempts to watch
bool connectHook() {
  return gConnecting && gConnecting->checkConnects();
}
}  // namespace

TcpTransport::~TcpTransport() {
  if (gConnecting == this) gConnecting = nullptr;
}

bool lossSeen() {
  static const bool assumed = kAssumeLoss.get();
  return assumed || gLossSeen.load(std::memory_order_relaxed);
}

int64_t synRetryDelayNs(int retries) {
  const uint64_t ms = kSynRetryMs.get();
  if (ms == 0 || retries < 0 || retries >= kMaxSynRetries) return 0;
  return static_cast<int64_t>(std::min<uint64_t>(ms, 10000)) * 1000000 << retries;
}

void TcpTransport::watchConnect(int peer) {
  if (std::find(synWatch_.begin(), synWatch_.end(), peer) == synWatch_.end())
    synWatch_.push_back(peer);
  gConnecting = this;
  progress::engine().addHook(&connectHook);
}

bool TcpTransport::checkConnects() {
  if (synWatch_.empty()) return false;
  const int64_t now = progress::Engine::nowNs();
  bool started = false;
  for (size_t k = 0; k < synWatch_.size();) {
    const int peer = synWatch_[k];
    Peer& p = peers_[peer];
    TcpConn* c = p.outgoing;
    const int64_t delay = synRetryDelayNs(p.synRetries);
    if (shuttingDown_ || !c || c->state() != TcpConn::State::kConnecting || delay == 0) {
      synWatch_.erase(synWatch_.begin() + static_cast<std::ptrdiff_t>(k));
      continue;
    }
    const int64_t due = c->connectNs() + delay;
    if (now < due) {
      progress::engine().wakeBy(due);
      ++k;
      continue;
    }
    // No SYN-ACK yet: the SYN or its answer was lost (or the peer's accept queue is full).
    // A new attempt sends a new SYN at once instead of the kernel's retransmission at 1 s.
    // (One that has just come up, its event not yet handled, is kept.)
    tcp_info ti{};
    socklen_t len = sizeof ti;
    if (getsockopt(c->fd(), IPPROTO_TCP, TCP_INFO, &ti, &len) == 0 &&
        ti.tcpi_state != TCP_SYN_SENT) {
      synWatch_.erase(synWatch_.begin() + static_cast<std::ptrdiff_t>(k));
      continue;
    }
    ++p.synRetries;
    log::info("connection to rank %d: no answer to its SYN within %lld ms; trying again (%d)", peer,
              static_cast<long long>(delay / 1000000), p.synRetries);
    c->closeQuietly();
    p.outgoing = nullptr;
    synWatch_.erase(synWatch_.begin() + static_cast<std::ptrdiff_t>(k));
    connectTo(peer);  // watches the new attempt again (appended)
    started = true;
  }
  return started;
}

namespace {
TcpTransport* gRetrying = nullptr;  // the transport with attempts to repeat
bool retryHook() {
  return gRetrying && gRetrying->retryDue();
}
}  // namespace

bool TcpTransport::retryConnect(TcpConn* c) {
  const int peer = c->peer_;
  if (shuttingDown_ || peer < 0 || peers_[peer].outgoing != c) return false;
  return scheduleRetry(peer);
}

bool TcpTransport::scheduleRetry(int peer) {
  Peer& p = peers_[peer];
  const int64_t now = progress::Engine::nowNs();
  if (p.connectRetries == 0)
    p.retryUntilNs = now + static_cast<int64_t>(std::max(0.0, kConnectRetrySeconds.get()) * 1e9);
  if (now >= p.retryUntilNs) return false;
  // 50 ms, doubling to 1.6 s: the kernel's own neighbour resolution has just taken ~3 s.
  const int64_t pause = 50'000'000LL << std::min(p.connectRetries, 5);
  ++p.connectRetries;
  p.outgoing = nullptr;
  p.retryAtNs = std::min(now + pause, p.retryUntilNs);
  log::info("connection to rank %d failed for the network's sake; trying again (%d)", peer,
            p.connectRetries);
  retryPending_ = true;
  gRetrying = this;
  progress::engine().addHook(&retryHook);
  return true;
}

bool TcpTransport::retryDue() {
  if (!retryPending_) return false;
  const int64_t now = progress::Engine::nowNs();
  bool any = false, started = false;
  for (size_t i = 0; i < peers_.size(); ++i) {
    Peer& p = peers_[i];
    if (p.retryAtNs == 0) continue;
    if (p.active || p.outgoing) {
      p.retryAtNs = 0;  // the peer connected to us meanwhile
      continue;
    }
    if (now < p.retryAtNs) {
      any = true;
      continue;
    }
    p.retryAtNs = 0;
    connectTo(static_cast<int>(i));
    started = true;
  }
  // connectTo may have scheduled another retry (a synchronous failure).
  for (const Peer& p : peers_) any = any || p.retryAtNs != 0;
  retryPending_ = any;
  return started;
}

bool TcpTransport::hasPendingOutput() const {
  for (const auto& c : conns_)
    if (c->state() != TcpConn::State::kClosed && !c->idle()) return true;
  for (const Peer& p : peers_) {
    if (!p.queue.empty()) return true;
    for (const RailLink& l : p.links)
      if (!l.queue.empty()) return true;
  }
  return false;
}

std::string TcpTransport::pendingOutput() const {
  std::string out;
  for (size_t i = 0; i < peers_.size(); ++i) {
    const Peer& p = peers_[i];
    size_t frames = p.queue.size();
    uint64_t bytes = 0;
    for (const OutFrame* f : p.queue) bytes += f->bytesLeft;
    if (p.active && p.active->state() != TcpConn::State::kClosed)
      for (const OutFrame* f : p.active->outq_) {
        ++frames;
        bytes += f->bytesLeft;
      }
    if (frames == 0) continue;
    if (!out.empty()) out += ", ";
    out += "rank " + std::to_string(i) + " (" + std::to_string(frames) + " frames, " +
           std::to_string(bytes) + " bytes unsent" + (p.active ? "" : ", not connected") + ")";
  }
  return out;
}

double TcpTransport::drainRate(int peer) const {
  if (peer < 0 || static_cast<size_t>(peer) >= peers_.size()) return 0;
  const TcpConn* c = peers_[static_cast<size_t>(peer)].active;
  return c ? c->drainRate() : 0;
}

void TcpTransport::shutdown(double drainSeconds) {
  shuttingDown_ = true;
  if (gRetrying == this) gRetrying = nullptr;
  if (gGuarded == this) gGuarded = nullptr;
  if (dropped_ > kDropReports)
    log::error("dropped %llu unauthenticated TCP connections in all",
               static_cast<unsigned long long>(dropped_));
  const int64_t deadline =
      progress::Engine::nowNs() + static_cast<int64_t>(std::max(0.0, drainSeconds) * 1e9);
  while (hasPendingOutput() && progress::Engine::nowNs() < deadline) progress::engine().poll(10);
  for (auto& c : conns_) {
    c->dropQueue();
    c->closeQuietly();
  }
  for (Peer& p : peers_) {
    for (OutFrame* f : p.queue) f->written();
    p.queue.clear();
    for (RailLink& l : p.links) {
      for (OutFrame* f : l.queue) f->written();
      l.queue.clear();
    }
  }
  conns_.clear();
  if (listenFd_ >= 0) {
    progress::engine().remove(listenFd_);
    ::close(listenFd_);
    listenFd_ = -1;
  }
  for (auto& l : railListeners_) {
    progress::engine().remove(l->fd_);
    ::close(l->fd_);
  }
  railListeners_.clear();
}

std::string interfaceAddress(const std::string& name) {
  ifaddrs* ifs = nullptr;
  if (getifaddrs(&ifs) != 0) return "";
  std::string out;
  for (ifaddrs* i = ifs; i; i = i->ifa_next) {
    if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || name != i->ifa_name) continue;
    char buf[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr, buf, sizeof buf);
    out = buf;
    break;
  }
  freeifaddrs(ifs);
  return out;
}

std::string defaultAddress() {
  ifaddrs* ifs = nullptr;
  if (getifaddrs(&ifs) != 0) return "127.0.0.1";
  std::string out = "127.0.0.1";
  for (ifaddrs* i = ifs; i; i = i->ifa_next) {
    if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET) continue;
    if ((i->ifa_flags & IFF_LOOPBACK) || !(i->ifa_flags & IFF_UP)) continue;
    char buf[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr, buf, sizeof buf);
    out = buf;
    break;
  }
  freeifaddrs(ifs);
  return out;
}

}  // namespace ccmpi::transport
