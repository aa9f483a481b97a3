// Shared-memory transport (see shm.h).
#include "transport/shm.h"

#include <fcntl.h>
#include <linux/membarrier.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>

#include "base/error.h"
#include "base/log.h"
#include "base/tunables.h"
#include "transport/cma.h"

namespace ccmpi::transport {
namespace {

Tunable<bool> kShm("CCMPI_SHM", true,
                   "ranks of one host talk through rings in shared memory instead of TCP "
                   "over loopback (must be the same on every rank)");
Tunable<uint64_t> kRingBytes(
    "CCMPI_SHM_RING", 0,
    "bytes of each shared-memory ring (one per pair of ranks of a host and direction; a "
    "power of two, at least 4096); 0 = auto: 128 KiB up to 16 ranks per host, 64 KiB up to "
    "64, else 16 KiB");
Tunable<int> kIsland(
    "CCMPI_SHM_ISLAND", 0,
    "split each host into shared-memory islands of this many consecutive world ranks (ranks of "
    "different islands talk TCP, as if on different hosts); 0 = the whole host. For tests of "
    "jobs that mix shared-memory and network peers on one machine");
Tunable<bool> kLightFences(
    "CCMPI_SHM_LIGHT_FENCES", true,
    "the shared-memory message path leaves out its memory fences and a rank about to sleep "
    "uses membarrier() instead (see shm.h); only where the host's ranks do not outnumber its "
    "cores");
Tunable<double> kSetupSeconds("CCMPI_SHM_SETUP_TIMEOUT", 60,
                              "seconds MPI_Init waits for the ranks of its host to share their "
                              "memory segments");

// A sleep or a wait for room whose membarrier failed (heavyFence) looks again after this.
constexpr int64_t kFenceRetryNs = 1000000;

// Registers this process for MEMBARRIER_CMD_GLOBAL_EXPEDITED (Linux 4.16); false when the
// kernel does not offer it.
bool registerMembarrier() {
  const long cmds = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
  if (cmds < 0 || !(cmds & MEMBARRIER_CMD_GLOBAL_EXPEDITED) ||
      !(cmds & MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED))
    return false;
  return syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED, 0, 0) == 0;
}

constexpr uint64_t kSegMagic = 0x43434d5049534547ull;  // "CCMPISEG"
constexpr uint32_t kSegVersion = 3;
constexpr uint64_t kHelloMagic = 0x43434d504948454cull;  // "CCMPIHEL"
constexpr size_t kCtlBytes = 4096;                       // segment header
constexpr size_t kRingCtlBytes = 4096;                   // ring counters, before its bytes
constexpr uint64_t kPublishEvery = 8 * 1024;             // a long copy publishes as it goes

// Records (see shm.h): a record starts on a 64-byte line with its word, check << 16 |
// length, and holds `length` bytes of the frame stream; the next one starts on the line
// after it. A record holds at most kPublishEvery stream bytes, so a long frame is
// published piece by piece and the receiver copies out behind the sender.
constexpr uint64_t kLine = 64;
constexpr uint64_t kRecordWord = 8;
constexpr uint64_t kRecordMax = kPublishEvery;
static_assert(kRecordMax < (1u << 16));
constexpr uint64_t kCheckMask = (uint64_t{1} << 48) - 1;

// The check a record at stream position `pos` carries: the ring's key plus the position's
// line number, so a word left by an earlier lap (pos - ring size) or payload bytes (the
// key is random per segment) never pass for a record.
inline uint64_t recordCheck(uint64_t pos, uint64_t key) {
  return ((pos / kLine) + key) & kCheckMask;
}
// Ring bytes a record of `len` stream bytes takes.
inline uint64_t recordSpan(uint64_t len) {
  return (kRecordWord + len + kLine - 1) & ~(kLine - 1);
}
// Ring bytes `total` stream bytes take in records of at most kRecordMax.
inline uint64_t recordsSpan(uint64_t total) {
  const uint64_t full = total / kRecordMax, rest = total % kRecordMax;
  return full * recordSpan(kRecordMax) + (rest ? recordSpan(rest) : 0);
}
inline uint64_t* recordAt(unsigned char* data, uint64_t cap, uint64_t pos) {
  return reinterpret_cast<uint64_t*>(data + (pos & (cap - 1)));
}
// The word of the record at `pos`, 0 when none is there yet. (Helpers of the message path
// are functions of this file, not members: a member of a shared library is called through
// the PLT and never inlined.)
inline uint64_t recordWordAt(unsigned char* data, uint64_t cap, uint64_t pos, uint64_t key,
                             int order) {
  const uint64_t w = __atomic_load_n(recordAt(data, cap, pos), order);
  return w != 0 && (w >> 16) == recordCheck(pos, key) ? w : 0;
}
// Publishes the record whose `len` bytes are written at *tail: its word, then the tail.
inline void closeRecord(unsigned char* data, uint64_t cap, uint64_t key, uint64_t* tail,
                        uint64_t len) {
  __atomic_store_n(recordAt(data, cap, *tail), recordCheck(*tail, key) << 16 | len,
                   __ATOMIC_RELEASE);
  *tail += recordSpan(len);
}
// Hands a frame's header to the sink; a protocol error there is fatal.
inline void frameArrived(Sink* sink, int peer, const FrameHeader& h, PayloadTarget* t) {
  if (sink->onFrame(peer, h, t) != 0)
    log::fatal("protocol error in a frame from rank %d through shared memory: %s", peer,
               lastErrorCause().c_str());
}

static_assert(std::atomic<uint64_t>::is_always_lock_free);
static_assert(std::atomic<uint32_t>::is_always_lock_free);

struct Hello {
  uint64_t magic;
  int32_t from;
  int32_t to;
  uint64_t nonce;
  uint64_t mac;
};

uint64_t helloMac(const SipKey& key, int from, int to, uint64_t nonce) {
  struct {
    char tag[8];
    int32_t from, to;
    uint64_t nonce;
  } m{};
  memcpy(m.tag, "ccmpishm", 8);
  m.from = from;
  m.to = to;
  m.nonce = nonce;
  return siphash24(key, &m, sizeof m);
}

std::string readFirstLine(const char* path) {
  std::string out;
  if (FILE* f = fopen(path, "r")) {
    char buf[128] = {};
    if (fgets(buf, sizeof buf, f)) out = buf;
    fclose(f);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

void copyIn(unsigned char* data, uint64_t cap, uint64_t pos, const void* src, size_t n) {
  const size_t off = static_cast<size_t>(pos & (cap - 1));
  const size_t first = std::min<size_t>(n, cap - off);
  memcpy(data + off, src, first);
  if (n > first) memcpy(data, static_cast<const unsigned char*>(src) + first, n - first);
}

void copyOut(const unsigned char* data, uint64_t cap, uint64_t pos, void* dst, size_t n) {
  const size_t off = static_cast<size_t>(pos & (cap - 1));
  const size_t first = std::min<size_t>(n, cap - off);
  memcpy(dst, data + off, first);
  if (n > first) memcpy(static_cast<unsigned char*>(dst) + first, data, n - first);
}

bool isPowerOfTwo(uint64_t v) {
  return v && (v & (v - 1)) == 0;
}

sockaddr_un abstractAddress(const std::string& name, socklen_t* len) {
  sockaddr_un sa{};
  sa.sun_family = AF_UNIX;
  sa.sun_path[0] = '\0';
  const size_t n = std::min(name.size(), sizeof sa.sun_path - 1);
  memcpy(sa.sun_path + 1, name.data(), n);
  *len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + n);
  return sa;
}

}  // namespace

struct ShmTransport::SegCtl {
  uint64_t magic;
  uint32_t version;
  int32_t owner;
  uint64_t ringBytes;
  uint32_t slots;
  uint32_t lightFences;            // the owner skips fences (ShmTransport::lightFences_)
  uint64_t tokenAddr, tokenValue;  // cma.h probe
  uint64_t recordKey;              // records of the rings in this segment (recordCheck)
  alignas(64) std::atomic<uint32_t> sleeping;
};

struct ShmTransport::Ring {
  alignas(64) std::atomic<uint64_t> head;
  alignas(64) std::atomic<uint32_t> writerWaiting;
};

class ShmTransport::Doorbell final : public progress::EventHandler {
 public:
  explicit Doorbell(ShmTransport* t) : t_(t) {}
  void onEvent(uint32_t) override { t_->drainDoorbell(); }
  ShmTransport* t_;
};

class ShmTransport::PeerWatch final : public progress::EventHandler {
 public:
  PeerWatch(ShmTransport* t, int slot) : t_(t), slot_(slot) {}
  void onEvent(uint32_t) override { t_->peerExited(slot_); }
  ShmTransport* t_;
  int slot_;
};

bool shmEnabled() {
  return kShm.get();
}

std::string shmHostKey() {
  std::string boot = readFirstLine("/proc/sys/kernel/random/boot_id");
  struct stat st {};
  const unsigned long long netns =
      stat("/proc/self/ns/net", &st) == 0 ? static_cast<unsigned long long>(st.st_ino) : 0;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  std::string key = boot + "." + std::to_string(netns) + "." + host;
  for (char& c : key)
    if (c == ' ' || c == '=' || c == '|' || c == '\t') c = '_';
  return key;
}

std::string shmHostKeyOf(int worldRank) {
  std::string key = shmHostKey();
  if (const int island = kIsland.get(); island > 0)
    key += ".island" + std::to_string(worldRank / island);
  return key;
}

ShmTransport::ShmTransport() = default;
ShmTransport::~ShmTransport() = default;

bool ShmTransport::open(int myRank, int worldSize, std::string* publish) {
  me_ = myRank;
  worldSize_ = worldSize;
  slotOf_.assign(static_cast<size_t>(worldSize), -1);
  if (!kShm.get() || worldSize < 2) return false;
  memfd_ = static_cast<int>(syscall(SYS_memfd_create, "ccmpi-shm", MFD_CLOEXEC));
  if (memfd_ < 0) {
    log::info("no shared-memory transport: memfd_create failed (%s); local peers use TCP",
              strerror(errno));
    return false;
  }
  sock_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (sock_ < 0) {
    log::info("no shared-memory transport: unix socket failed (%s)", strerror(errno));
    ::close(memfd_);
    memfd_ = -1;
    return false;
  }
  int one = 1;
  setsockopt(sock_, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
  // A random name: the datagrams that matter are authenticated, the rest only wake us.
  uint64_t nonce = 0;
  if (getrandom(&nonce, sizeof nonce, 0) != sizeof nonce)
    nonce = static_cast<uint64_t>(progress::Engine::nowNs()) ^ static_cast<uint64_t>(getpid());
  char name[64];
  snprintf(name, sizeof name, "ccmpi-%016llx-%d", static_cast<unsigned long long>(nonce), myRank);
  sockName_ = name;
  socklen_t len;
  const sockaddr_un sa = abstractAddress(sockName_, &len);
  if (::bind(sock_, reinterpret_cast<const sockaddr*>(&sa), len) != 0) {
    log::info("no shared-memory transport: cannot bind a unix socket (%s)", strerror(errno));
    ::close(sock_);
    ::close(memfd_);
    sock_ = memfd_ = -1;
    return false;
  }
  *publish = shmHostKeyOf(myRank) + "|" + sockName_;
  return true;
}

int ShmTransport::connect(const std::vector<std::string>& published, const SipKey& secret,
                          const FrameLimits& limits, Sink* sink) {
  sink_ = sink;
  limits_ = limits;
  if (sock_ < 0) return MPI_SUCCESS;
  const std::string& mine = published[static_cast<size_t>(me_)];
  const std::string myHost = mine.substr(0, mine.find('|'));
  std::vector<std::string> names;
  for (int r = 0; r < worldSize_; ++r) {
    const std::string& p = published[static_cast<size_t>(r)];
    const size_t bar = p.find('|');
    if (bar == std::string::npos || p.substr(0, bar) != myHost) continue;
    slotOf_[static_cast<size_t>(r)] = static_cast<int>(local_.size());
    local_.push_back(r);
    names.push_back(p.substr(bar + 1));
  }
  const int L = static_cast<int>(local_.size());
  if (L < 2) {
    // Alone on this host: nothing to share.
    slotOf_.assign(static_cast<size_t>(worldSize_), -1);
    local_.clear();
    ::close(sock_);
    ::close(memfd_);
    sock_ = memfd_ = -1;
    return MPI_SUCCESS;
  }
  mySlot_ = slotOf_[static_cast<size_t>(me_)];
  sockNames_ = names;
  uint64_t ring = kRingBytes.get();
  if (ring == 0) ring = L <= 16 ? 128 * 1024 : L <= 64 ? 64 * 1024 : 16 * 1024;
  if (!isPowerOfTwo(ring) || ring < 4096 || ring > (uint64_t{1} << 30))
    return setErrorCause(MPI_ERR_OTHER,
                         "CCMPI_SHM_RING=%llu must be a power of two between 4096 and 2^30",
                         static_cast<unsigned long long>(ring));
  static_assert(sizeof(Ring) <= kRingCtlBytes);
  ringBytes_ = ring;
  segBytes_ = kCtlBytes + static_cast<size_t>(L) * (kRingCtlBytes + ring);
  if (ftruncate(memfd_, static_cast<off_t>(segBytes_)) != 0)
    return setErrorCause(MPI_ERR_NO_MEM, "cannot size the shared-memory segment (%zu bytes): %s",
                         segBytes_, strerror(errno));
  // Populated: the pages exist, and are mapped here, before the first message (see
  // acceptSegment).
  seg_ = mmap(nullptr, segBytes_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, memfd_, 0);
  if (seg_ == MAP_FAILED) {
    seg_ = nullptr;
    return setErrorCause(MPI_ERR_NO_MEM, "cannot map the shared-memory segment: %s",
                         strerror(errno));
  }
  cma::init();
  myCtl_ = new (seg_) SegCtl{};
  myCtl_->magic = kSegMagic;
  myCtl_->version = kSegVersion;
  myCtl_->owner = me_;
  myCtl_->ringBytes = ring;
  myCtl_->slots = static_cast<uint32_t>(L);
  myCtl_->tokenAddr = cma::tokenAddress();
  myCtl_->tokenValue = cma::tokenValue();
  uint64_t key = 0;
  if (getrandom(&key, sizeof key, 0) != sizeof key)
    key = static_cast<uint64_t>(progress::Engine::nowNs()) * 0x9E3779B97F4A7C15ull;
  key &= kCheckMask;
  myCtl_->recordKey = key;
  recordKey_ = key;
  lightFences_ = kLightFences.get() && L <= sysconf(_SC_NPROCESSORS_ONLN) && registerMembarrier();
  myCtl_->lightFences = lightFences_ ? 1 : 0;
  myCtl_->sleeping.store(0);
  peers_.assign(static_cast<size_t>(L), Peer{});
  out_.assign(static_cast<size_t>(L), Out{});
  in_.assign(static_cast<size_t>(L), In{});
  for (int s = 0; s < L; ++s) {
    In& in = in_[static_cast<size_t>(s)];
    in.peer = local_[static_cast<size_t>(s)];
    auto* at = static_cast<unsigned char*>(seg_) + kCtlBytes +
               static_cast<size_t>(s) * (kRingCtlBytes + ring);
    in.ring = new (at) Ring{};
    in.ring->head.store(0);
    in.ring->writerWaiting.store(0);
    in.data = at + kRingCtlBytes;
  }
  if (int rc = exchange(secret)) return rc;
  doorbell_ = std::make_unique<Doorbell>(this);
  progress::engine().add(sock_, EPOLLIN, doorbell_.get());
  // Peers whose memory we may read: the pid the kernel vouched for must hold the token the
  // peer's segment names.
  for (int s = 0; s < L; ++s) {
    if (s == mySlot_ || !cma::enabled()) continue;
    Peer& p = peers_[static_cast<size_t>(s)];
    const auto* ctl = static_cast<const SegCtl*>(p.base);
    std::string why;
    if (cma::probe(static_cast<pid_t>(p.pid), ctl->tokenAddr, ctl->tokenValue, &why)) {
      p.cmaPid = p.pid;
    } else if (cmaRefusal_.empty()) {
      cmaRefusal_ = why;
      log::info(
          "no single-copy reads from rank %d on this host (%s): large messages from it are "
          "copied through shared memory",
          local_[static_cast<size_t>(s)], why.c_str());
    }
  }
  log::debug("shared-memory transport: %d ranks on this host, rings of %llu bytes", L,
             static_cast<unsigned long long>(ring));
  return MPI_SUCCESS;
}

// Offers our segment to the local peer in slot s: 1 sent, 0 its queue is full (try again),
// -1 failed (cause set).
int ShmTransport::offerSegment(int s, const SipKey& secret) {
  Hello h{};
  h.magic = kHelloMagic;
  h.from = me_;
  h.to = local_[static_cast<size_t>(s)];
  if (getrandom(&h.nonce, sizeof h.nonce, 0) != sizeof h.nonce)
    h.nonce = static_cast<uint64_t>(progress::Engine::nowNs());
  h.mac = helloMac(secret, h.from, h.to, h.nonce);
  iovec iov{&h, sizeof h};
  alignas(cmsghdr) char cbuf[CMSG_SPACE(sizeof(int))] = {};
  msghdr m{};
  socklen_t alen;
  sockaddr_un sa = abstractAddress(sockNames_[static_cast<size_t>(s)], &alen);
  m.msg_name = &sa;
  m.msg_namelen = alen;
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  m.msg_control = cbuf;
  m.msg_controllen = sizeof cbuf;
  cmsghdr* c = CMSG_FIRSTHDR(&m);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(c), &memfd_, sizeof(int));
  if (::sendmsg(sock_, &m, MSG_NOSIGNAL | MSG_DONTWAIT) == static_cast<ssize_t>(sizeof h)) return 1;
  if (errno == EAGAIN || errno == EINTR) return 0;
  setErrorCause(MPI_ERR_OTHER, "cannot hand the shared-memory segment to rank %d on this host: %s",
                h.to, strerror(errno));
  return -1;
}

// Takes one segment offer from the socket: 1 a peer's segment mapped, 0 nothing (or
// something to ignore), -1 failed (cause set). *empty: the socket had nothing.
int ShmTransport::acceptSegment(const SipKey& secret, bool* empty) {
  const int L = static_cast<int>(local_.size());
  Hello h{};
  iovec iov{&h, sizeof h};
  alignas(cmsghdr) char cbuf[CMSG_SPACE(sizeof(int) * 4) + CMSG_SPACE(sizeof(ucred))] = {};
  msghdr m{};
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  m.msg_control = cbuf;
  m.msg_controllen = sizeof cbuf;
  const ssize_t n = ::recvmsg(sock_, &m, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
  *empty = n < 0;
  if (n < 0) {
    if (errno == EAGAIN || errno == EINTR) return 0;
    setErrorCause(MPI_ERR_OTHER, "shared-memory set-up: recvmsg: %s", strerror(errno));
    return -1;
  }
  int fd = -1;
  pid_t pid = 0;
  for (cmsghdr* c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
    if (c->cmsg_level != SOL_SOCKET) continue;
    if (c->cmsg_type == SCM_RIGHTS) {
      const size_t nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (size_t i = 0; i < nfd; ++i) {
        int f;
        memcpy(&f, CMSG_DATA(c) + i * sizeof(int), sizeof f);
        if (i == 0 && fd < 0)
          fd = f;
        else
          ::close(f);
      }
    } else if (c->cmsg_type == SCM_CREDENTIALS) {
      ucred cr;
      memcpy(&cr, CMSG_DATA(c), sizeof cr);
      pid = cr.pid;
    }
  }
  const bool good = n == static_cast<ssize_t>(sizeof h) && h.magic == kHelloMagic && h.to == me_ &&
                    h.from >= 0 && h.from < worldSize_ && h.from != me_ &&
                    slotOf_[static_cast<size_t>(h.from)] >= 0 &&
                    h.mac == helloMac(secret, h.from, h.to, h.nonce) && fd >= 0 && pid > 0;
  if (!good) {
    if (fd >= 0) ::close(fd);
    if (n == static_cast<ssize_t>(sizeof h))
      log::warn("shared-memory set-up: ignored a segment offer that did not prove the job secret");
    return 0;
  }
  const int s = slotOf_[static_cast<size_t>(h.from)];
  Peer& p = peers_[static_cast<size_t>(s)];
  if (p.base) {
    ::close(fd);
    return 0;
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 || st.st_size < static_cast<off_t>(kCtlBytes)) {
    ::close(fd);
    setErrorCause(MPI_ERR_OTHER, "rank %d handed over a broken shared-memory segment", h.from);
    return -1;
  }
  const size_t bytes = static_cast<size_t>(st.st_size);
  void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (base == MAP_FAILED) {
    setErrorCause(MPI_ERR_NO_MEM, "cannot map the shared-memory segment of rank %d: %s", h.from,
                  strerror(errno));
    return -1;
  }
  auto* ctl = static_cast<SegCtl*>(base);
  const uint64_t rb = ctl->ringBytes;
  if (ctl->magic != kSegMagic || ctl->version != kSegVersion || ctl->owner != h.from ||
      ctl->slots != static_cast<uint32_t>(L) || !isPowerOfTwo(rb) || rb < 4096 ||
      rb > (uint64_t{1} << 30) ||
      bytes < kCtlBytes + static_cast<size_t>(L) * (kRingCtlBytes + rb)) {
    munmap(base, bytes);
    setErrorCause(MPI_ERR_OTHER,
                  "the shared-memory segment of rank %d does not fit this job (another version "
                  "of ccmpi, or a different CCMPI_SHM setting?)",
                  h.from);
    return -1;
  }
  p.base = base;
  p.bytes = bytes;
  p.pid = pid;
  Out& o = out_[static_cast<size_t>(s)];
  o.peer = h.from;
  o.ctl = ctl;
  auto* at = static_cast<unsigned char*>(base) + kCtlBytes +
             static_cast<size_t>(mySlot_) * (kRingCtlBytes + rb);
  o.ring = reinterpret_cast<Ring*>(at);
  o.data = at + kRingCtlBytes;
  // Our ring's page table entries now (the owner allocated its pages at creation): the
  // first lap of a ring would otherwise take a page fault every 64 messages, which made a
  // 2-rank ping-pong's first 2,000 round trips 1.5-3 times slower. Only our ring: the
  // others in this segment are other ranks'. Older kernels lack the advice: no matter.
  (void)madvise(at, kRingCtlBytes + rb, MADV_POPULATE_WRITE);
  o.key = ctl->recordKey;
  o.light = lightFences_ && ctl->lightFences != 0;
  in_[static_cast<size_t>(s)].light = o.light;
  // Watch the peer's process: its exit before shutdown fails the job.
  p.pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (p.pidfd >= 0) {
    watches_.push_back(std::make_unique<PeerWatch>(this, s));
    progress::engine().add(p.pidfd, EPOLLIN, watches_.back().get());
  }
  return 1;
}

// Every local rank offers its segment to every other and maps theirs. Offers and
// acceptances interleave: a socket's queue holds only a few datagrams
// (net.unix.max_dgram_qlen), so a rank cannot first send all its offers.
int ShmTransport::exchange(const SipKey& secret) {
  const int L = static_cast<int>(local_.size());
  std::vector<char> offered(static_cast<size_t>(L), 0);
  offered[static_cast<size_t>(mySlot_)] = 1;
  int toOffer = L - 1, missing = L - 1;
  const int64_t until = progress::Engine::nowNs() + static_cast<int64_t>(kSetupSeconds.get() * 1e9);
  while (toOffer > 0 || missing > 0) {
    bool progressed = false;
    for (int s = 0; s < L; ++s) {
      if (offered[static_cast<size_t>(s)]) continue;
      const int rc = offerSegment(s, secret);
      if (rc < 0) return MPI_ERR_OTHER;
      if (rc > 0) {
        offered[static_cast<size_t>(s)] = 1;
        --toOffer;
        progressed = true;
      }
    }
    for (;;) {
      bool empty = false;
      const int rc = acceptSegment(secret, &empty);
      if (rc < 0) return MPI_ERR_OTHER;
      if (rc > 0) --missing;
      if (empty) break;
      progressed = true;
    }
    if (progressed) continue;
    if (progress::Engine::nowNs() >= until) {
      std::string who;
      for (int s = 0; s < L; ++s)
        if (s != mySlot_ &&
            (!peers_[static_cast<size_t>(s)].base || !offered[static_cast<size_t>(s)]))
          who += (who.empty() ? "" : ", ") + std::to_string(local_[static_cast<size_t>(s)]);
      return setErrorCause(MPI_ERR_OTHER,
                           "ranks %s of this host did not exchange shared-memory segments with "
                           "this rank within %g s (CCMPI_SHM_SETUP_TIMEOUT)",
                           who.c_str(), kSetupSeconds.get());
    }
    pollfd pfd{sock_, static_cast<short>(POLLIN), 0};
    ::poll(&pfd, 1, 1);
  }
  return MPI_SUCCESS;
}

void ShmTransport::peerExited(int slot) {
  Peer& p = peers_[static_cast<size_t>(slot)];
  if (p.pidfd >= 0) {
    progress::engine().remove(p.pidfd);
    ::close(p.pidfd);
    p.pidfd = -1;
  }
  if (shuttingDown_) return;
  // Whatever it wrote before it went is still in its rings to us: take it first.
  poll();
  sink_->onPeerLost(local_[static_cast<size_t>(slot)], "its process exited");
}

void ShmTransport::corrupt(int peer, const char* what) {
  log::fatal(
      "rank %d (on this host) wrote a malformed entry into its shared-memory ring to "
      "rank %d: %s",
      peer, me_, what);
}

void ShmTransport::send(int peer, OutFrame* f) {
  Out& o = out_[static_cast<size_t>(slotOf_[static_cast<size_t>(peer)])];
  if (o.q.empty()) ++outPending_;
  o.q.push_back(f);
  if (!o.flushing) flush(o);
}

// Writes one record of the pieces [a, a + na) and [b, b + nb) at o.tail (room checked by
// the caller) and publishes it.
void ShmTransport::putRecord(Out& o, const void* a, size_t na, const void* b, size_t nb) {
  const uint64_t cap = o.ctl->ringBytes;
  if (na) copyIn(o.data, cap, o.tail + kRecordWord, a, na);
  if (nb) copyIn(o.data, cap, o.tail + kRecordWord + na, b, nb);
  closeRecord(o.data, cap, o.key, &o.tail, na + nb);
}

bool ShmTransport::trySendNow(int peer, const FrameHeader& h, const void* payload, size_t len) {
  Out& o = out_[static_cast<size_t>(slotOf_[static_cast<size_t>(peer)])];
  if (!o.q.empty() || o.flushing) return false;
  const uint64_t cap = o.ctl->ringBytes;
  // An uncoded eager frame takes the compact header: up to 32 bytes of message then fit
  // in the record's line.
  const size_t hdrLen = compactEager(h) ? kCompactEagerBytes : kHeaderBytes;
  const uint64_t need = recordsSpan(hdrLen + len);
  if (cap - (o.tail - o.headSeen) < need) {
    o.headSeen = o.ring->head.load(std::memory_order_acquire);
    if (cap - (o.tail - o.headSeen) < need) return false;
  }
  unsigned char hdr[kHeaderBytes];
  if (hdrLen == kCompactEagerBytes)
    encodeCompactEager(h, hdr);
  else
    encodeHeader(h, hdr);
  // A long payload is published record by record: the receiver copies out the first
  // pieces while the rest is copied in (a 64 KiB message costs about one copy, not two).
  const auto* p = static_cast<const unsigned char*>(payload);
  size_t take = std::min<size_t>(len, kRecordMax - hdrLen);
  putRecord(o, hdr, hdrLen, p, take);
  const int slot = slotOf_[static_cast<size_t>(peer)];
  if (take < len) {
    wake(slot);
    p += take;
    len -= take;
    while (len > 0) {
      take = std::min<size_t>(len, kRecordMax);
      putRecord(o, p, take, nullptr, 0);
      p += take;
      len -= take;
    }
  }
  ++framesSent_;
  wake(slot);
  return true;
}

bool ShmTransport::trySendSmall(int peer, uint32_t context, int32_t tag, uint64_t wireId,
                                const void* payload, size_t len) {
  static_assert(kRecordWord + kCompactEagerBytes + kSmallBytes == kLine);
  const int slot = slotOf_[static_cast<size_t>(peer)];
  Out& o = out_[static_cast<size_t>(slot)];
  if (!o.q.empty() || o.flushing || len > kSmallBytes) return false;
  const uint64_t cap = o.ctl->ringBytes;
  if (cap - (o.tail - o.headSeen) < kLine) {
    o.headSeen = o.ring->head.load(std::memory_order_acquire);
    if (cap - (o.tail - o.headSeen) < kLine) return false;
  }
  // A record starts on a line, so this one never wraps around the ring's end.
  unsigned char* line = o.data + (o.tail & (cap - 1));
  encodeCompactEager(line + kRecordWord, context, tag, static_cast<uint32_t>(len), wireId);
  if (len) memcpy(line + kRecordWord + kCompactEagerBytes, payload, len);
  closeRecord(o.data, cap, o.key, &o.tail, kCompactEagerBytes + len);
  ++framesSent_;
  wake(slot);
  return true;
}

void ShmTransport::flush(Out& o) {
  const uint64_t cap = o.ctl->ringBytes;
  o.flushing = true;
  while (!o.q.empty()) {
    // Room for one record of at least one byte (space is a multiple of a line).
    uint64_t space = cap - (o.tail - o.headSeen);
    if (space < kLine) {
      o.headSeen = o.ring->head.load(std::memory_order_acquire);
      space = cap - (o.tail - o.headSeen);
      if (space < kLine) {
        // Full: ask the consumer to wake us when it frees room, then look once more.
        o.ring->writerWaiting.store(1, std::memory_order_seq_cst);
        heavyFence();
        o.headSeen = o.ring->head.load(std::memory_order_seq_cst);
        space = cap - (o.tail - o.headSeen);
        if (space < kLine) break;
      }
    }
    // One record: the queued frames' bytes, as many as it holds.
    const uint64_t room = std::min(kRecordMax, space - kRecordWord);
    const uint64_t at = o.tail;
    uint64_t len = 0;
    while (len < room && !o.q.empty()) {
      OutFrame* f = o.q.front();
      if (f->unprepared) {
        f->unprepared = false;
        f->prepare();
      }
      for (int i = 0; i < f->iovcnt && f->bytesLeft > 0 && len < room; ++i) {
        iovec& v = f->iov[i];
        if (v.iov_len == 0) continue;
        const size_t n = static_cast<size_t>(std::min<uint64_t>(room - len, v.iov_len));
        copyIn(o.data, cap, at + kRecordWord + len, v.iov_base, n);
        len += n;
        v.iov_base = static_cast<unsigned char*>(v.iov_base) + n;
        v.iov_len -= n;
        f->bytesLeft -= n;
      }
      if (f->bytesLeft > 0) break;  // the record is full
      ++framesSent_;
      if (f->refill()) {
        // Next frame of a stream: frames queued behind it go first (a clear-to-send must
        // not wait for a large transfer to this peer); DATA frames say where they belong.
        if (o.q.size() > 1) {
          o.q.pop_front();
          o.q.push_back(f);
        }
        continue;
      }
      o.q.pop_front();
      if (o.q.empty()) --outPending_;
      f->written();  // may queue more frames for this peer: the loop writes them
    }
    if (len == 0) break;
    closeRecord(o.data, cap, o.key, &o.tail, len);
    wake(slotOf_[static_cast<size_t>(o.peer)]);
  }
  o.flushing = false;
}

void ShmTransport::wake(int slot) {
  const Out& o = out_[static_cast<size_t>(slot)];
  if (o.light)
    std::atomic_signal_fence(std::memory_order_seq_cst);  // the sleeper fences (heavyFence)
  else
    std::atomic_thread_fence(std::memory_order_seq_cst);
  SegCtl* ctl = o.ctl;
  if (ctl->sleeping.load(std::memory_order_relaxed) == 0) return;
  if (ctl->sleeping.exchange(0, std::memory_order_acq_rel) == 0) return;
  ringDoorbell(slot);
}

void ShmTransport::ringDoorbell(int slot) {
  ++wakeups_;
  socklen_t alen;
  const sockaddr_un sa = abstractAddress(sockNames_[static_cast<size_t>(slot)], &alen);
  const char b = 1;
  // A full queue already wakes the peer: nothing to do on EAGAIN.
  (void)::sendto(sock_, &b, 1, MSG_DONTWAIT | MSG_NOSIGNAL, reinterpret_cast<const sockaddr*>(&sa),
                 alen);
}

uint64_t ShmTransport::recordWord(const In& in, int order) const {
  return recordWordAt(in.data, ringBytes_, in.head, recordKey_, order);
}

void ShmTransport::badHeader(int peer, const char* why) {
  char buf[96];
  snprintf(buf, sizeof buf, "bad frame header (%s)", why ? why : "?");
  corrupt(peer, buf);
}

int ShmTransport::readRing(In& in) {
  const uint64_t cap = ringBytes_;
  int frames = 0;
  const uint64_t start = in.head;
  // At most one ring's worth per call: a sender that keeps writing does not hold us here.
  while (in.head - start < cap) {
    const uint64_t w = recordWordAt(in.data, cap, in.head, recordKey_, __ATOMIC_ACQUIRE);
    if (w == 0) break;
    const uint64_t len = w & 0xffff;
    if (len == 0 || len > kRecordMax) corrupt(in.peer, "a record of impossible length");
    const uint64_t off = (in.head + kRecordWord) & (cap - 1);
    if (!in.inPayload && in.hdrHave == 0 && len >= kCompactEagerBytes && off + len <= cap &&
        in.data[off] == kCompactEagerMark) {
      // The common record: one small message whole (a compact frame), read in place.
      if (!oneFrame(in, in.data + off, len))
        frames += consume(in, in.head + kRecordWord, len);
      else
        ++frames;
    } else {
      frames += consume(in, in.head + kRecordWord, len);
    }
    in.head += recordSpan(len);
  }
  if (in.head == start) return 0;
  in.ring->head.store(in.head, std::memory_order_release);
  if (in.light)
    std::atomic_signal_fence(std::memory_order_seq_cst);  // a waiting writer fences (flush)
  else
    std::atomic_thread_fence(std::memory_order_seq_cst);
  if (in.ring->writerWaiting.load(std::memory_order_relaxed) &&
      in.ring->writerWaiting.exchange(0, std::memory_order_acq_rel))
    ringDoorbell(slotOf_[static_cast<size_t>(in.peer)]);
  return frames > 0 ? frames : 1;
}

bool ShmTransport::oneFrame(In& in, const unsigned char* p, uint64_t len) {
  FrameHeader h;
  const char* why = nullptr;
  if (decodeCompactEager(p, in.peer, limits_, &h, &why) != DecodeStatus::kOk)
    badHeader(in.peer, why);
  if (kCompactEagerBytes + h.payloadLen != len) return false;  // not alone in the record
  PayloadTarget t;
  frameArrived(sink_, in.peer, h, &t);
  if (h.payloadLen > 0) {
    if (t.keep > h.payloadLen) t.keep = h.payloadLen;
    if (t.keep) memcpy(t.dest, p + kCompactEagerBytes, static_cast<size_t>(t.keep));
    sink_->onPayload(in.peer, h, t);
  }
  return true;
}

int ShmTransport::consume(In& in, uint64_t pos, uint64_t len) {
  const uint64_t cap = ringBytes_;
  const uint64_t end = pos + len;
  int frames = 0;
  while (pos != end) {
    const uint64_t avail = end - pos;
    if (!in.inPayload) {
      // A frame starts with a full header or a compact eager one (its first byte tells).
      if (in.hdrHave == 0) copyOut(in.data, cap, pos, in.hdr, 1);
      const bool compact = in.hdr[0] == kCompactEagerMark;
      const size_t need = compact ? kCompactEagerBytes : kHeaderBytes;
      const size_t take = static_cast<size_t>(std::min<uint64_t>(need - in.hdrHave, avail));
      copyOut(in.data, cap, pos, in.hdr + in.hdrHave, take);
      pos += take;
      in.hdrHave += take;
      if (in.hdrHave < need) break;
      in.hdrHave = 0;
      FrameHeader h;
      const char* why = nullptr;
      const DecodeStatus st = compact ? decodeCompactEager(in.hdr, in.peer, limits_, &h, &why)
                                      : decodeHeader(in.hdr, kHeaderBytes, limits_, &h, &why);
      if (st != DecodeStatus::kOk) badHeader(in.peer, why);
      if (h.src != in.peer) corrupt(in.peer, "a frame claims another source rank");
      if (h.type < FrameType::kEager) corrupt(in.peer, "a connection set-up frame");
      ++frames;
      in.cur = h;
      in.tgt = PayloadTarget{};
      frameArrived(sink_, in.peer, h, &in.tgt);
      if (h.payloadLen > 0) {
        if (in.tgt.keep > h.payloadLen) in.tgt.keep = h.payloadLen;
        in.inPayload = true;
        in.payloadLeft = h.payloadLen;
        in.got = 0;
      }
      continue;
    }
    const uint64_t take = std::min(avail, in.payloadLeft);
    const uint64_t keepLeft = in.got < in.tgt.keep ? in.tgt.keep - in.got : 0;
    const uint64_t keep = std::min(take, keepLeft);
    if (keep) copyOut(in.data, cap, pos, in.tgt.dest + in.got, static_cast<size_t>(keep));
    in.got += keep;
    pos += take;
    in.payloadLeft -= take;
    if (in.payloadLeft == 0) {
      in.inPayload = false;
      sink_->onPayload(in.peer, in.cur, in.tgt);
    }
  }
  return frames;
}

int ShmTransport::poll() {
  if (local_.empty() || polling_) return 0;
  polling_ = true;
  int work = 0;
  // An idle poll reads each incoming ring's tail (a line that stays in this core's cache
  // until its sender writes) and nothing else: per-sender rings cost no shared word that
  // every sender writes, so a message moves only its own lines between cores.
  const size_t L = in_.size();
  for (size_t s = 0; s < L; ++s) {
    In& in = in_[s];
    if (static_cast<int>(s) != mySlot_ &&
        recordWordAt(in.data, ringBytes_, in.head, recordKey_, __ATOMIC_ACQUIRE))
      work += readRing(in);
  }
  if (outPending_ > 0) {
    for (Out& o : out_) {
      if (!o.q.empty() && !o.flushing) {
        const uint64_t before = o.tail;
        flush(o);
        if (o.tail != before) ++work;
      }
    }
  }
  polling_ = false;
  return work;
}

void ShmTransport::heavyFence() {
  if (!lightFences_) return;  // both sides fence themselves
  // Should the call fail (it does not once registered), the sleep or the wait for room
  // ends after kFenceRetryNs and looks again.
  if (syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL_EXPEDITED, 0, 0) != 0)
    progress::engine().wakeBy(progress::Engine::nowNs() + kFenceRetryNs);
}

bool ShmTransport::prepareSleep() {
  if (local_.empty()) return true;
  myCtl_->sleeping.store(1, std::memory_order_seq_cst);
  // A writer that skipped its fence may not see `sleeping` yet, nor we its record: after
  // the membarrier it has passed a fence, so either it sees us asleep or we see its record.
  heavyFence();
  const int L = static_cast<int>(local_.size());
  for (int s = 0; s < L; ++s) {
    if (s == mySlot_) continue;
    const In& in = in_[static_cast<size_t>(s)];
    if (recordWord(in, __ATOMIC_SEQ_CST)) {
      myCtl_->sleeping.store(0, std::memory_order_relaxed);
      return false;
    }
  }
  return true;
}

void ShmTransport::endSleep() {
  if (myCtl_) myCtl_->sleeping.store(0, std::memory_order_relaxed);
}

void ShmTransport::drainDoorbell() {
  char buf[64];
  alignas(cmsghdr) char cbuf[CMSG_SPACE(sizeof(int) * 4) + CMSG_SPACE(sizeof(ucred))];
  for (int i = 0; i < 1024; ++i) {
    iovec iov{buf, sizeof buf};
    msghdr m{};
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = cbuf;
    m.msg_controllen = sizeof cbuf;
    if (::recvmsg(sock_, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) < 0) return;
    // Descriptors nobody asked for (a late or stray offer) are closed.
    for (cmsghdr* c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
      if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
      const size_t nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (size_t k = 0; k < nfd; ++k) {
        int f;
        memcpy(&f, CMSG_DATA(c) + k * sizeof(int), sizeof f);
        ::close(f);
      }
    }
  }
}

bool ShmTransport::hasPendingOutput() const {
  for (const Out& o : out_)
    if (!o.q.empty()) return true;
  return false;
}

std::string ShmTransport::pendingOutput() const {
  std::string out;
  for (const Out& o : out_) {
    if (o.q.empty()) continue;
    if (!out.empty()) out += ", ";
    out += "rank " + std::to_string(o.peer) + " (" + std::to_string(o.q.size()) + " frames)";
  }
  return out;
}

int ShmTransport::cmaPid(int peer) const {
  if (!has(peer)) return 0;
  return peers_[static_cast<size_t>(slotOf_[static_cast<size_t>(peer)])].cmaPid;
}

void ShmTransport::disableCma(int peer) {
  if (has(peer)) peers_[static_cast<size_t>(slotOf_[static_cast<size_t>(peer)])].cmaPid = 0;
}

void ShmTransport::shutdown(double drainSeconds) {
  shuttingDown_ = true;
  const int64_t deadline =
      progress::Engine::nowNs() + static_cast<int64_t>(std::max(0.0, drainSeconds) * 1e9);
  while (hasPendingOutput() && progress::Engine::nowNs() < deadline) progress::engine().poll(10);
  for (Out& o : out_) {
    for (OutFrame* f : o.q) f->written();
    o.q.clear();
  }
  outPending_ = 0;
  for (Peer& p : peers_) {
    if (p.pidfd >= 0) {
      progress::engine().remove(p.pidfd);
      ::close(p.pidfd);
    }
    if (p.base) munmap(p.base, p.bytes);
    p = Peer{};
  }
  watches_.clear();
  if (sock_ >= 0) {
    progress::engine().remove(sock_);
    ::close(sock_);
    sock_ = -1;
  }
  if (seg_) munmap(seg_, segBytes_);
  seg_ = nullptr;
  myCtl_ = nullptr;
  if (memfd_ >= 0) ::close(memfd_);
  memfd_ = -1;
  out_.clear();
  in_.clear();
  local_.clear();
  slotOf_.assign(slotOf_.size(), -1);
}

}  // namespace ccmpi::transport
