// Reliable IP multicast: datagram format, pacing, repair (see mcast.h).
//
// Datagram (little-endian), 64-byte header, payload, 8-byte MAC:
//   0 u32 magic "CCMC"   4 u8 version   5 u8 type (1 = data)   6 u16 header bytes (64)
//   8 u64 job id   16 u32 context   20 i32 root   24 u64 seq   32 u16 sub
//  34 u16 payload bytes   36 u32 fragment size   40 u64 message length   48 u64 offset
//  56 u32 epoch   60 u8 lanes (end mark: the lanes the message takes, else 0)
//  61 u8 lane (end mark: the lane it went on, else 0)   62 u16 reserved (0)
//  64 payload   then u64 SipHash-2-4(job secret, bytes 0..64+payload)
// A message on several lanes has an end mark on each, after that lane's data.
#include "transport/mcast.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/sockios.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "base/error.h"
#include "base/link.h"
#include "base/log.h"
#include "base/tunables.h"
#include "transport/link_finder.h"
#include "transport/tcp.h"

namespace ccmpi::transport {
namespace {

Tunable<std::string> kGroups("CCMPI_MCAST_ADDR", "239.255.198.0",
                             "first multicast group address of the job's pool");
Tunable<uint64_t> kPoolSize("CCMPI_MCAST_GROUPS", 20,
                            "most multicast groups a rank joins (NICs filter a limited number; "
                            "past it communicators share groups)");
Tunable<uint64_t> kPort("CCMPI_MCAST_PORT", 47655, "UDP port of the multicast groups");
Tunable<uint64_t> kTtl("CCMPI_MCAST_TTL", 1, "IP TTL of multicast datagrams (1 = this subnet)");
Tunable<std::string> kIface("CCMPI_MCAST_IFACE", "",
                            "interface for multicast (default: the one TCP uses)");
Tunable<uint64_t> kMtu("CCMPI_MCAST_MTU", 1500,
                       "path MTU: datagrams are at most this many bytes of IP packet");
// 16 emulated hosts, 256 KiB Bcast (bench/mcast/pacing.sh, 2026-11-25, 2-3 runs each):
// median 25.3 ms at 90% of the link, 23.8-24.0 ms at 100%, 23.8-23.9 ms at 110%.
Tunable<double> kMbits("CCMPI_MCAST_MBITS", 0,
                       "pacing rate of multicast data (Mbit/s on the wire; 0 = "
                       "CCMPI_LINK_MBITS); a sender slows down by 10% per message whose "
                       "repairs exceed 1% of what its receivers were sent (and 8 fragments), "
                       "down to half of it, and speeds up again by 2% per 64 KiB of other "
                       "messages");
Tunable<uint64_t> kBurst("CCMPI_MCAST_BURST", 32 * 1024,
                         "bytes a multicast sender may send back to back above the pacing rate");
Tunable<uint64_t> kEager("CCMPI_MCAST_EAGER", 64 * 1024,
                         "largest multicast message whose root completes as soon as its "
                         "datagrams are out (the transport keeps a copy for repairs until "
                         "every receiver acknowledged); larger ones wait for the "
                         "acknowledgements");
// 16 emulated hosts on 2 cores, 256 KiB Bcast (bench/mcast/pacing.sh, 3 runs each,
// 2026-11-25): median 25.6-25.9 ms waking for each datagram, 25.3 ms with 500 or 1500 us.
Tunable<uint64_t> kBatchUs(
    "CCMPI_MCAST_BATCH_US", 500,
    "a blocked receiver of a large multicast message, while its datagrams flow and more "
    "than this long's worth is still to come, sleeps this long between reads instead of "
    "waking for each datagram (they queue in the socket): fewer wake-ups where many ranks "
    "share few cores (0 = wake for each)");
Tunable<uint64_t> kNakUs("CCMPI_MCAST_NAK_US", 5000,
                         "silence (microseconds) after which a receiver asks for missing "
                         "fragments (1/5 of it once the last fragment arrived)");
Tunable<uint64_t> kRcvBuf("CCMPI_MCAST_RCVBUF", 8 << 20,
                          "receive buffer of the multicast socket (bytes)");
Tunable<bool> kStats("CCMPI_MCAST_STATS", false,
                     "print each rank's multicast counters to stderr at MPI_Finalize");
Tunable<double> kTestDrop("CCMPI_MCAST_TEST_DROP", 0,
                          "fault injection for tests: fraction of multicast data datagrams a "
                          "receiver drops on arrival (they are then repaired)");

constexpr uint32_t kMagic = 0x434D4343u;  // "CCMC"
constexpr double kCongestedLoss = 0.01;   // repaired share of a message that slows pacing
// A lane whose socket holds more than this many bursts (CCMPI_MCAST_BURST, counted with
// the kernel's buffer overhead) takes no data while another lane has room; where every
// lane is that full the sender looks again after kCrowdedWaitNs. The sender reads a
// socket's queue (SIOCOUTQ) at most every kQueueReadNs and counts what it adds since.
constexpr int64_t kLaneQueueBursts = 3;
constexpr int64_t kCrowdedWaitNs = 200'000;
constexpr int64_t kQueueReadNs = 1'000'000;
constexpr uint8_t kVersion = 1;
constexpr size_t kHdr = 64;
constexpr size_t kMac = 8;
// Bytes a datagram costs on the wire beyond its UDP payload: IP and UDP headers (28),
// Ethernet header, FCS, preamble and inter-frame gap (38).
constexpr size_t kWireExtra = 28 + 38;
constexpr uint64_t kMaxMessage = 1ull << 32;
constexpr uint64_t kMaxAhead = 1024;             // collectives a datagram may be ahead
constexpr uint64_t kMaxBuffered = 256ull << 20;  // bytes of messages nobody waits for yet
constexpr size_t kRepairFrame = 64 * 1024;
constexpr int64_t kMaxNakBackoffNs = 100'000'000;  // longest wait between two NAKs
constexpr size_t kMaxNakRanges = 256;
// Copies of released messages a root may hold (beyond, it waits for acknowledgements):
// fewer than receivers would buffer ahead (kMaxAhead).
constexpr uint64_t kMaxReleasedBytes = 32ull << 20;
constexpr size_t kMaxReleased = 256;

template <typename T>
void put(unsigned char* p, T v) {
  memcpy(p, &v, sizeof v);
}
template <typename T>
T get(const unsigned char* p) {
  T v;
  memcpy(&v, p, sizeof v);
  return v;
}

// A TCP frame owning its payload (NAKs and repairs).
class OwnedFrame final : public OutFrame {
 public:
  OwnedFrame(const FrameHeader& h, std::vector<unsigned char> payload) : data_(std::move(payload)) {
    setFrame(h, data_.data(), data_.size());
  }
  void written() override { delete this; }

 private:
  std::vector<unsigned char> data_;
};

// Drives progress until done() or the monotonic clock reaches t, without spinning for
// long: for a sender waiting for its pacing allowance (incoming NAKs and acknowledgements
// wait up to 200 us).
template <typename Done>
void waitUntilNs(int64_t t, Done&& done) {
  for (;;) {
    if (done()) return;
    const int64_t left = t - progress::Engine::nowNs();
    if (left <= 0) return;
    if (left > 1'500'000) {
      progress::engine().poll(1);
    } else if (progress::engine().pollOnce() == 0) {  // epoll too: the socket may be quiet
      if (left > 100'000) {
        timespec ts{0, std::min<long>(left / 2, 200'000)};
        nanosleep(&ts, nullptr);
      } else {
        progress::Engine::yieldCpu();
      }
    }
  }
}

// Drives progress until done() or the clock reaches t, for a receiver waiting for
// datagrams: sleeps in epoll until an arrival (which wakes it at once) or t.
template <typename Done>
void receiveWait(int64_t t, Done&& done) {
  while (!done() && progress::Engine::nowNs() < t) {
    progress::engine().wakeBy(t);
    progress::engine().poll(1000);
  }
}

}  // namespace

McastTransport::McastTransport() = default;
McastTransport::~McastTransport() {
  shutdown();
}

void McastTransport::init(int myRank, int worldSize, const SipKey& key, uint64_t jobId,
                          const std::string& ifaceAddr, TcpTransport* tcp, bool oneHost,
                          const std::vector<Rail>& rails) {
  myRank_ = myRank;
  worldSize_ = worldSize;
  key_ = key;
  jobId_ = jobId;
  tcp_ = tcp;
  stats_ = McastStats{};
  lanes_.clear();
  auto off = [this](const std::string& why) {
    why_ = why;
    if (fd_ >= 0) {
      progress::engine().remove(fd_);
      ::close(fd_);
    }
    fd_ = -1;
    lanes_.clear();
    log::info("multicast unavailable (%s): multicast algorithms decline", why.c_str());
  };
  std::string addr = ifaceAddr;
  if (!kIface.get().empty()) {
    addr = interfaceAddress(kIface.get());
    if (addr.empty()) return off("CCMPI_MCAST_IFACE=" + kIface.get() + " has no IPv4 address");
  }
  if (inet_pton(AF_INET, addr.c_str(), &ifAddr_) != 1) return off("no IPv4 interface address");
  in_addr b{};
  if (inet_pton(AF_INET, kGroups.get().c_str(), &b) != 1 || (ntohl(b.s_addr) >> 28) != 0xE)
    return off("CCMPI_MCAST_ADDR=" + kGroups.get() + " is not an IPv4 multicast address");
  base_ = ntohl(b.s_addr);
  poolSize_ = static_cast<uint32_t>(std::clamp<uint64_t>(kPoolSize.get(), 1, 4096));
  if (kPort.get() == 0 || kPort.get() > 65535) return off("CCMPI_MCAST_PORT out of range");
  port_ = static_cast<uint16_t>(kPort.get());
  mtu_ = static_cast<uint32_t>(std::clamp<uint64_t>(kMtu.get(), 576, 65507));
  rate_ = (kMbits.get() > 0 ? kMbits.get() : linkMbits()) * 1e6 / 8;
  scale_ = 1;
  burst_ = std::max<uint64_t>(kBurst.get(), mtu_);
  testDrop_ = std::clamp(kTestDrop.get(), 0.0, 1.0);
  dropState_ = 0x9E3779B97F4A7C15ull ^ (static_cast<uint64_t>(myRank) << 17);

  std::string why;
  fd_ = openSocket(addr, ifAddr_, &why);
  if (fd_ < 0) return off(why);
  auto lane = std::make_unique<Lane>();
  lane->owner = this;
  lane->fd = fd_;
  lane->addr = ifAddr_;
  lane->rate = rate_;
  lanes_.push_back(std::move(lane));
  if (progress::engine().add(fd_, EPOLLIN, this, /*traffic=*/!oneHost) != 0)
    return off("cannot watch the socket");
  // The other rails, while CCMPI_MCAST_IFACE does not pin multicast to one interface and
  // rails[0] is the interface lane 0 uses. A rail's rate relative to rail 0's (both found)
  // scales lane 0's pacing; otherwise every lane paces at lane 0's rate.
  const bool railsFit = kIface.get().empty() && !rails.empty() && rails[0].ip == addr;
  for (size_t k = 1; railsFit && k < rails.size() && k < kMcastMaxLanes; ++k) {
    auto l = std::make_unique<Lane>();
    l->owner = this;
    if (inet_pton(AF_INET, rails[k].ip.c_str(), &l->addr) != 1) break;
    l->fd = openSocket(rails[k].ip, l->addr, &why);
    if (l->fd < 0) {
      log::info("multicast on rail %zu (%s) unavailable: %s", k, rails[k].iface.c_str(),
                why.c_str());
      break;
    }
    if (progress::engine().add(l->fd, EPOLLIN, l.get(), /*traffic=*/!oneHost) != 0) {
      ::close(l->fd);
      break;
    }
    l->rate = rails[k].mbits > 0 && rails[0].mbits > 0 && kMbits.get() <= 0
                  ? rate_ * rails[k].mbits / rails[0].mbits
                  : rate_;
    lanes_.push_back(std::move(l));
  }
  if (lanes_.size() > 1) log::debug("multicast lanes: %zu", lanes_.size());
  pkt_.resize(kSendBatch * kMcastMaxLanes * mtu_);
  rbuf_.resize(kReadBatch * mtu_);
}

int McastTransport::openSocket(const std::string& addr, const in_addr& ia, std::string* why) {
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    *why = std::string("socket: ") + strerror(errno);
    return -1;
  }
  auto fail = [&](const std::string& w) {
    *why = w;
    ::close(fd);
    return -1;
  };
  const int one = 1, zero = 0;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
  const int rcv = static_cast<int>(std::min<uint64_t>(kRcvBuf.get(), 1u << 30));
  if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcv, sizeof rcv) != 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof rcv);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(port_);
  sa.sin_addr.s_addr = htonl(INADDR_ANY);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0)
    return fail(std::string("bind to port ") + std::to_string(port_) + ": " + strerror(errno));
  // A socket bound to the wildcard address that must receive multicast: limit it to its
  // interface, so datagrams arriving on any other (another network, a VPN, another rail)
  // never reach it. The multicast copies a host loops back to its own ranks arrive on that
  // interface too. Where the kernel refuses (before Linux 5.7 without CAP_NET_RAW) the
  // socket stays on every interface; what it reads is authenticated either way.
  if (const std::string dev = interfaceOf(addr);
      !dev.empty() && setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, dev.c_str(),
                                 static_cast<socklen_t>(dev.size())) != 0)
    log::info("multicast socket: SO_BINDTODEVICE %s: %s (it receives on every interface)",
              dev.c_str(), strerror(errno));
  // Only the groups this socket joined (not every group some socket of the host joined).
  setsockopt(fd, IPPROTO_IP, IP_MULTICAST_ALL, &zero, sizeof zero);
  if (setsockopt(fd, IPPROTO_IP, IP_MULTICAST_IF, &ia, sizeof ia) != 0)
    return fail(std::string("IP_MULTICAST_IF ") + addr + ": " + strerror(errno));
  const int ttl = static_cast<int>(std::clamp<uint64_t>(kTtl.get(), 1, 255));
  setsockopt(fd, IPPROTO_IP, IP_MULTICAST_TTL, &ttl, sizeof ttl);
  // Ranks on the same host receive through the loopback copy.
  setsockopt(fd, IPPROTO_IP, IP_MULTICAST_LOOP, &one, sizeof one);
  return fd;
}

void McastTransport::shutdown() {
  if (kStats.get() && (fd_ >= 0 || !why_.empty())) {
    const McastStats& x = stats_;
    std::fprintf(
        stderr,
        "ccmpi-mcast: rank=%d available=%d sent_packets=%llu sent_bytes=%llu "
        "recv_packets=%llu naks_sent=%llu naks_received=%llu repair_bytes_sent=%llu "
        "repair_bytes_received=%llu drop_foreign=%llu drop_auth=%llu "
        "drop_malformed=%llu drop_stale=%llu drop_duplicate=%llu drop_ahead=%llu "
        "drop_injected=%llu drop_other=%llu comm_lanes_min=%d comm_lanes_max=%d "
        "pace_min=%.2f lanes=%d\n",
        myRank_, fd_ >= 0 ? 1 : 0, static_cast<unsigned long long>(x.sentPackets),
        static_cast<unsigned long long>(x.sentBytes),
        static_cast<unsigned long long>(x.recvPackets), static_cast<unsigned long long>(x.naksSent),
        static_cast<unsigned long long>(x.naksReceived),
        static_cast<unsigned long long>(x.repairBytesSent),
        static_cast<unsigned long long>(x.repairBytesReceived),
        static_cast<unsigned long long>(x.dropForeign), static_cast<unsigned long long>(x.dropAuth),
        static_cast<unsigned long long>(x.dropMalformed),
        static_cast<unsigned long long>(x.dropStale),
        static_cast<unsigned long long>(x.dropDuplicate),
        static_cast<unsigned long long>(x.dropAhead),
        static_cast<unsigned long long>(x.dropInjected),
        static_cast<unsigned long long>(x.dropOther), x.commLanesMin, x.commLanesMax, x.paceMin,
        lanes());
  }
  for (auto& l : lanes_) {
    progress::engine().remove(l->fd);
    ::close(l->fd);
  }
  lanes_.clear();
  fd_ = -1;
  joined_.clear();
  subscribed_.clear();
  rx_.clear();
  tx_.clear();
  superseded_.clear();
  ctx_.clear();
}

in_addr_t McastTransport::groupFor(uint32_t context) const {
  const uint32_t slot = static_cast<uint32_t>((jobId_ + context / 2) % poolSize_);
  return htonl(base_ + slot);
}

in_addr_t McastTransport::groupBeside(uint32_t context, uint64_t n) const {
  const uint32_t slot = static_cast<uint32_t>((jobId_ + context / 2) % poolSize_);
  if (poolSize_ < 2) return htonl(base_ + slot);
  return htonl(base_ + static_cast<uint32_t>((slot + 1 + n % (poolSize_ - 1)) % poolSize_));
}

bool McastTransport::join(in_addr_t group) {
  if (fd_ < 0) return false;
  int& refs = joined_[group];
  if (refs > 0) {
    ++refs;
    return true;
  }
  ip_mreq m{};
  m.imr_multiaddr.s_addr = group;
  m.imr_interface = ifAddr_;
  if (setsockopt(fd_, IPPROTO_IP, IP_ADD_MEMBERSHIP, &m, sizeof m) != 0) {
    char a[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, &m.imr_multiaddr, a, sizeof a);
    why_ = std::string("joining ") + a + ": " + strerror(errno);
    joined_.erase(group);
    return false;
  }
  // The other lanes: one that cannot join loses that group's datagrams, which the probe
  // of every communicator's lanes finds (coll/mcast/mcast_coll.h).
  for (size_t k = 1; k < lanes_.size(); ++k) {
    m.imr_interface = lanes_[k]->addr;
    if (setsockopt(lanes_[k]->fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &m, sizeof m) != 0)
      log::info("multicast lane %zu: joining a group: %s", k, strerror(errno));
  }
  refs = 1;
  return true;
}

void McastTransport::unsubscribe(uint32_t context) {
  auto it = subscribed_.find(context);
  if (it == subscribed_.end() || --it->second > 0) return;
  subscribed_.erase(it);
  ctx_.erase(context);
  for (auto r = rx_.begin(); r != rx_.end();) {
    if (r->first.context == context && !r->second.waiting)
      r = rx_.erase(r);
    else
      ++r;
  }
}

void McastTransport::leave(in_addr_t group) {
  auto it = joined_.find(group);
  if (it == joined_.end() || --it->second > 0) return;
  joined_.erase(it);
  if (fd_ < 0) return;
  ip_mreq m{};
  m.imr_multiaddr.s_addr = group;
  for (auto& l : lanes_) {
    m.imr_interface = l->addr;
    setsockopt(l->fd, IPPROTO_IP, IP_DROP_MEMBERSHIP, &m, sizeof m);
  }
}

uint32_t McastTransport::fragSize() const {
  return static_cast<uint32_t>(mtu_ - 28 - kHdr - kMac);
}

uint64_t McastTransport::wireBytes(uint64_t len) const {
  if (len == 0) return 0;
  const uint64_t frag = fragSize();
  const uint64_t datagrams = (len + frag - 1) / frag + 1;  // and the end-of-message mark
  return len + datagrams * (kHdr + kMac + kWireExtra);
}

int McastTransport::send(in_addr_t group, const McastKey& key, const void* data, uint64_t len,
                         int acks, McastLanes lanes) {
  McastSendOp op;
  if (tx_.count(key) != 0 || superseded_.count(key) != 0) {
    // A blocking send first lets an earlier message under this key (see sendStart) be
    // acknowledged.
    progress::engine().waitUntil([&] { return acked(key) && superseded_.count(key) == 0; });
    retire(key);
  }
  if (int rc = sendStart(&op, group, key, data, len, acks, lanes)) return rc;
  for (;;) {
    bool done = false;
    int64_t wake = 0;
    if (int rc = sendSome(&op, &done, &wake)) return rc;
    if (done) return MPI_SUCCESS;
    waitUntilNs(wake, [] { return false; });
  }
}

int McastTransport::sendStart(McastSendOp* op, in_addr_t group, const McastKey& key,
                              const void* data, uint64_t len, int acks, McastLanes lanes) {
  if (fd_ < 0) return setErrorCause(MPI_ERR_OTHER, "multicast is not available: %s", why_.c_str());
  if (len > kMaxMessage)
    return setErrorCause(MPI_ERR_COUNT, "multicast message of %llu bytes is too large",
                         static_cast<unsigned long long>(len));
  if (auto old = tx_.find(key); old != tx_.end()) {
    // An earlier message under this key still waits for acknowledgements: a freed
    // communicator's, whose context id a new one reuses (its sequence numbers start
    // again). It stays accounted for (MPI_Finalize waits for it) and takes the first
    // acknowledgements that come under the key, which are its own: its receivers acked
    // it before they could receive this one. (send() waits for them before it starts.)
    if (old->second.released && old->second.acksLeft > 0)
      superseded_.emplace(key, std::move(old->second));
    else
      retire(key);
    tx_.erase(key);
  }
  *op = McastSendOp{};
  // The lanes there are: at least lane 0 (or the first lane asked for, if there).
  const int have = static_cast<int>(lanes_.size());
  op->lanes.first = lanes.first < have ? lanes.first : 0;
  op->lanes.count = static_cast<uint8_t>(
      std::clamp<int>(lanes.count, 1, have - static_cast<int>(op->lanes.first)));
  op->group = group;
  op->key = key;
  op->data = static_cast<const unsigned char*>(data);
  op->len = len;
  Tx& tx = tx_[key];
  tx = Tx{op->data, len};
  // A message of no bytes has no datagrams: its receivers are done without hearing from
  // the root, so an acknowledgement could arrive before this entry exists and be lost;
  // none is expected, and ack() sends none.
  tx.acksLeft = len > 0 ? acks : 0;
  tx.receivers = acks;
  return MPI_SUCCESS;
}

bool McastTransport::release(const McastKey& key, std::vector<unsigned char>* owned) {
  auto it = tx_.find(key);
  if (it == tx_.end()) return true;
  Tx& tx = it->second;
  if (tx.acksLeft <= 0) {
    retire(key);
    return true;
  }
  if (tx.len > kEager.get() || releasedCount_ >= kMaxReleased ||
      releasedBytes_ + tx.len > kMaxReleasedBytes)
    return false;
  if (owned && owned->data() == tx.data && owned->size() == tx.len)
    tx.copy.swap(*owned);
  else
    tx.copy.assign(tx.data, tx.data + tx.len);
  tx.data = tx.copy.data();
  tx.released = true;
  releasedBytes_ += tx.len;
  ++releasedCount_;
  return true;
}

int McastTransport::sendComplete(in_addr_t group, const McastKey& key, const void* data,
                                 uint64_t len, int acks, std::vector<unsigned char>* owned,
                                 McastLanes lanes) {
  const int rc = send(group, key, data, len, acks, lanes);
  if (rc != MPI_SUCCESS) {
    retire(key);
  } else if (!release(key, owned)) {
    progress::engine().waitUntil([&] { return acked(key); });
    retire(key);
  }
  return rc;
}

std::string McastTransport::releasedKeys() const {
  std::string out;
  std::vector<std::pair<McastKey, const Tx*>> all;
  for (const auto& [k, tx] : tx_) all.emplace_back(k, &tx);
  for (const auto& [k, tx] : superseded_) all.emplace_back(k, &tx);
  for (const auto& [k, t] : all) {
    const Tx& tx = *t;
    if (!tx.released || tx.acksLeft <= 0) continue;
    char buf[96];
    snprintf(buf, sizeof buf, "%s%u/%llu/%d/%u (%d missing)", out.empty() ? "" : ", ", k.context,
             static_cast<unsigned long long>(k.seq), k.root, k.sub, tx.acksLeft);
    out += buf;
  }
  return out;
}

bool McastTransport::acked(const McastKey& key) const {
  auto it = tx_.find(key);
  return it == tx_.end() || it->second.acksLeft <= 0;
}

// The epoch rides in the upper half of the frame's b field (sub in the lower 16 bits).
static uint32_t epochOf(const FrameHeader& h) {
  return static_cast<uint32_t>(h.b >> 32);
}

FrameHeader McastTransport::tcpFrame(FrameType type, const McastKey& key) const {
  FrameHeader h;
  h.type = type;
  h.src = myRank_;
  h.context = key.context;
  h.a = key.seq;
  h.b = key.sub | (static_cast<uint64_t>(key.epoch) << 32);
  return h;
}

void McastTransport::ack(const McastKey& key, uint64_t len) {
  if (len == 0) return;
  tcp_->send(key.root, new OwnedFrame(tcpFrame(FrameType::kMcastAck, key), {}));
}

int McastTransport::sendSome(McastSendOp* op, bool* done, int64_t* wakeNs) {
  *done = false;
  const uint32_t frag = fragSize();
  sockaddr_in dst{};
  dst.sin_family = AF_INET;
  dst.sin_port = htons(port_);
  dst.sin_addr.s_addr = op->group;
  Tx* tx = nullptr;
  if (auto it = tx_.find(op->key); it != tx_.end()) tx = &it->second;
  const McastKey& key = op->key;
  const int first = op->lanes.first;
  const int nl = std::min<int>(op->lanes.count, static_cast<int>(lanes_.size()) - first);
  // The datagrams the pacing allows now go out in batches of up to kSendBatch per lane,
  // one sendmmsg each instead of one system call per datagram. Each datagram, in order,
  // takes the lane with the most allowance left.
  mmsghdr msgs[kMcastMaxLanes][kSendBatch];
  iovec iov[kMcastMaxLanes][kSendBatch];
  unsigned count[kMcastMaxLanes] = {};
  // Per datagram of the batch, in order: its lane, and for an end mark the lane it
  // stands for (-1 for data).
  uint8_t laneOf[kMcastMaxLanes * kSendBatch];
  int8_t finOf[kMcastMaxLanes * kSendBatch];
  uint32_t fragOf[kMcastMaxLanes * kSendBatch];
  int64_t queued[kMcastMaxLanes] = {};
  unsigned char* const buf = pkt_.data();
  for (;;) {
    // Pacing: a token bucket of burst_ bytes per lane filled at its rate (IP/UDP/Ethernet
    // included).
    const int64_t now = progress::Engine::nowNs();
    double allowance[kMcastMaxLanes];
    bool up[kMcastMaxLanes];
    for (int k = 0; k < nl; ++k) {
      Lane& l = *lanes_[static_cast<size_t>(first + k)];
      up[k] = first + k == 0 || l.downUntilNs <= now;
      l.allowance =
          std::min(static_cast<double>(burst_),
                   l.allowance + static_cast<double>(now - l.lastFillNs) * 1e-9 * l.rate * scale_);
      l.lastFillNs = now;
      allowance[k] = l.allowance;
      count[k] = 0;
      // With several lanes, what each socket still holds (in the qdisc or the NIC's
      // queue, SIOCOUTQ, counting the kernel's buffer overhead): a lane holding more than
      // kLaneQueueBursts bursts takes no data while another lane has room, so a rail that
      // other traffic slows (TCP repairs, the job's messages) does not fall tens of
      // milliseconds behind the others.
      if (nl > 1 && now - l.queuedAtNs >= kQueueReadNs) {
        int q = 0;
        l.queued = ::ioctl(l.fd, SIOCOUTQ, &q) == 0 ? q : 0;
        l.queuedAtNs = now;
      }
      queued[k] = nl > 1 ? l.queued : 0;
    }
    const int64_t queueCap = kLaneQueueBursts * static_cast<int64_t>(burst_);
    unsigned total = 0;
    uint64_t off = op->next;
    unsigned redoTaken = 0;  // op->redo entries in this batch
    int finQueued = 0;       // lanes below this have an end mark out or in this batch
    for (;;) {
      // The next datagram: a fragment a full socket refused earlier (op->redo), then the
      // next fragment, then the end-of-message marks (type 2, no payload, offset =
      // length) that let receivers ask for what they miss at once instead of after
      // silence. Each lane has its own end mark, after its data (a lane's datagrams stay
      // in order, the lanes' need not); a refused fragment goes again on a lane whose end
      // mark is not out.
      uint16_t n = 0;
      uint64_t at = off;
      int k = -1, finLane = -1;
      bool crowded = false;  // every lane that could take it holds too much already
      auto bestLane = [&](bool beforeFin, bool queueMatters = true) {
        bool roomy = false;
        for (int j = 0; j < nl; ++j) {
          if (!up[j] || count[j] >= kSendBatch || (beforeFin && ((op->finSent >> j) & 1))) continue;
          const bool r = queued[j] <= queueCap;
          if (k < 0 || (r && !roomy) || (r == roomy && allowance[j] > allowance[k])) k = j;
          roomy = roomy || r;
        }
        crowded = k >= 0 && !roomy && queueMatters;
        if (crowded) k = -1;
      };
      if (redoTaken < op->redoCount) {
        at = static_cast<uint64_t>(op->redo[redoTaken]) * frag;
        n = static_cast<uint16_t>(std::min<uint64_t>(frag, op->len - at));
        bestLane(true);
        if (k < 0 && !crowded) bestLane(false);
      } else if (off < op->len) {
        n = static_cast<uint16_t>(std::min<uint64_t>(frag, op->len - off));
        bestLane(false);
      }
      if (k < 0 && crowded && total == 0) {
        *wakeNs = now + kCrowdedWaitNs;  // the queues drain meanwhile
        return MPI_SUCCESS;
      }
      if (finLane < 0 && (redoTaken < op->redoCount || off < op->len)) {
        if (k < 0) break;  // every lane's batch is full, or its queue
      } else {
        if (op->len == 0) break;
        while (finQueued < nl && ((op->finSent >> finQueued) & 1)) ++finQueued;
        if (finQueued == nl) break;
        finLane = finQueued;
        if (up[finLane])
          k = count[finLane] < kSendBatch ? finLane : -1;
        else
          bestLane(false, false);  // a lane that is down has its end mark sent on another
        if (k < 0) break;
      }
      const size_t size = kHdr + n + kMac;
      const double wire = static_cast<double>(size + kWireExtra);
      if (allowance[k] < wire) {
        if (total == 0) {
          const double rate = lanes_[static_cast<size_t>(first + k)]->rate * scale_;
          *wakeNs = now + static_cast<int64_t>((wire - allowance[k]) / rate * 1e9) + 1;
          return MPI_SUCCESS;
        }
        break;
      }
      allowance[k] -= wire;
      queued[k] += static_cast<int64_t>(wire) * 3 / 2;  // with the kernel's overhead
      const bool fin = finLane >= 0;
      if (fin) ++finQueued;
      const unsigned i = count[k]++;
      unsigned char* p = buf + (static_cast<size_t>(k) * kSendBatch + i) * mtu_;
      put<uint32_t>(p, kMagic);
      p[4] = kVersion;
      p[5] = fin ? 2 : 1;
      put<uint16_t>(p + 6, kHdr);
      put<uint64_t>(p + 8, jobId_);
      put<uint32_t>(p + 16, key.context);
      put<int32_t>(p + 20, key.root);
      put<uint64_t>(p + 24, key.seq);
      put<uint16_t>(p + 32, key.sub);
      put<uint16_t>(p + 34, n);
      put<uint32_t>(p + 36, frag);
      put<uint64_t>(p + 40, op->len);
      put<uint64_t>(p + 48, fin ? op->len : at);
      put<uint32_t>(p + 56, key.epoch);
      p[60] = static_cast<uint8_t>(nl);
      p[61] = static_cast<uint8_t>(fin ? finLane : k);
      put<uint16_t>(p + 62, 0);
      if (n) memcpy(p + kHdr, op->data + at, n);
      put<uint64_t>(p + kHdr + n, siphash24(key_, p, kHdr + n));
      iov[k][i] = {p, size};
      msgs[k][i] = {};
      msgs[k][i].msg_hdr.msg_name = &dst;
      msgs[k][i].msg_hdr.msg_namelen = sizeof dst;
      msgs[k][i].msg_hdr.msg_iov = &iov[k][i];
      msgs[k][i].msg_hdr.msg_iovlen = 1;
      finOf[total] = static_cast<int8_t>(finLane);
      fragOf[total] = static_cast<uint32_t>(at / frag);
      laneOf[total++] = static_cast<uint8_t>(k);
      if (redoTaken < op->redoCount)
        ++redoTaken;
      else if (!fin)
        off += n;
    }
    if (total == 0) {
      *done = true;
      return MPI_SUCCESS;
    }
    // Sent, or lost for good, per lane (a lost one receivers ask for).
    unsigned sent[kMcastMaxLanes] = {};
    bool full = false;  // a socket's queue is full: the rest again shortly
    for (int k = 0; k < nl; ++k) {
      if (count[k] == 0) continue;
      Lane& l = *lanes_[static_cast<size_t>(first + k)];
      int got = ::sendmmsg(l.fd, msgs[k], count[k], 0);
      if (got <= 0) {
        if ((errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS || errno == EINTR) &&
            op->attempts < 10000) {
          full = true;
          got = 0;
        } else if (first + k > 0) {
          // This lane is gone for now: its datagrams go again on the others.
          log::info("multicast lane %d: %s: its traffic goes on the other lanes for 1 s", first + k,
                    strerror(errno));
          l.downUntilNs = now + 1'000'000'000;
          got = 0;
        } else {
          got = 1;  // the first is lost for good (receivers will ask for it); go on
        }
      } else if (static_cast<unsigned>(got) < count[k]) {
        full = true;
      }
      sent[k] = static_cast<unsigned>(got);
      for (int i = 0; i < got; ++i) {
        l.allowance -= static_cast<double>(iov[k][i].iov_len + kWireExtra);
        l.queued += static_cast<int64_t>(iov[k][i].iov_len + kWireExtra) * 3 / 2;
        ++stats_.sentPackets;
        stats_.sentBytes += iov[k][i].iov_len;
      }
    }
    // Each lane sent the first sent[k] of its datagrams. The fragments of the batch that
    // a lane did not send go again (op->redo, before any fragment after them), with the
    // refused entries of op->redo this batch did not reach; an end mark not sent stays
    // due. So no datagram goes twice.
    uint32_t redo[kMcastMaxRedo];
    unsigned redoCount = 0, seen[kMcastMaxLanes] = {};
    for (unsigned j = 0; j < total; ++j) {
      const int k = laneOf[j], f = finOf[j];
      const bool out = seen[k]++ < sent[k];
      if (f >= 0) {
        if (out) op->finSent = static_cast<uint8_t>(op->finSent | 1u << f);
      } else if (!out) {
        redo[redoCount++] = fragOf[j];
      }
    }
    for (unsigned j = redoTaken; j < op->redoCount; ++j) redo[redoCount++] = op->redo[j];
    std::copy(redo, redo + redoCount, op->redo);
    op->redoCount = static_cast<uint16_t>(redoCount);
    op->next = off;
    if (tx) {
      uint64_t low = op->next;
      for (unsigned j = 0; j < redoCount; ++j)
        low = std::min<uint64_t>(low, static_cast<uint64_t>(redo[j]) * frag);
      tx->sent = low;  // NAKs for holes at or after the first refused fragment are premature
      for (int k = 0; k < nl; ++k)
        if (sent[k] > 0) tx->lastSentNs = now;
    }
    if (full) {
      bool progressed = false;
      for (int k = 0; k < nl; ++k) progressed = progressed || sent[k] > 0;
      op->attempts = progressed ? 0 : op->attempts + 1;
      *wakeNs = now + 50'000;
      return MPI_SUCCESS;
    }
    op->attempts = 0;
  }
}

void McastTransport::retire(const McastKey& key) {
  auto it = tx_.find(key);
  if (it == tx_.end()) return;
  // Pacing feedback: a message whose repairs did not slow the pacing lets the rate recover.
  const Tx& tx = it->second;
  if (!tx.slowed)
    scale_ = std::min(1.0, scale_ * std::pow(1.02, std::max<double>(1, tx.len / 65536.0)));
  if (it->second.released) {
    releasedBytes_ -= it->second.len;
    --releasedCount_;
  }
  tx_.erase(it);
}

void McastTransport::pause(int64_t ns) {
  waitUntilNs(progress::Engine::nowNs() + ns, [] { return false; });
}

void McastTransport::retireSeq(uint32_t context, uint64_t seq) {
  Ctx& c = ctx_[context];
  if (c.stale(seq)) return;
  c.retired.insert(seq);
  while (!c.retired.empty() && *c.retired.begin() == c.low) {
    c.retired.erase(c.retired.begin());
    ++c.low;
  }
  for (auto it = rx_.begin(); it != rx_.end();) {
    if (it->first.context == context && it->first.seq == seq && !it->second.waiting)
      it = rx_.erase(it);
    else
      ++it;
  }
}

uint64_t McastTransport::buffered() const {
  uint64_t b = 0;
  for (const auto& [k, r] : rx_)
    if (!r.waiting) b += r.len;
  return b;
}

McastTransport::Rx* McastTransport::rxFor(const McastKey& key, uint64_t len, uint32_t frag,
                                          bool create) {
  auto it = rx_.find(key);
  if (it == rx_.end()) {
    if (!create) return nullptr;
    if (buffered() + len > kMaxBuffered) {
      ++stats_.dropAhead;
      return nullptr;
    }
    it = rx_.emplace(key, Rx{}).first;
    it->second.len = len;
    it->second.data.resize(len);
  }
  Rx& r = it->second;
  if (r.len != len) return nullptr;
  if (r.frag == 0 && frag > 0) {
    r.frag = frag;
    r.have.assign((len + frag - 1) / frag, 0);
  }
  return &r;
}

void McastTransport::markRange(Rx& r, uint64_t offset, uint64_t n) {
  if (r.frag == 0) return;
  const uint64_t end = offset + n;
  for (uint64_t f = offset / r.frag; f < r.have.size(); ++f) {
    const uint64_t fs = f * r.frag, fe = std::min<uint64_t>(fs + r.frag, r.len);
    if (fs < offset) continue;
    if (fe > end) break;
    if (!r.have[f]) {
      r.have[f] = 1;
      ++r.fragsHave;
    }
  }
}

void McastTransport::onEvent(uint32_t) {
  readPackets(fd_);
}

void McastTransport::readPackets(int fd) {
  // Up to kReadBatch datagrams per system call (a receiver that slept while a message
  // flowed finds many queued), at most 256 per event so other work is not starved.
  const size_t slot = mtu_;
  mmsghdr msgs[kReadBatch];
  iovec iov[kReadBatch];
  for (int round = 0; round < 256 / static_cast<int>(kReadBatch) && fd >= 0; ++round) {
    for (size_t i = 0; i < kReadBatch; ++i) {
      iov[i] = iovec{rbuf_.data() + i * slot, slot};
      msgs[i] = mmsghdr{};
      msgs[i].msg_hdr.msg_iov = &iov[i];
      msgs[i].msg_hdr.msg_iovlen = 1;
    }
    const int got = ::recvmmsg(fd, msgs, kReadBatch, MSG_DONTWAIT, nullptr);
    if (got <= 0) return;
    for (int i = 0; i < got; ++i) {
      if (msgs[i].msg_hdr.msg_flags & MSG_TRUNC) {
        // Longer than any datagram of ours (they fit the MTU): not ours.
        ++stats_.recvPackets;
        ++stats_.dropForeign;
        continue;
      }
      handlePacket(rbuf_.data() + static_cast<size_t>(i) * slot, msgs[i].msg_len);
    }
    if (got < static_cast<int>(kReadBatch)) return;  // drained
  }
}

void McastTransport::handlePacket(const unsigned char* p, size_t n) {
  ++stats_.recvPackets;
  stats_.recvBytes += n;
  if (n < kHdr + kMac || get<uint32_t>(p) != kMagic || p[4] != kVersion) {
    ++stats_.dropForeign;
    return;
  }
  if (get<uint64_t>(p + 8) != jobId_) {
    ++stats_.dropForeign;
    return;
  }
  const uint16_t payload = get<uint16_t>(p + 34);
  if ((p[5] != 1 && p[5] != 2) || get<uint16_t>(p + 6) != kHdr || n != kHdr + payload + kMac) {
    ++stats_.dropMalformed;
    return;
  }
  // Our own datagram, looped back (a forged one claiming to be ours is dropped alike):
  // not worth its MAC.
  if (get<int32_t>(p + 20) == myRank_) return;
  if (get<uint64_t>(p + kHdr + payload) != siphash24(key_, p, kHdr + payload)) {
    ++stats_.dropAuth;
    return;
  }
  McastKey key;
  key.context = get<uint32_t>(p + 16);
  key.root = get<int32_t>(p + 20);
  key.seq = get<uint64_t>(p + 24);
  key.sub = get<uint16_t>(p + 32);
  key.epoch = get<uint32_t>(p + 56);
  const uint8_t finLanes = p[60], finLane = p[61];
  const uint32_t frag = get<uint32_t>(p + 36);
  const uint64_t len = get<uint64_t>(p + 40);
  const uint64_t off = get<uint64_t>(p + 48);
  const bool fin = p[5] == 2;
  if (key.root < 0 || key.root >= worldSize_ || frag == 0 || len > kMaxMessage ||
      (fin ? (off != len || payload != 0 || len == 0)
           : (off >= len || off % frag != 0 || payload != std::min<uint64_t>(frag, len - off))) ||
      get<uint16_t>(p + 62) != 0 || finLanes == 0 || finLanes > kMcastMaxLanes ||
      finLane >= finLanes) {
    ++stats_.dropMalformed;
    return;
  }
  if (subscribed_.find(key.context) == subscribed_.end()) {
    ++stats_.dropOther;
    return;
  }
  const Ctx& c = ctx_[key.context];
  if (c.stale(key.seq)) {
    ++stats_.dropStale;
    return;
  }
  if (key.seq >= c.top() + kMaxAhead) {
    ++stats_.dropAhead;
    return;
  }
  if (testDrop_ > 0) {
    dropState_ = dropState_ * 6364136223846793005ull + 1442695040888963407ull;
    if (static_cast<double>(dropState_ >> 11) * 0x1.0p-53 < testDrop_) {
      ++stats_.dropInjected;
      return;
    }
  }
  Rx* r = rxFor(key, len, frag, true);
  if (!r || r->frag != frag) {
    if (r) ++stats_.dropMalformed;
    return;
  }
  ++arrivals_;
  r->lanes = finLanes;
  if (fin) {
    r->fins = static_cast<uint8_t>(r->fins | 1u << finLane);
    r->finSeen = r->fins == (1u << finLanes) - 1;
    r->any = true;
    r->lastNs = progress::Engine::nowNs();
    return;
  }
  const uint64_t f = off / frag;
  if (r->have[f]) {
    ++stats_.dropDuplicate;
    return;
  }
  memcpy(r->data.data() + off, p + kHdr, payload);
  r->have[f] = 1;
  ++r->fragsHave;
  r->maxFragSeen = std::max(r->maxFragSeen, f);
  r->any = true;
  r->viaMcast = true;
  r->lastNs = progress::Engine::nowNs();
}

void McastTransport::sendNak(const McastKey& key, Rx& r, bool all) {
  std::vector<unsigned char> ranges;
  auto add = [&](uint64_t off, uint64_t n) {
    const size_t at = ranges.size();
    ranges.resize(at + 16);
    put<uint64_t>(ranges.data() + at, off);
    put<uint64_t>(ranges.data() + at + 8, n);
  };
  if (r.frag == 0) {
    add(0, r.len);
  } else {
    const uint64_t end = all ? r.have.size() : r.maxFragSeen;
    for (uint64_t f = 0; f < end && ranges.size() / 16 < kMaxNakRanges; ++f) {
      if (r.have[f]) continue;
      uint64_t g = f;
      while (g < end && !r.have[g]) ++g;
      const uint64_t s = f * r.frag, e = std::min<uint64_t>(g * r.frag, r.len);
      add(s, e - s);
      f = g;
    }
  }
  FrameHeader h = tcpFrame(FrameType::kMcastNak, key);
  h.msgSize = r.len;
  h.payloadLen = ranges.size();
  ++stats_.naksSent;
  tcp_->send(key.root, new OwnedFrame(h, std::move(ranges)));
}

int McastTransport::receive(const McastKey& key, void* dest, uint64_t len, bool* viaMcast,
                            int64_t nakDelayUs) {
  McastRecvOp op;
  if (int rc = receiveStart(&op, key, dest, len, nakDelayUs)) return rc;
  for (;;) {
    bool done = false;
    int64_t wake = 0;
    if (int rc = receiveSome(&op, &done, &wake)) return rc;
    if (done) break;
    const int64_t batch = static_cast<int64_t>(std::min<uint64_t>(kBatchUs.get(), 100000)) * 1000;
    if (batch > 0) {
      const Rx& r = rx_.find(key)->second;
      const int64_t now = progress::Engine::nowNs();
      const uint64_t left = r.frag ? (r.have.size() - r.fragsHave) * uint64_t{r.frag} : r.len;
      // Datagrams are flowing and more than a batch is still to come: let them queue.
      if (r.any && !r.finSeen &&
          now - r.lastNs<op.delay&& static_cast<double>(left)> rate_ * 1e-9 *
                    static_cast<double>(batch)) {
        const int64_t until = std::min(now + batch, wake);
        if (until > now) {
          const timespec ts{0, static_cast<long>(until - now)};
          nanosleep(&ts, nullptr);
        }
        progress::engine().pollOnce();  // reads the socket (poll(0) may skip epoll)
        continue;
      }
    }
    // Wake on completion, or on any arrival (the deadline moves with the traffic). No
    // spin: receivers of a multicast that poll instead of sleeping made its datagrams
    // arrive later (29 emulated hosts on 2 cores, Scatterv of 1 KiB to 5 of them: the last
    // receiver done 520 us after the root, 240 us when they sleep at once).
    const uint64_t seen = arrivals_;
    receiveWait(wake, [&] { return arrivals_ != seen; });
  }
  if (viaMcast) *viaMcast = op.viaMcast;
  return MPI_SUCCESS;
}

int McastTransport::receiveStart(McastRecvOp* op, const McastKey& key, void* dest, uint64_t len,
                                 int64_t nakDelayUs) {
  *op = McastRecvOp{};
  op->key = key;
  op->dest = dest;
  op->len = len;
  if (len == 0) {
    op->viaMcast = true;
    return MPI_SUCCESS;
  }
  if (len > kMaxMessage)
    return setErrorCause(MPI_ERR_COUNT, "multicast message of %llu bytes is too large",
                         static_cast<unsigned long long>(len));
  auto it = rx_.find(key);
  if (it != rx_.end() && it->second.len != len)
    return setErrorCause(MPI_ERR_TRUNCATE,
                         "multicast message from rank %d has %llu bytes, the receive expects %llu",
                         key.root, static_cast<unsigned long long>(it->second.len),
                         static_cast<unsigned long long>(len));
  if (it == rx_.end()) {
    it = rx_.emplace(key, Rx{}).first;
    it->second.len = len;
    it->second.data.resize(len);
  }
  it->second.waiting = true;
  op->active = true;
  op->delay = (nakDelayUs > 0 ? nakDelayUs : static_cast<int64_t>(kNakUs.get())) * 1000;
  // Before anything arrived the root may simply not have started: wait longer.
  op->quietDue = progress::Engine::nowNs() + 4 * op->delay;
  op->backoff = std::max<int64_t>(op->delay, 20'000'000);
  return MPI_SUCCESS;
}

int McastTransport::receiveSome(McastRecvOp* op, bool* done, int64_t* wakeNs) {
  *done = false;
  if (!op->active) {
    *done = true;
    return MPI_SUCCESS;
  }
  auto it = rx_.find(op->key);
  CCMPI_ASSERT(it != rx_.end());
  Rx& r = it->second;
  for (;;) {
    if (r.frag != 0 && r.fragsHave == r.have.size() && r.inflight == 0) {
      memcpy(op->dest, r.data.data(), op->len);
      op->viaMcast = r.viaMcast;
      op->active = false;
      rx_.erase(it);
      *done = true;
      return MPI_SUCCESS;
    }
    const int64_t now = progress::Engine::nowNs();
    // The deadline follows the traffic: silence, or a shorter wait once the last
    // fragment has arrived and only holes remain.
    int64_t due = std::max(op->nextNak, op->quietDue);
    if (r.any) {
      // The end mark: the sender is done, only a little reordering can still come. The
      // last fragment: so is the sender, where the message takes one lane (on several,
      // one lane's queue may run tens of milliseconds behind another's, as when TCP
      // traffic shares its rail, and its fragments are still on their way).
      const bool lastSeen = r.frag != 0 && r.maxFragSeen + 1 == r.have.size() && r.lanes == 1;
      const int64_t d = op->delay;
      due = std::max(op->nextNak, r.lastNs + (r.finSeen ? d / 20 : lastSeen ? d / 5 : d));
    }
    if (now < due) {
      *wakeNs = due;
      return MPI_SUCCESS;
    }
    sendNak(op->key, r, true);
    // Time for the repair to arrive before asking again: the missing bytes at the pacing
    // rate, twice, and at least the back-off.
    const uint64_t missing =
        r.frag ? (r.have.size() - r.fragsHave) * static_cast<uint64_t>(r.frag) : r.len;
    op->nextNak =
        now + std::max<int64_t>(op->backoff,
                                static_cast<int64_t>(2e9 * static_cast<double>(missing) / rate_));
    // At most 100 ms: NAKs that came before the root started the message (it may wait
    // for a group's members, or for a lost join to be repaired) are ignored, and a
    // back-off grown on them would leave a receiver idle for up to the cap after the
    // data is there (with up to 1 s, a dynamic-group Scatterv at 5% loss took seconds
    // per call). The repair's own transfer time is the other term above.
    op->backoff = std::min<int64_t>(op->backoff * 2, kMaxNakBackoffNs);
    r.lastNs = now;
  }
}

void McastTransport::receiveCancel(McastRecvOp* op) {
  if (!op->active) return;
  op->active = false;
  auto it = rx_.find(op->key);
  if (it == rx_.end()) return;
  if (it->second.inflight > 0) {
    it->second.abandoned = true;  // erased when the repair being read has arrived
    return;
  }
  rx_.erase(it);
}

int McastTransport::onTcpFrame(int peer, const FrameHeader& h, PayloadTarget* t) {
  t->keep = 0;
  if (h.type == FrameType::kMcastAck) {
    // An acknowledgement of a message of ours; a late or duplicate one finds nothing. An
    // earlier message under the same key (sendStart) takes it first.
    const McastKey k{h.context, h.a, myRank_, static_cast<uint16_t>(h.b), epochOf(h)};
    if (auto sup = superseded_.find(k); sup != superseded_.end()) {
      if (--sup->second.acksLeft <= 0) {
        releasedBytes_ -= sup->second.len;
        --releasedCount_;
        superseded_.erase(sup);
      }
      return 0;
    }
    auto it = tx_.find(k);
    if (it != tx_.end() && it->second.acksLeft > 0 && --it->second.acksLeft == 0 &&
        it->second.released) {
      const McastKey key = it->first;
      retire(key);
    }
    return 0;
  }
  if (h.type == FrameType::kMcastNak) {
    ++stats_.naksReceived;
    if (nakBuf_.size() != static_cast<size_t>(worldSize_)) nakBuf_.resize(worldSize_);
    auto& b = nakBuf_[static_cast<size_t>(peer)];
    b.resize(h.payloadLen);
    t->dest = b.data();
    t->keep = h.payloadLen;
    return 0;
  }
  // Repair bytes for a message a receive() is waiting for. Anything else is dropped: in
  // particular the answer to an earlier NAK of a message already complete, whose key a
  // late duplicate datagram may have brought back into rx_ (nobody waits for that entry,
  // and retiring it must not free a buffer a payload is being read into).
  if (h.tag <= 0) return 0;
  McastKey key{h.context, h.a, peer, static_cast<uint16_t>(h.b), epochOf(h)};
  Rx* r = rxFor(key, h.msgSize, static_cast<uint32_t>(h.tag), false);
  if (!r || !r->waiting || r->abandoned || r->frag != static_cast<uint32_t>(h.tag) ||
      h.offset > r->len || h.payloadLen > r->len - h.offset)
    return 0;
  t->dest = r->data.data() + h.offset;
  t->keep = h.payloadLen;
  t->cookie = r;
  ++r->inflight;
  return 0;
}

void McastTransport::onTcpPayload(int peer, const FrameHeader& h, const PayloadTarget& t) {
  if (h.type == FrameType::kMcastNak) {
    McastKey key{h.context, h.a, myRank_, static_cast<uint16_t>(h.b), epochOf(h)};
    auto it = tx_.find(key);
    if (it == tx_.end() || it->second.len != h.msgSize) return;  // not ours (yet): re-asked
    Tx& tx = it->second;
    const uint32_t frag = fragSize();
    // Bytes multicast so recently that they may still be on their way are not repaired:
    // those sent within the time the sockets' queues take to drain (SIOCOUTQ at the
    // lane's rate, with the kernel's overhead, so rather long) plus a NAK period for the
    // switch and the receiver; the pacing bounds how many that can be. A receiver that
    // went quiet (descheduled on a busy host, or the root was) would otherwise have
    // everything in flight sent again over TCP, on lane 0's rail, which then falls
    // further behind. It asks again after its back-off.
    const int64_t now = progress::Engine::nowNs();
    int64_t inFlightNs = static_cast<int64_t>(kNakUs.get()) * 1000;
    double rates = 0;
    for (const auto& l : lanes_) {
      int q = 0;
      rates += l->rate * scale_;
      if (l->rate > 0 && ::ioctl(l->fd, SIOCOUTQ, &q) == 0)
        inFlightNs = std::max(inFlightNs, static_cast<int64_t>(kNakUs.get()) * 1000 +
                                              static_cast<int64_t>(q / (l->rate * scale_) * 1e9));
    }
    const int64_t recentNs = std::max<int64_t>(0, inFlightNs - (now - tx.lastSentNs));
    const double recent = recentNs > 0
                              ? static_cast<double>(recentNs) * 1e-9 * rates +
                                    static_cast<double>(burst_) * static_cast<double>(lanes_.size())
                              : 0;
    const uint64_t settled = tx.sent - std::min<uint64_t>(tx.sent, static_cast<uint64_t>(recent));
    // Whole fragments per repair frame: the receiver marks fragments fully covered.
    const uint64_t step = std::max<uint64_t>(1, kRepairFrame / frag) * frag;
    for (size_t i = 0; i + 16 <= t.keep; i += 16) {
      const uint64_t off = get<uint64_t>(t.dest + i);
      uint64_t n = get<uint64_t>(t.dest + i + 8);
      if (off >= tx.len || n > tx.len - off) continue;
      // Bytes not multicast yet are on their way: asked too early.
      if (off >= settled) continue;
      n = std::min(n, settled - off);
      for (uint64_t o = off; o < off + n; o += step) {
        const uint64_t len = std::min<uint64_t>(step, off + n - o);
        FrameHeader r;
        r.type = FrameType::kMcastRepair;
        r.src = myRank_;
        r.context = h.context;
        r.tag = static_cast<int32_t>(frag);
        r.a = h.a;
        r.b = h.b;
        r.offset = o;
        r.msgSize = tx.len;
        r.payloadLen = len;
        stats_.repairBytesSent += len;
        tx.repairBytes += len;
        tcp_->send(peer,
                   new OwnedFrame(r, std::vector<unsigned char>(tx.data + o, tx.data + o + len)));
      }
    }
    // Pacing feedback, once per message: repairs of more than 1% of what its receivers
    // were sent so far (and of 8 fragments at least) mean the stream is faster than the network
    // takes it (congestion): 10% slower, down to half the rate, and no speed-up when it retires.
    // Fewer (a receiver descheduled, a datagram dropped now and then) are repaired and leave the
    // pacing as it is: slowing down for them only makes every later message slower.
    if (!tx.slowed && tx.repairBytes >= 8ull * frag &&
        static_cast<double>(tx.repairBytes) >
            kCongestedLoss * static_cast<double>(tx.sent) * std::max(1, tx.receivers)) {
      tx.slowed = true;
      scale_ = std::max(0.5, scale_ * 0.9);
      stats_.paceMin = std::min(stats_.paceMin, scale_);
    }
    return;
  }
  if (t.keep == 0) return;
  // The Rx stays while a payload is inflight (receive() waits for it).
  auto* r = static_cast<Rx*>(t.cookie);
  --r->inflight;
  ++arrivals_;
  stats_.repairBytesReceived += t.keep;
  markRange(*r, h.offset, t.keep);
  r->lastNs = progress::Engine::nowNs();
  if (r->abandoned && r->inflight == 0)
    rx_.erase(McastKey{h.context, h.a, peer, static_cast<uint16_t>(h.b), epochOf(h)});
}

uint64_t mcastEagerLimit() {
  return kEager.get();
}

McastTransport& mcast() {
  static McastTransport m;
  return m;
}

}  // namespace ccmpi::transport
