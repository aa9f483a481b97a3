// Matching engine and protocols.
//
// Matching: per context id, a posted-receive list and an unexpected-message list, both
// in arrival order, so the first posted receive that matches an incoming envelope wins
// and a receive takes the earliest matching message (MPI's non-overtaking rule: frames
// from one peer arrive in order over one connection; self messages are queued in order).
//
// Protocols (threshold CCMPI_EAGER_LIMIT):
//  - eager: envelope + data in one frame. A matched receive with a contiguous buffer gets
//    the data read straight into it; otherwise it lands in a buffer of the unexpected
//    entry (or a staging buffer) and is unpacked.
//  - rendezvous (large or synchronous sends): RTS carries the envelope only; when the
//    receive is matched the receiver answers CTS with the bytes it accepts, and the sender
//    streams DATA frames of at most CCMPI_RNDV_CHUNK bytes, straight from a contiguous
//    buffer or packed chunk by chunk from a non-contiguous one. A large send never makes
//    the receiver buffer data it did not ask for.
//  - single copy within a host (transport/cma.h): an RTS from a contiguous buffer to a
//    rank on the same host also carries the buffer's address; a receiver that may read the
//    sender's memory copies the bytes itself when the receive is matched (into the receive
//    buffer, or through the staging buffer into a non-contiguous one) and answers a CTS
//    flagged kFlagCma, which completes the send. A failed read falls back to the CTS and
//    DATA stream above.
//  - self: no network; eager copies, or the sender waits for the match and the receiver
//    copies from the sender's buffer.
//  - compression (compress_channel.h): eligible floating-point messages to remote peers
//    are coded when their frame is written (eager: the whole message; rendezvous: chunks
//    of CCMPI_COMPRESS_CHUNK bytes) and decoded when the frame arrives, into the receive
//    buffer or the unexpected entry. Frames carry kFlagCompressed; msgSize and offsets
//    always count original bytes.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <unordered_map>

#include "base/error.h"
#include "base/link.h"
#include "base/log.h"
#include "base/tunables.h"
#include "compress/frame.h"
#include "datatype/datatype.h"
#include "p2p/am.h"
#include "p2p/compress_channel.h"
#include "p2p/engine.h"
#include "p2p/request.h"
#include "runtime/runtime.h"
#include "transport/cma.h"
#include "transport/mcast.h"
#include "transport/shm.h"
#include "transport/tcp.h"

namespace ccmpi::p2p {

struct Unexpected {
  int srcWorld = 0;
  int tag = 0;
  uint32_t context = 0;
  uint64_t size = 0;
  bool rts = false;                 // data still at the sender
  uint64_t sreq = 0;                // the sender's wire id of the message (rendezvous: its
                                    // request id), which a cancel request names
  uint64_t cmaAddr = 0;             // rendezvous: the sender's buffer, readable in place
  bool railDirected = false;        // rendezvous: the sender chose the data's rail
  Request* selfSender = nullptr;    // self rendezvous
  std::vector<unsigned char> data;  // eager payload
  int error = MPI_SUCCESS;          // the payload could not be decoded
  // An eager message sent in parts (kFlagMore) whose last part has not arrived, and the
  // receive that matched it meanwhile (delivered when the last part comes).
  bool partial = false;
  Request* waiter = nullptr;
  // Links in its context's unexpected queue while it waits there.
  Unexpected* qPrev = nullptr;
  Unexpected* qNext = nullptr;
};

namespace {

Tunable<uint64_t> kEagerLimit("CCMPI_EAGER_LIMIT", 64 * 1024,
                              "largest message (bytes) sent eagerly; larger ones use rendezvous. "
                              "Must be the same on every rank");
Tunable<uint64_t> kChunk("CCMPI_RNDV_CHUNK", 256 * 1024,
                         "bytes per DATA frame of a rendezvous transfer from a non-contiguous "
                         "buffer (the pack/send pipelining unit)");
Tunable<uint64_t> kFrame("CCMPI_RNDV_FRAME", 64 * 1024,
                         "largest DATA frame of a rendezvous transfer from a contiguous buffer");
Tunable<uint64_t> kFrameLocal(
    "CCMPI_RNDV_FRAME_LOCAL", 256 * 1024,
    "largest DATA frame of a rendezvous transfer from a contiguous buffer to a rank on the "
    "same host (a connection within the machine, where a clear-to-send never waits long "
    "behind a frame)");
uint64_t remoteFrame() {
  static const uint64_t frame = [] {
    const uint64_t set = kFrame.get();
    const uint64_t pace = transport::pacingRate();
    if (kFrame.fromEnv() || pace == 0) return set;
    return std::clamp<uint64_t>(pace / 1000, 16 * 1024, set);
  }();
  return frame;
}
Tunable<uint64_t> kEagerFrame(
    "CCMPI_EAGER_FRAME", 0,
    "largest frame of an eager message over TCP: a longer message goes in parts, so a "
    "clear-to-send queued behind it waits for one part, not the whole message (0 = auto: "
    "the DATA frame of a transfer to another host, CCMPI_RNDV_FRAME or a millisecond of "
    "the pacing rate; within a host, whole)");

Tunable<bool> kStripe(
    "CCMPI_STRIPE", true,
    "stripe large rendezvous messages to another host over every rail the two ranks share "
    "(docs/multirail.md); 0 = everything on the first rail");
Tunable<uint64_t> kStripeMin("CCMPI_STRIPE_MIN", 256 * 1024,
                             "smallest rendezvous message (bytes) striped over several rails");
Tunable<uint64_t> kRailDirectMin(
    "CCMPI_RAIL_DIRECT_MIN", 8 * 1024,
    "smallest message (bytes) a rail-aware collective sends on a rail other than the first "
    "(by rendezvous, whatever CCMPI_EAGER_LIMIT says); smaller ones go eagerly on rail 0");

Tunable<bool> kStats("CCMPI_P2P_STATS", false,
                     "print each rank's point-to-point counters to stderr at MPI_Finalize");

// A FIFO threaded through its elements (qPrev, qNext): queueing, matching and cancelling
// take no allocation, and taking an element out costs no search.
template <typename T>
struct Fifo {
  T* head = nullptr;
  T* tail = nullptr;
  void push(T* x) {
    x->qPrev = tail;
    x->qNext = nullptr;
    (tail ? tail->qNext : head) = x;
    tail = x;
  }
  void erase(T* x) {
    (x->qPrev ? x->qPrev->qNext : head) = x->qNext;
    (x->qNext ? x->qNext->qPrev : tail) = x->qPrev;
    x->qPrev = x->qNext = nullptr;
  }
  // x is in this queue (an element of no queue has no links).
  bool holds(const T* x) const { return x->qPrev || head == x; }
};

// Released requests and unexpected entries keep their memory for the next (up to
// kSpares each): a message then costs no allocation. Sanitizer builds allocate each anew,
// so a use after release is still caught.
#if defined(__SANITIZE_ADDRESS__)
constexpr size_t kSpares = 0;
#else
constexpr size_t kSpares = 256;
#endif

struct Queues {
  Fifo<Request> posted;
  Fifo<Unexpected> unexpected;
};

// An attached buffered-send buffer: its budget (the messages are copied into staging,
// the budget keeps MPI's accounting) and the buffered messages still in flight.
struct BsendPool {
  void* buf = nullptr;  // MPI_BUFFER_AUTOMATIC: no limit
  int64_t size = 0;
  int64_t used = 0;
  int pending = 0;
};

struct State {
  transport::TcpTransport* tcp = nullptr;
  transport::ShmTransport* shm = nullptr;  // ranks of this host (has(peer))
  int me = 0;
  int worldSize = 1;
  std::unordered_map<uint32_t, Queues> queues;  // entries stay until finalize
  // The last context looked up (consecutive messages mostly share one).
  uint32_t lastContext = 0;
  Queues* lastQueues = nullptr;
  std::unordered_map<uint64_t, Request*> byId;  // requests the wire may refer to
  uint64_t nextId = 1;
  size_t liveRequests = 0;
  Counters counters;
  // Coded payloads being received, one per peer (a connection delivers one frame at a time).
  std::vector<std::vector<unsigned char>> rxCoded;
  // Eager messages arriving in parts (kFlagMore), per peer (a few at a time: the
  // sender's streams to us take turns), by the sender's wire id: where the parts go, a
  // matched contiguous receive or an Unexpected entry, and the bytes come so far.
  struct EagerPart {
    uint64_t wireId = 0;
    Request* r = nullptr;
    Unexpected* u = nullptr;
    uint64_t arrived = 0;
    uint64_t size = 0;
    int tag = 0;
  };
  std::vector<std::vector<EagerPart>> eagerParts;
  // Buffered sends: the process's buffer (MPI_Buffer_attach) and those attached to a
  // communicator (by context id) or a session (by handle), MPI-4.1.
  BsendPool bsend;
  std::unordered_map<uint64_t, BsendPool> commPools;
  std::unordered_map<uint64_t, BsendPool> sessionPools;
};

State g;

// The queues of `context`, created on first use.
Queues& queuesOf(uint32_t context) {
  if (g.lastQueues && g.lastContext == context) return *g.lastQueues;
  Queues& q = g.queues[context];
  g.lastContext = context;
  g.lastQueues = &q;
  return q;
}

// A spare unexpected entry keeps a payload buffer of at most this many bytes.
constexpr size_t kSpareUnexpectedBytes = 4096;
std::vector<Unexpected*> gSpareUnexpected;

Unexpected* newUnexpected() {
  if (gSpareUnexpected.empty()) return new Unexpected;
  Unexpected* u = gSpareUnexpected.back();
  gSpareUnexpected.pop_back();
  return u;
}

void freeUnexpected(Unexpected* u) {
  if (gSpareUnexpected.size() >= kSpares) {
    delete u;
    return;
  }
  std::vector<unsigned char> data;
  if (u->data.capacity() <= kSpareUnexpectedBytes) data.swap(u->data);
  data.clear();
  *u = Unexpected{};
  u->data.swap(data);
  gSpareUnexpected.push_back(u);
}

void splitPartDone(Request* s);   // split single-copy sends (startSplit)
void stripePartDone(Request* s);  // striped sends (startStriped)

// The transport is chosen per peer: shared memory for the ranks of this host, TCP for the
// others. Every frame to one peer takes the same way, so frames stay in order.
bool viaShm(int peer) {
  return g.shm && g.shm->has(peer);
}
void route(int peer, transport::OutFrame* f) {
  if (viaShm(peer))
    g.shm->send(peer, f);
  else
    g.tcp->send(peer, f);
}
bool sameHost(int peer) {
  return viaShm(peer) || (g.tcp && g.tcp->sameHost(peer));
}
// Messages to `peer` may be coded (compress_channel): never through shared memory, where a
// copy costs less than coding it.
bool codecPath(int peer) {
  return !viaShm(peer);
}
int cmaPidOf(int peer) {
  return viaShm(peer) ? g.shm->cmaPid(peer) : g.tcp->cmaPid(peer);
}
void disableCmaOf(int peer) {
  if (viaShm(peer))
    g.shm->disableCma(peer);
  else
    g.tcp->disableCma(peer);
}

constexpr int64_t kBsendOverhead = MPI_BSEND_OVERHEAD;

std::unordered_map<uint64_t, BsendPool>* poolMap(BufferScope scope) {
  return scope == BufferScope::kComm ? &g.commPools : &g.sessionPools;
}

// The buffer a buffered send on c uses: c's, else the process's, else a session's (a
// communicator does not record its session; with one session, as usual, it is the one).
BsendPool* poolFor(const comm::Comm& c) {
  auto it = g.commPools.find(c.contextId);
  if (it != g.commPools.end() && it->second.buf) return &it->second;
  if (g.bsend.buf || g.sessionPools.empty()) return &g.bsend;
  for (auto& [key, pool] : g.sessionPools)
    if (pool.buf) return &pool;
  return &g.bsend;
}

BsendPool* findPool(BufferScope scope, uint64_t key) {
  if (scope == BufferScope::kProcess) return &g.bsend;
  auto* m = poolMap(scope);
  auto it = m->find(key);
  return it == m->end() ? nullptr : &it->second;
}

// MPI_ANY_TAG matches the tags users can give; the ones above kTagUb carry partitioned
// messages (kPartitionedTagBase), which only a partitioned receive of that tag matches.
bool tagMatches(int want, int got) {
  return want == MPI_ANY_TAG ? got <= kTagUb : want == got;
}
bool srcMatches(int want, int got) {
  return want == MPI_ANY_SOURCE || want == got;
}

uint64_t registerId(Request* r) {
  r->id = g.nextId++;
  g.byId[r->id] = r;
  return r->id;
}
void unregisterId(Request* r) {
  if (r->id) g.byId.erase(r->id);
  r->id = 0;
}

// Start of the receive buffer's packed bytes when the type is contiguous.
unsigned char* contiguousBase(Request* r) {
  return static_cast<unsigned char*>(r->buf) + r->dt->trueLb();
}

// ---------- outgoing frames ----------

// An eager message or a control frame (RTS/CTS). Owns a copy of the payload when the
// user's buffer cannot be referenced until the write completes.
class MsgFrame final : public transport::OutFrame {
 public:
  Request* req = nullptr;    // completed when written (nullptr for control frames)
  bool* doneFlag = nullptr;  // set when written (only while the sender is looking)
  std::vector<unsigned char> owned;
  void written() override {
    if (doneFlag) *doneFlag = true;
    if (req) completeRequest(req);
    delete this;
  }
  // An eager message to be coded when it goes out: the header (payloadLen is set then)
  // and the message bytes.
  void setCoded(const transport::FrameHeader& h, int peer, compress::DataType type,
                const unsigned char* src, size_t len) {
    head_ = h;
    peer_ = peer;
    type_ = type;
    src_ = src;
    srcLen_ = len;
    unprepared = true;
  }
  void prepare() override {
    const size_t len = compress_channel::encode(peer_, src_, srcLen_, type_, &coded_);
    transport::FrameHeader h = head_;
    h.flags |= transport::kFlagCompressed;
    h.payloadLen = len;
    setFrame(h, coded_.data(), len);
  }
  // Copies the payload still unwritten (iov[1..]) into `owned` so the user's buffer is free.
  void ownRemaining() {
    if (unprepared) {
      if (src_ != owned.data()) {
        owned.assign(src_, src_ + srcLen_);
        src_ = owned.data();
      }
      return;
    }
    size_t payload = 0;
    for (int i = 1; i < iovcnt; ++i) payload += iov[i].iov_len;
    if (payload == 0 || (iovcnt == 2 && iov[1].iov_base == owned.data())) return;
    std::vector<unsigned char> copy(payload);
    size_t at = 0;
    for (int i = 1; i < iovcnt; ++i) {
      memcpy(copy.data() + at, iov[i].iov_base, iov[i].iov_len);
      at += iov[i].iov_len;
    }
    owned.swap(copy);
    iov[1] = {owned.data(), payload};
    iovcnt = 2;
  }

 private:
  transport::FrameHeader head_;
  int peer_ = 0;
  compress::DataType type_ = compress::DataType::kFloat64;
  const unsigned char* src_ = nullptr;
  size_t srcLen_ = 0;
  std::vector<unsigned char> coded_;
};

// An eager message sent in parts: a kEager frame with kFlagMore holding the first `part`
// bytes, then kEagerMore frames of at most `part` bytes. Between two parts the connection
// may carry other frames, a clear-to-send first (tcp.cc: a refilled stream goes behind
// the frames queued after it).
class EagerParts final : public transport::OutFrame {
 public:
  Request* req = nullptr;    // completed when written (nullptr once completed locally)
  bool* doneFlag = nullptr;  // set when written (only while the sender is looking)
  std::vector<unsigned char> owned;
  // h: the message's kEager header; src: its msgSize packed bytes (may be owned.data()).
  EagerParts(const transport::FrameHeader& h, const unsigned char* src, uint64_t part)
      : head_(h), src_(src), part_(part) {
    transport::FrameHeader first = h;
    first.flags |= transport::kFlagMore;
    first.payloadLen = part;
    setFrame(first, src, part);
    next_ = part;
  }
  bool isStream() const override { return true; }
  bool refill() override {
    if (next_ >= head_.msgSize) return false;
    transport::FrameHeader h = head_;
    h.type = transport::FrameType::kEagerMore;
    h.flags = 0;
    h.offset = next_;
    h.payloadLen = std::min(part_, head_.msgSize - next_);
    setFrame(h, src_ + next_, h.payloadLen);
    next_ += h.payloadLen;
    return true;
  }
  void written() override {
    if (doneFlag) *doneFlag = true;
    if (req) completeRequest(req);
    delete this;
  }
  // Copies the message into `owned` so the user's buffer is free (the part being written
  // follows it there).
  void ownRemaining() {
    if (src_ == owned.data()) return;
    owned.assign(src_, src_ + head_.msgSize);
    if (iovcnt >= 2 && iov[1].iov_len > 0)
      iov[1].iov_base = owned.data() + (static_cast<const unsigned char*>(iov[1].iov_base) - src_);
    src_ = owned.data();
  }

 private:
  transport::FrameHeader head_;
  const unsigned char* src_;
  uint64_t part_;
  uint64_t next_ = 0;
};

// The part size of an eager message of `bytes` to `peer`, or 0 when it goes whole: over
// TCP a message longer than CCMPI_EAGER_FRAME (auto: a DATA frame to another host).
uint64_t eagerPart(int peer, uint64_t bytes) {
  if (viaShm(peer)) return 0;
  const uint64_t part = kEagerFrame.get() ? std::max<uint64_t>(kEagerFrame.get(), 1024)
                        : sameHost(peer)  ? 0
                                          : remoteFrame();
  return part && bytes > part ? part : 0;
}

// The DATA stream of a rendezvous send: successive frames of at most kChunk bytes, or
// of compress_channel::chunkBytes() bytes each coded when it goes out.
class DataStream final : public transport::OutFrame {
 public:
  // Streams bytes [from, accepted) of r (from > 0: the receiver read the rest itself).
  // `code`: whether the stream may be coded, -1 = decide here.
  explicit DataStream(Request* r, uint64_t from = 0, int code = -1)
      : req_(r), offset_(from), end_(r->accepted) {
    if (code < 0)
      code = codecPath(r->peer) && compress_channel::eligible(r->dt, r->accepted, &type_) &&
             compress_channel::codeStream(r->peer, r->accepted);
    eligible_ = code > 0;
    if (eligible_) compress_channel::eligible(r->dt, r->accepted, &type_);
    next();
  }
  // One stripe of a striped send: bytes [from, to) of a contiguous buffer, never coded.
  DataStream(Request* r, uint64_t from, uint64_t to) : req_(r), offset_(from), end_(to) {
    striped_ = true;
    next();
  }
  bool isStream() const override { return true; }
  bool refill() override {
    if (offset_ >= end_) return false;
    next();
    return true;
  }
  void written() override {
    if (striped_)
      stripePartDone(req_);
    else if (req_->splitWait)
      splitPartDone(req_);
    else
      completeRequest(req_);
    delete this;
  }
  void prepare() override {
    const size_t len = compress_channel::encode(req_->peer, src_, srcLen_, type_, &coded_);
    head_.flags |= transport::kFlagCompressed;
    head_.payloadLen = len;
    setFrame(head_, coded_.data(), len);
  }

 private:
  void next() {
    const bool code = eligible_ && compress_channel::decide(req_->peer);
    // Contiguous data goes in frames of CCMPI_RNDV_FRAME (64 KiB) on a network, so a
    // clear-to-send queued behind a transfer waits at most one frame; within a host larger
    // frames cost fewer system calls (osu_allgather 1 MiB, 4 ranks on 2 cores: 2.4-2.8 ms
    // with 64 KiB frames, 1.7-1.8 ms with 256 KiB).
    // A paced connection (transport::pacingRate) takes frames of about a millisecond of
    // its rate (16 KiB at 100 Mbit/s), unless CCMPI_RNDV_FRAME says otherwise: the
    // clear-to-send behind a frame then waits that long at most.
    const uint64_t frame =
        sameHost(req_->peer) ? std::max(kFrame.get(), kFrameLocal.get()) : remoteFrame();
    const uint64_t chunk =
        code ? compress_channel::chunkBytes()
             : std::max<uint64_t>(req_->dt->contiguous() ? frame : kChunk.get(), 4096);
    const uint64_t len = std::min<uint64_t>(chunk, end_ - offset_);
    transport::FrameHeader h;
    h.type = transport::FrameType::kData;
    if (striped_) h.flags = transport::kFlagStriped;
    h.src = g.me;
    h.context = req_->context;
    h.tag = req_->tag;
    h.msgSize = req_->accepted;
    h.payloadLen = len;
    h.offset = offset_;
    h.b = req_->remoteId;
    const unsigned char* src;
    if (req_->dt->contiguous()) {
      src = static_cast<const unsigned char*>(req_->buf) + req_->dt->trueLb() + offset_;
    } else {
      if (req_->staging.size() < len) req_->staging.resize(len);
      req_->dt->pack(req_->buf, req_->count, offset_, req_->staging.data(), len);
      src = req_->staging.data();
    }
    if (code) {
      head_ = h;
      src_ = src;
      srcLen_ = len;
      unprepared = true;
    } else {
      setFrame(h, src, len);
    }
    offset_ += len;
  }
  Request* req_;
  uint64_t offset_ = 0;
  uint64_t end_ = 0;
  bool striped_ = false;
  bool eligible_ = false;
  compress::DataType type_ = compress::DataType::kFloat64;
  // The chunk to code in prepare().
  transport::FrameHeader head_;
  const unsigned char* src_ = nullptr;
  size_t srcLen_ = 0;
  std::vector<unsigned char> coded_;
};

void sendControl(int peer, const transport::FrameHeader& h) {
  auto* f = new MsgFrame;
  f->setFrame(h);
  // A clear-to-send or a stripe acknowledgement need not wait for the eager messages
  // queued to the peer before it (a pipeline's segments: the peer's next transfer to us
  // would wait for all of them); matching orders neither.
  f->urgent = h.type == transport::FrameType::kCts || h.type == transport::FrameType::kStripeAck;
  route(peer, f);
}

// ---------- delivery into receives ----------

void finishRecv(Request* r, int srcWorld, int tag, uint64_t msgSize, uint64_t stored) {
  r->srcWorld = srcWorld;
  r->srcTag = tag;
  r->msgSize = msgSize;
  r->received = stored;
  if (msgSize > r->bytes && r->error == MPI_SUCCESS) {
    r->error = setErrorCause(MPI_ERR_TRUNCATE,
                             "message of %llu bytes from rank %d (tag %d) truncated to the "
                             "receive buffer's %llu bytes",
                             static_cast<unsigned long long>(msgSize),
                             r->comm ? r->comm->peerRankOfWorld(srcWorld) : srcWorld, tag,
                             static_cast<unsigned long long>(r->bytes));
  }
  unregisterId(r);
  completeRequest(r);
}

void storeBytes(Request* r, uint64_t offset, const unsigned char* data, uint64_t len) {
  if (offset >= r->bytes) return;
  len = std::min<uint64_t>(len, r->bytes - offset);
  if (len == 0) return;
  if (r->dt->contiguous())
    memcpy(contiguousBase(r) + offset, data, len);
  else
    r->dt->unpack(r->buf, r->count, offset, data, len);
}

// A receive matched a message whose data is all in `data`.
void deliverData(Request* r, int srcWorld, int tag, const unsigned char* data, uint64_t size) {
  storeBytes(r, 0, data, size);
  finishRecv(r, srcWorld, tag, size, std::min(size, r->bytes));
}

// Reads the first `len` bytes of a message from the sender's buffer at `addr` into the
// receive; 0 or an errno value.
int pullCma(Request* r, int pid, uint64_t addr, uint64_t len) {
  if (r->dt->contiguous()) return transport::cma::read(pid, addr, contiguousBase(r), len);
  const uint64_t chunk = std::max<uint64_t>(kChunk.get(), 4096);
  if (r->staging.size() < std::min(chunk, len)) r->staging.resize(std::min(chunk, len));
  for (uint64_t off = 0; off < len; off += chunk) {
    const uint64_t n = std::min(chunk, len - off);
    if (int err = transport::cma::read(pid, addr + off, r->staging.data(), n)) return err;
    r->dt->unpack(r->buf, r->count, off, r->staging.data(), n);
  }
  return 0;
}

// A large single-copy transfer between ranks that each have a core: split it.
bool splitEligible(const Request* r, int srcWorld, uint64_t accept) {
  const uint64_t min = transport::cma::splitBytes();
  return min > 0 && accept >= min && accept >= 2 * 4096 && viaShm(srcWorld) &&
         r->dt->contiguous() && !progress::engine().crowded();
}

// Split single-copy transfer: the receiver asks the sender (a CTS flagged kFlagCmaSplit,
// the receive buffer's address of the second half as payload) to write the second half
// into the receive buffer, and reads the first half itself meanwhile; two cores copy
// instead of one. The sender answers kCmaDone, or streams the second half as DATA frames
// when it may not write here. The request completes when both halves are in.
void startSplit(Request* r, int srcWorld, uint64_t sreq, int pid, uint64_t cmaAddr,
                uint64_t accept) {
  const uint64_t at = (accept / 2) & ~uint64_t{4095};
  r->phase = Request::Phase::kStreaming;
  r->accepted = accept;
  r->arrived = 0;
  registerId(r);
  auto* f = new MsgFrame;
  f->owned.resize(sizeof(uint64_t));
  const uint64_t dest = reinterpret_cast<uintptr_t>(contiguousBase(r) + at);
  memcpy(f->owned.data(), &dest, sizeof dest);
  transport::FrameHeader h;
  h.type = transport::FrameType::kCts;
  h.flags = transport::kFlagCmaSplit;
  h.src = g.me;
  h.a = sreq;
  h.b = r->id;
  h.msgSize = accept;
  h.offset = at;
  h.payloadLen = sizeof dest;
  f->setFrame(h, f->owned.data(), sizeof dest);
  route(srcWorld, f);
  const int err = pullCma(r, pid, cmaAddr, at);
  if (err != 0 && r->error == MPI_SUCCESS)
    r->error =
        setErrorCause(MPI_ERR_OTHER,
                      "single-copy read of %llu bytes from rank %d failed (%s): the "
                      "message is incomplete",
                      static_cast<unsigned long long>(at),
                      r->comm ? r->comm->peerRankOfWorld(srcWorld) : srcWorld, strerror(err));
  ++g.counters.cmaSplit;
  ++g.counters.cmaPulled;
  r->arrived = at;  // the second half follows (kCmaDone or DATA frames from `at`)
  // The sender's buffer may be reused from now on.
  transport::FrameHeader d;
  d.type = transport::FrameType::kCmaDone;
  d.src = g.me;
  d.a = sreq;
  d.msgSize = at;
  sendControl(srcWorld, d);
}

// One part of a split send is copied (ours, or the receiver's read of its part): the send
// completes when both are, since the receiver reads from our buffer until it says so.
void splitPartDone(Request* s) {
  if (s->splitWait > 0 && --s->splitWait > 0) return;
  unregisterId(s);
  completeRequest(s);
}

// The sender's part of a split transfer (see startSplit).
void splitSend(int peer, const transport::FrameHeader& h, Request* s) {
  const uint64_t len = s->accepted - h.offset;
  const unsigned char* src = static_cast<const unsigned char*>(s->buf) + s->dt->trueLb() + h.offset;
  s->phase = Request::Phase::kStreaming;
  s->splitWait = 2;
  s->id = s->wireId;  // the receiver's kCmaDone names it
  g.byId[s->id] = s;
  if (const int pid = cmaPidOf(peer)) {
    const int err = transport::cma::write(pid, s->splitAddr, src, len);
    if (err == 0) {
      transport::FrameHeader d;
      d.type = transport::FrameType::kCmaDone;
      d.src = g.me;
      d.b = s->remoteId;
      d.offset = h.offset;
      d.msgSize = len;
      sendControl(peer, d);
      splitPartDone(s);
      return;
    }
    log::warn(
        "single-copy write of %llu bytes to rank %d failed (%s); its messages stream "
        "from now on",
        static_cast<unsigned long long>(len), peer, strerror(err));
    disableCmaOf(peer);
  }
  route(peer, new DataStream(s, h.offset));
}

// A receive matched a rendezvous message from a remote peer: read the data in place when
// the sender offered it (cmaAddr != 0) and we may, otherwise ask for it.
void acceptRts(Request* r, int srcWorld, int tag, uint64_t size, uint64_t sreq, uint64_t cmaAddr,
               bool railDirected) {
  r->srcWorld = srcWorld;
  r->srcTag = tag;
  r->msgSize = size;
  const uint64_t accept = std::min(size, r->bytes);
  if (cmaAddr != 0 && accept > 0) {
    if (const int pid = cmaPidOf(srcWorld)) {
      if (splitEligible(r, srcWorld, accept)) {
        startSplit(r, srcWorld, sreq, pid, cmaAddr, accept);
        return;
      }
      const int err = pullCma(r, pid, cmaAddr, accept);
      if (err == 0) {
        ++g.counters.cmaPulled;
        transport::FrameHeader h;
        h.type = transport::FrameType::kCts;
        h.flags = transport::kFlagCma;
        h.src = g.me;
        h.a = sreq;
        h.msgSize = accept;
        sendControl(srcWorld, h);
        finishRecv(r, srcWorld, tag, size, accept);
        return;
      }
      log::warn(
          "single-copy read of %llu bytes from rank %d failed (%s); its messages stream "
          "over TCP from now on",
          static_cast<unsigned long long>(accept), srcWorld, strerror(err));
      disableCmaOf(srcWorld);
    }
  }
  if (accept == 0) {
    // Nothing to move: the CTS alone completes the sender.
    transport::FrameHeader h;
    h.type = transport::FrameType::kCts;
    h.src = g.me;
    h.a = sreq;
    h.b = 0;
    h.msgSize = 0;
    sendControl(srcWorld, h);
    finishRecv(r, srcWorld, tag, size, 0);
    return;
  }
  r->phase = Request::Phase::kStreaming;
  r->arrived = 0;
  r->accepted = accept;
  registerId(r);
  transport::FrameHeader h;
  h.type = transport::FrameType::kCts;
  h.src = g.me;
  h.a = sreq;
  h.b = r->id;
  h.msgSize = accept;
  // The data may come over several rails, in any order, when it goes straight into place.
  if (kStripe.get() && r->dt->contiguous() && (accept >= kStripeMin.get() || railDirected) &&
      !sameHost(srcWorld)) {
    h.flags = transport::kFlagStriped;
    r->stripeOk = true;
    r->stripeSender = sreq;
    r->stripeGot.clear();
  }
  sendControl(srcWorld, h);
}

// Records [lo, hi) of a striped receive as arrived; returns the bytes now covered.
uint64_t stripeArrived(Request* r, uint64_t lo, uint64_t hi) {
  auto& v = r->stripeGot;
  auto it = std::lower_bound(v.begin(), v.end(), std::make_pair(lo, hi));
  it = v.insert(it, {lo, hi});
  // Merge with the neighbours (ranges on one rail arrive in order, so few stay apart).
  std::vector<std::pair<uint64_t, uint64_t>> merged;
  merged.reserve(v.size());
  for (const auto& x : v) {
    if (!merged.empty() && x.first <= merged.back().second)
      merged.back().second = std::max(merged.back().second, x.second);
    else
      merged.push_back(x);
  }
  v.swap(merged);
  uint64_t n = 0;
  for (const auto& x : v) n += x.second - x.first;
  return n;
}

// Whether rail (> 0) joins this rank and peer and is up.
bool railJoins(int peer, int rail) {
  if (!g.tcp) return false;
  for (int r : g.tcp->railsTo(peer))
    if (r == rail) return g.tcp->railUp(peer, r);
  return false;
}

// For a send's start: railJoins, or not known yet. Before the first connection to peer
// is open its rails are undecided (railsTo says rail 0 alone); a rail-directed send then
// goes by rendezvous all the same, and its CTS, which comes over the open connection,
// decides (startStriped). Otherwise the first messages to a peer, a broadcast root's
// whole first two-tree broadcast for instance, would all take rail 0.
bool railMayJoin(int peer, int rail) {
  if (!g.tcp) return false;
  g.tcp->railsTo(peer);  // decides, once the connection is open
  if (!g.tcp->railsDecided(peer)) return static_cast<size_t>(rail) < g.tcp->rails().size();
  return railJoins(peer, rail);
}

// Whether s (contiguous, its CTS just in, allowing stripes) goes over several rails to
// peer: then the stripes are sent, one per rail, in proportion to the rails' rates.
// A rail-directed send (isendOnRail) goes whole on its rail while that rail is up.
bool startStriped(Request* s, int peer) {
  if (!kStripe.get() || !g.tcp || viaShm(peer) || sameHost(peer) || !s->dt->contiguous())
    return false;
  std::vector<int> rails;
  if (s->rail == 0) return false;  // kept on rail 0 (isendOnRail)
  if (s->rail > 0) {
    if (!railJoins(peer, s->rail)) return false;
    rails.push_back(s->rail);
  } else {
    if (s->accepted < kStripeMin.get()) return false;
    for (int r : g.tcp->railsTo(peer))
      if (g.tcp->railUp(peer, r)) rails.push_back(r);
    if (rails.size() < 2) return false;
  }
  std::vector<double> mbits(rails.size());
  for (size_t i = 0; i < rails.size(); ++i) mbits[i] = g.tcp->railMbits(peer, rails[i]);
  s->stripes.clear();
  for (const transport::StripeCut& c : transport::stripeCuts(s->accepted, mbits))
    s->stripes.push_back({c.lo, c.hi, rails[c.rail]});
  s->stripeParts = static_cast<uint16_t>(s->stripes.size());
  s->stripeAcked = false;
  s->phase = Request::Phase::kStreaming;
  ++g.counters.striped;
  // Copied: a part may finish (and the vector be touched) while the next is queued.
  const std::vector<Request::Stripe> parts = s->stripes;
  for (const Request::Stripe& p : parts)
    g.tcp->sendOnRail(peer, p.rail, new DataStream(s, p.lo, p.hi));
  return true;
}

// A send completes once every stripe is written and the receiver has every byte.
void stripeMaybeDone(Request* s) {
  if (s->stripeParts > 0 || !s->stripeAcked) return;
  unregisterId(s);
  completeRequest(s);
}

void stripePartDone(Request* s) {
  if (s->stripeParts > 0) --s->stripeParts;
  stripeMaybeDone(s);
}

// A rail to peer failed: the stripes of unfinished sends that went on it are sent again
// on rail 0 (the receiver keeps what arrived twice once).
void restripe(int peer, int rail) {
  std::vector<Request*> hit;
  for (auto& [id, s] : g.byId)
    if (s->kind == Request::Kind::kSend && s->peer == peer && !s->stripes.empty() &&
        !s->stripeAcked)
      hit.push_back(s);
  for (Request* s : hit) {
    std::vector<Request::Stripe> again;
    for (Request::Stripe& p : s->stripes)
      if (p.rail == rail) {
        p.rail = 0;
        again.push_back(p);
      }
    s->stripeParts = static_cast<uint16_t>(s->stripeParts + again.size());
    g.counters.restriped += again.size();
    for (const Request::Stripe& p : again)
      g.tcp->sendOnRail(peer, 0, new DataStream(s, p.lo, p.hi));
  }
}

// Self rendezvous: copy straight from the sender's buffer.
void deliverSelf(Request* r, Request* s) {
  const uint64_t n = std::min(s->bytes, r->bytes);
  if (n > 0) {
    if (s->dt->contiguous() && r->dt->contiguous()) {
      memcpy(contiguousBase(r), static_cast<const unsigned char*>(s->buf) + s->dt->trueLb(), n);
    } else {
      std::vector<unsigned char> tmp(std::min<uint64_t>(n, 1 << 20));
      for (uint64_t off = 0; off < n; off += tmp.size()) {
        const uint64_t len = std::min<uint64_t>(tmp.size(), n - off);
        s->dt->pack(s->buf, s->count, off, tmp.data(), len);
        storeBytes(r, off, tmp.data(), len);
      }
    }
  }
  finishRecv(r, g.me, s->tag, s->bytes, n);
  completeRequest(s);
}

void deliverUnexpected(Request* r, Unexpected* u) {
  if (u->partial) {
    // Parts still to come: r is served when the last one arrives (Sink::partStored).
    u->waiter = r;
    return;
  }
  if (u->error && r->error == MPI_SUCCESS) r->error = u->error;
  if (u->selfSender) {
    deliverSelf(r, u->selfSender);
  } else if (u->rts) {
    acceptRts(r, u->srcWorld, u->tag, u->size, u->sreq, u->cmaAddr, u->railDirected);
  } else {
    deliverData(r, u->srcWorld, u->tag, u->data.data(), u->size);
  }
  freeUnexpected(u);
}

Request* matchPosted(uint32_t context, int srcWorld, int tag) {
  auto& posted = queuesOf(context).posted;
  for (Request* r = posted.head; r; r = r->qNext) {
    if (srcMatches(r->peer, srcWorld) && tagMatches(r->tag, tag)) {
      posted.erase(r);
      return r;
    }
  }
  return nullptr;
}

// An unexpected-queue entry for the message whose frame header is h.
Unexpected* unexpectedOf(int peer, const transport::FrameHeader& h) {
  auto* u = newUnexpected();
  u->srcWorld = peer;
  u->tag = h.tag;
  u->context = h.context;
  u->size = h.msgSize;
  u->sreq = h.a;
  return u;
}

void addUnexpected(Unexpected* u) {
  ++g.counters.unexpected;
  queuesOf(u->context).unexpected.push(u);
}

// ---------- cancelling sends ----------
//
// MPI_Cancel of a send succeeds while its message is unmatched at the receiver: the
// sender asks the receiver (kCancelReq naming the message's wire id) to take the message
// out of its unexpected queue and answers with the outcome (kCancelAck). An eager send
// completed locally is reopened until the answer arrives, so MPI_Wait reports it; a
// rendezvous send still waiting for its CTS gets either the CTS or a positive answer.
// Messages to oneself are looked up directly.

// Removes the unmatched message `wireId` of srcWorld from the unexpected queue of
// `context`; true if it was there. A self rendezvous sender found there is cancelled too.
bool takeUnexpected(uint32_t context, int srcWorld, uint64_t wireId) {
  if (wireId == 0) return false;
  auto& uq = queuesOf(context).unexpected;
  for (Unexpected* u = uq.head; u; u = u->qNext) {
    if (u->srcWorld != srcWorld || u->sreq != wireId) continue;
    // Arriving in parts: it stays (the send stands, as if matched).
    if (u->partial) return false;
    uq.erase(u);
    if (Request* s = u->selfSender) {
      s->cancelled = true;
      completeRequest(s);
    }
    freeUnexpected(u);
    return true;
  }
  return false;
}

// The receiver took the message out: the send completes as cancelled. A buffered send's
// copy still waiting for its CTS (registered under the message's wire id) goes too.
void finishCancelled(Request* s) {
  unregisterId(s);
  auto inner = g.byId.find(s->wireId);
  if (inner != g.byId.end() && inner->second != s) {
    Request* copy = inner->second;
    unregisterId(copy);
    copy->cancelled = true;
    completeRequest(copy);
  }
  s->cancelled = true;
  s->complete = false;
  completeRequest(s);
}

int cancelSend(Request* s) {
  if (s->cancelled || s->cancelPending || s->peer == MPI_PROC_NULL || s->wireId == 0) return 0;
  // A rendezvous transfer under way (or done) has been matched.
  if (s->phase == Request::Phase::kStreaming) return 0;
  if (s->phase == Request::Phase::kDone && s->id != 0) return 0;
  if (s->peer == g.me) {
    if (takeUnexpected(s->context, g.me, s->wireId)) {
      s->cancelled = true;
      s->complete = false;
      completeRequest(s);
    }
    return 0;
  }
  if (s->id == 0) {
    // Eager or buffered: a ticket for the answer; the request waits for it.
    registerId(s);
    s->complete = false;
    s->phase = Request::Phase::kPosted;
  }
  s->cancelPending = true;
  transport::FrameHeader h;
  h.type = transport::FrameType::kCancelReq;
  h.src = g.me;
  h.context = s->context;
  h.a = s->wireId;
  h.b = s->id;
  sendControl(s->peer, h);
  return 0;
}

// ---------- exchanges: a stream held for the peer's request ----------
//
// Two ranks that exchange large messages (a halo exchange: MPI_Irecv, MPI_Isend, wait)
// each send a request to send; the later one, finding the earlier one's request already
// in, answers it with a clear-to-send and then sends its own request. The earlier one
// reads that clear-to-send first and starts streaming its data to the peer at once, and
// its clear-to-send for the peer's request, arriving a frame later, queues behind that
// data on the connection (ccmpi's frame, the socket's unsent bytes, what is in flight):
// the peer's data starts that much later, and the exchange of 256 KiB at 12.5 Mbit/s took
// 1.34x one way. So a stream to a peer of this host's TCP connections for which a matching
// receive is posted waits briefly before it starts: the peer's request, if it comes, is
// answered first, and the stream starts when it has been (or when the wait is over).

Tunable<double> kExchangeWaitUs(
    "CCMPI_EXCHANGE_WAIT_US", -1,
    "microseconds a rendezvous transfer to a rank on another host waits, once cleared to "
    "send, for that rank's own request to send when a receive from it is posted (an "
    "exchange: its clear-to-send then goes before this data); 0 = never; -1 = auto (two "
    "control frames on the link plus 50 us). Only transfers that take 20 times the wait; "
    "set, also between ranks of one host that talk TCP (CCMPI_SHM=0, islands)");

double exchangeWaitUs() {
  static const double us = [] {
    const double set = kExchangeWaitUs.get();
    if (set >= 0) return set;
    // A control frame on the wire: ccmpi's header, Ethernet/IP/TCP headers with
    // timestamps (66 bytes) and the preamble, FCS and inter-frame gap (24).
    const double frameBits = (transport::kHeaderBytes + 66 + 24) * 8.0;
    return 2 * frameBits / std::max(1.0, linkMbits()) + 50;
  }();
  return us;
}

struct HeldStream {
  Request* s;
  int peer;
  bool striped;
  bool code;
  int64_t untilNs;
};
std::vector<HeldStream> gHeld;

// Starts the data of a send its receiver has cleared (striped over the rails, or one stream).
void startData(Request* s, int peer, bool striped, bool code) {
  if (striped) {
    if (!code && startStriped(s, peer)) return;
    unregisterId(s);
  }
  s->phase = Request::Phase::kStreaming;
  route(peer, striped ? new DataStream(s, 0, code ? 1 : 0) : new DataStream(s));
}

// Whether the data of send s, cleared by `peer`, waits for the peer's own request.
bool holdForExchange(Request* s, int peer, bool striped, bool code) {
  const double waitUs = exchangeWaitUs();
  // Within a host (TCP between islands, CCMPI_SHM=0) only when the wait is set: a
  // connection there has no cable to queue on.
  if (waitUs <= 0 || !g.tcp || viaShm(peer) || (sameHost(peer) && !kExchangeWaitUs.fromEnv()))
    return false;
  const double transferUs =
      static_cast<double>(s->accepted) / tcpPayloadBytesPerSecond(linkMbits()) * 1e6;
  if (transferUs < 20 * waitUs) return false;
  bool receiving = false;
  for (Request* r = queuesOf(s->context).posted.head; r && !receiving; r = r->qNext)
    receiving = srcMatches(r->peer, peer);
  if (!receiving) return false;
  const int64_t until = progress::Engine::nowNs() + static_cast<int64_t>(waitUs * 1e3);
  gHeld.push_back({s, peer, striped, code, until});
  ++g.counters.exchangeHeld;
  progress::engine().wakeBy(until);
  return true;
}

// The held streams to `peer` (its request has come and been answered), or all whose wait
// is over (peer < 0). True if one started.
bool releaseHeld(int peer) {
  if (gHeld.empty()) return false;
  const int64_t now = peer < 0 ? progress::Engine::nowNs() : 0;
  std::vector<HeldStream> go;
  int64_t next = 0;
  size_t kept = 0;
  for (const HeldStream& h : gHeld) {
    if (peer >= 0 ? h.peer == peer : h.untilNs <= now) {
      go.push_back(h);
    } else {
      gHeld[kept++] = h;
      if (next == 0 || h.untilNs < next) next = h.untilNs;
    }
  }
  gHeld.resize(kept);
  if (peer >= 0) g.counters.exchangeFreed += go.size();
  if (next) progress::engine().wakeBy(next);
  for (const HeldStream& h : go) startData(h.s, h.peer, h.striped, h.code);
  return !go.empty();
}

// The progress engine's hook: streams whose wait is over (and the wake-up for the next).
bool releaseHeldDue() {
  return releaseHeld(-1);
}

// ---------- the transport sink ----------

class Sink final : public transport::Sink {
 public:
  int onFrame(int peer, const transport::FrameHeader& h, transport::PayloadTarget* t) override {
    using transport::FrameType;
    switch (h.type) {
      case FrameType::kEager: {
        releaseHeld(peer);  // the peer's message came whole: nothing to answer first
        Request* r = matchPosted(h.context, peer, h.tag);
        if (h.payloadLen == 0) {
          if (r) {
            finishRecv(r, peer, h.tag, 0, 0);
          } else {
            addUnexpected(unexpectedOf(peer, h));
          }
          return 0;
        }
        if (h.flags & transport::kFlagCompressed) {
          // Coded: received into the peer's buffer, decoded in onPayload.
          if (h.payloadLen > compress_channel::maxCoded(h.msgSize))
            return setErrorCause(MPI_ERR_INTERN, "compressed eager frame longer than its bound");
          auto& coded = g.rxCoded[static_cast<size_t>(peer)];
          if (coded.size() < h.payloadLen) coded.resize(h.payloadLen);
          t->dest = coded.data();
          t->keep = h.payloadLen;
          t->cookie = r;
          t->mode = kTargetCoded;
          return 0;
        }
        if (h.flags & transport::kFlagMore) return firstPart(peer, h, r, t);
        if (r && r->dt->contiguous()) {
          // Matched: the payload goes straight into the receive buffer.
          t->dest = contiguousBase(r);
          t->keep = std::min<uint64_t>(h.payloadLen, r->bytes);
          t->cookie = r;
          return 0;
        }
        // Unmatched (or a non-contiguous receive): stage the payload, then deliver.
        auto* u = unexpectedOf(peer, h);
        u->data.resize(h.payloadLen);
        // The staging state travels with the payload target: payloads of several
        // connections may be arriving at the same time.
        t->dest = u->data.data();
        t->keep = h.payloadLen;
        t->cookie = u;
        t->cookie2 = r;
        t->mode = kTargetStaged;
        return 0;
      }
      case FrameType::kEagerMore:
        return nextPart(peer, h, t);
      case FrameType::kRts: {
        Request* r = matchPosted(h.context, peer, h.tag);
        const uint64_t cmaAddr = (h.flags & transport::kFlagCma) ? h.b : 0;
        const bool railDirected = h.flags & transport::kFlagRail;
        if (r) {
          acceptRts(r, peer, h.tag, h.msgSize, h.a, cmaAddr, railDirected);
        } else {
          auto* u = unexpectedOf(peer, h);
          u->rts = true;
          u->sreq = h.a;
          u->cmaAddr = cmaAddr;
          u->railDirected = railDirected;
          addUnexpected(u);
        }
        releaseHeld(peer);  // its clear-to-send (when matched) is queued: ours may follow
        return 0;
      }
      case FrameType::kCts: {
        auto it = g.byId.find(h.a);
        if (it == g.byId.end()) return setErrorCause(MPI_ERR_INTERN, "CTS for unknown request");
        Request* s = it->second;
        if (s->kind != Request::Kind::kSend || s->phase != Request::Phase::kAwaitCts ||
            s->peer != peer || h.msgSize > s->bytes)
          return setErrorCause(MPI_ERR_INTERN, "CTS does not fit its request");
        s->accepted = h.msgSize;
        s->remoteId = h.b;
        // Striped: s keeps its id until the receiver acknowledges (kStripeAck).
        if ((h.flags & transport::kFlagStriped) && s->accepted > 0) {
          compress::DataType type;
          const bool code = codecPath(peer) &&
                            compress_channel::eligible(s->dt, s->accepted, &type) &&
                            compress_channel::codeStream(peer, s->accepted);
          if (!holdForExchange(s, peer, true, code)) startData(s, peer, true, code);
          return 0;
        }
        unregisterId(s);
        if (h.flags & transport::kFlagCmaSplit) {
          // The address of our part arrives as the payload (splitSend runs then).
          if (!s->dt->contiguous() || h.offset >= s->accepted)
            return setErrorCause(MPI_ERR_INTERN, "split CTS does not fit its request");
          t->dest = reinterpret_cast<unsigned char*>(&s->splitAddr);
          t->keep = sizeof s->splitAddr;
          t->cookie = s;
          t->mode = kTargetSplit;
          return 0;
        }
        if (s->accepted == 0 || (h.flags & transport::kFlagCma)) {
          // Nothing to move, or the receiver has read the bytes itself.
          completeRequest(s);
          return 0;
        }
        if (!holdForExchange(s, peer, false, false)) startData(s, peer, false, false);
        return 0;
      }
      case FrameType::kData: {
        if (h.flags & transport::kFlagStriped) return stripedData(peer, h, t);
        auto it = g.byId.find(h.b);
        if (it == g.byId.end()) return setErrorCause(MPI_ERR_INTERN, "DATA for unknown request");
        Request* r = it->second;
        const bool coded = h.flags & transport::kFlagCompressed;
        const uint64_t room = r->accepted - r->arrived;
        if (r->kind != Request::Kind::kRecv || r->phase != Request::Phase::kStreaming ||
            r->srcWorld != peer || h.offset != r->arrived ||
            h.payloadLen > (coded ? compress_channel::maxCoded(room) : room))
          return setErrorCause(MPI_ERR_INTERN, "DATA does not fit its request");
        t->cookie = r;
        t->keep = h.payloadLen;
        if (coded) {
          auto& buf = g.rxCoded[static_cast<size_t>(peer)];
          if (buf.size() < h.payloadLen) buf.resize(h.payloadLen);
          t->dest = buf.data();
          t->mode = kTargetCoded;
          return 0;
        }
        if (r->dt->contiguous()) {
          t->dest = contiguousBase(r) + h.offset;
        } else {
          if (r->staging.size() < h.payloadLen) r->staging.resize(h.payloadLen);
          t->dest = r->staging.data();
        }
        return 0;
      }
      case FrameType::kCmaDone: {
        if (h.a != 0) {
          // The receiver has read its part of a split send.
          auto it = g.byId.find(h.a);
          if (it == g.byId.end() || it->second->kind != Request::Kind::kSend ||
              it->second->splitWait == 0 || it->second->peer != peer)
            return setErrorCause(MPI_ERR_INTERN, "single-copy completion for no split send");
          splitPartDone(it->second);
          return 0;
        }
        auto it = g.byId.find(h.b);
        if (it == g.byId.end())
          return setErrorCause(MPI_ERR_INTERN, "single-copy completion for unknown request");
        Request* r = it->second;
        if (r->kind != Request::Kind::kRecv || r->phase != Request::Phase::kStreaming ||
            r->srcWorld != peer || h.offset != r->arrived || h.msgSize != r->accepted - r->arrived)
          return setErrorCause(MPI_ERR_INTERN, "single-copy completion does not fit its request");
        r->arrived = r->accepted;
        finishRecv(r, peer, r->srcTag, r->msgSize, r->accepted);
        return 0;
      }
      case FrameType::kCancelReq: {
        transport::FrameHeader ack;
        ack.type = transport::FrameType::kCancelAck;
        ack.src = g.me;
        ack.context = h.context;
        ack.a = takeUnexpected(h.context, peer, h.a) ? 1 : 0;
        ack.b = h.b;
        sendControl(peer, ack);
        return 0;
      }
      case FrameType::kCancelAck: {
        auto it = g.byId.find(h.b);
        // Gone: a CTS came first and the send went ahead (the answer is then "matched").
        if (it == g.byId.end()) return 0;
        Request* s = it->second;
        if (s->kind != Request::Kind::kSend || !s->cancelPending || s->peer != peer)
          return setErrorCause(MPI_ERR_INTERN, "cancel reply does not fit its request");
        s->cancelPending = false;
        if (h.a) {
          finishCancelled(s);
        } else if (s->phase != Request::Phase::kAwaitCts) {
          // The eager message was matched: the send stands, as it had completed.
          unregisterId(s);
          completeRequest(s);
        }
        return 0;
      }
      case FrameType::kAm: {
        t->mode = kTargetAm;
        return amFrame(peer, h, t);
      }
      case FrameType::kStripeAck: {
        auto it = g.byId.find(h.a);
        if (it == g.byId.end() || it->second->kind != Request::Kind::kSend ||
            it->second->peer != peer || it->second->stripes.empty() ||
            h.msgSize != it->second->accepted)
          return setErrorCause(MPI_ERR_INTERN, "stripe acknowledgement for no striped send");
        it->second->stripeAcked = true;
        stripeMaybeDone(it->second);
        return 0;
      }
      case FrameType::kMcastNak:
      case FrameType::kMcastAck:
      case FrameType::kMcastRepair: {
        const int rc = transport::mcast().onTcpFrame(peer, h, t);
        t->mode = kTargetMcast;
        return rc;
      }
      default:
        return setErrorCause(MPI_ERR_INTERN, "unexpected frame type");
    }
  }

  void onPayload(int peer, const transport::FrameHeader& h,
                 const transport::PayloadTarget& t) override {
    using transport::FrameType;
    if (t.mode == kTargetMcast) {
      transport::mcast().onTcpPayload(peer, h, t);
      return;
    }
    if (t.mode == kTargetAm) {
      amPayload(peer, h, t);
      return;
    }
    if (t.mode == kTargetSplit) {
      splitSend(peer, h, static_cast<Request*>(t.cookie));
      return;
    }
    if (t.mode == kTargetPart) {
      partStored(peer, h);
      return;
    }
    if (t.mode == kTargetCoded) {
      if (h.type == FrameType::kEager)
        onCodedEager(peer, h, t);
      else
        onCodedData(peer, h, t);
      return;
    }
    if (h.type == FrameType::kEager) {
      if (t.mode == kTargetStaged)
        onEagerUnexpected(static_cast<Unexpected*>(t.cookie), static_cast<Request*>(t.cookie2));
      else
        finishRecv(static_cast<Request*>(t.cookie), peer, h.tag, h.msgSize, t.keep);
      return;
    }
    if (t.mode == kTargetDiscard) return;
    if (t.mode == kTargetStriped) {
      // Looked up again: a frame read slowly on a rail that then failed may end after its
      // range came again on another rail and the receive completed.
      auto it = g.byId.find(h.b);
      if (it == g.byId.end() || it->second != t.cookie) return;
      Request* r = it->second;
      if (stripeArrived(r, h.offset, h.offset + h.payloadLen) < r->accepted) return;
      r->arrived = r->accepted;
      transport::FrameHeader ack;
      ack.type = FrameType::kStripeAck;
      ack.src = g.me;
      ack.a = r->stripeSender;
      ack.msgSize = r->accepted;
      sendControl(peer, ack);
      r->stripeGot.clear();
      finishRecv(r, peer, r->srcTag, r->msgSize, r->accepted);
      return;
    }
    if (h.type == FrameType::kData) {
      auto* r = static_cast<Request*>(t.cookie);
      if (!r->dt->contiguous()) r->dt->unpack(r->buf, r->count, h.offset, t.dest, h.payloadLen);
      r->arrived += h.payloadLen;
      if (r->arrived == r->accepted) finishRecv(r, peer, r->srcTag, r->msgSize, r->accepted);
    }
  }

  void onRailLost(int peer, int rail) override { restripe(peer, rail); }

  void onPeerLost(int peer, const std::string& why) override {
    // The launcher sees the real failure (the peer's exit or signal) and kills the job;
    // give it a moment so that its report names the root cause, then abort ourselves.
    log::error("lost the connection to rank %d (%s): that process exited or failed", peer,
               why.c_str());
    for (int i = 0; i < 100; ++i) usleep(10000);
    log::fatal("aborting after losing rank %d", peer);
  }

 private:
  // A coded eager message: decoded straight into a matched contiguous receive that holds
  // it, otherwise into an unexpected entry.
  void onCodedEager(int peer, const transport::FrameHeader& h, const transport::PayloadTarget& t) {
    auto* r = static_cast<Request*>(t.cookie);
    size_t got = 0;
    if (r && r->dt->contiguous() && r->bytes >= h.msgSize) {
      int rc = compress_channel::decode(peer, t.dest, t.keep, contiguousBase(r), h.msgSize, &got);
      if (rc == MPI_SUCCESS && got != h.msgSize) rc = lengthMismatch(peer, h.msgSize, got);
      if (rc != MPI_SUCCESS && r->error == MPI_SUCCESS) r->error = rc;
      finishRecv(r, peer, h.tag, h.msgSize, rc == MPI_SUCCESS ? got : 0);
      return;
    }
    auto* u = unexpectedOf(peer, h);
    u->data.resize(h.msgSize);
    int rc = compress_channel::decode(peer, t.dest, t.keep, u->data.data(), h.msgSize, &got);
    if (rc == MPI_SUCCESS && got != h.msgSize) rc = lengthMismatch(peer, h.msgSize, got);
    u->error = rc;
    onEagerUnexpected(u, r);
  }

  // A coded chunk of a rendezvous transfer: decoded in place (contiguous receive) or into
  // the staging buffer and unpacked.
  void onCodedData(int peer, const transport::FrameHeader& h, const transport::PayloadTarget& t) {
    auto* r = static_cast<Request*>(t.cookie);
    const uint64_t room = r->accepted - r->arrived;
    size_t got = 0;
    int rc;
    if (r->dt->contiguous()) {
      rc = compress_channel::decode(peer, t.dest, t.keep, contiguousBase(r) + h.offset, room, &got);
    } else {
      // The codec header tells the chunk's length (checked against the room left).
      compress::FrameHeader fh;
      const size_t cap = compress::parseFrameHeader(t.dest, t.keep, &fh)
                             ? static_cast<size_t>(std::min<uint64_t>(fh.length, room))
                             : 0;
      if (r->staging.size() < cap) r->staging.resize(cap);
      rc = compress_channel::decode(peer, t.dest, t.keep, r->staging.data(), cap, &got);
      if (rc == MPI_SUCCESS) r->dt->unpack(r->buf, r->count, h.offset, r->staging.data(), got);
    }
    if (rc == MPI_SUCCESS && got == 0)
      rc = setErrorCause(MPI_ERR_OTHER, "empty compressed chunk from rank %d", peer);
    if (rc != MPI_SUCCESS) {
      // The channel's decoding state is lost: the request ends with the error, and a
      // further frame of this transfer is refused as unknown (which closes the connection).
      if (r->error == MPI_SUCCESS) r->error = rc;
      finishRecv(r, peer, r->srcTag, r->msgSize, r->arrived);
      return;
    }
    r->arrived += got;
    if (r->arrived == r->accepted) finishRecv(r, peer, r->srcTag, r->msgSize, r->accepted);
  }

  static int lengthMismatch(int peer, uint64_t want, size_t got) {
    return setErrorCause(MPI_ERR_OTHER,
                         "compressed message from rank %d decoded to %zu bytes, not %llu", peer,
                         got, static_cast<unsigned long long>(want));
  }

  void onEagerUnexpected(Unexpected* u, Request* matched) {
    if (matched) {
      deliverUnexpected(matched, u);
      return;
    }
    // A receive may have been posted while the payload was arriving.
    if (Request* r = matchPosted(u->context, u->srcWorld, u->tag)) {
      deliverUnexpected(r, u);
      return;
    }
    addUnexpected(u);
  }
  static constexpr int kTargetStaged = 1;   // payload staged in an Unexpected (cookie)
  static constexpr int kTargetCoded = 2;    // coded payload in g.rxCoded[peer]
  static constexpr int kTargetMcast = 3;    // multicast repair protocol (transport/mcast.h)
  static constexpr int kTargetSplit = 4;    // split CTS: our part's address (cookie: the send)
  static constexpr int kTargetAm = 5;       // an active message's payload (p2p/am.h)
  static constexpr int kTargetStriped = 6;  // a DATA frame of a striped transfer (cookie)
  static constexpr int kTargetDiscard = 7;  // a stripe sent again that is no longer wanted
  static constexpr int kTargetPart = 8;     // a part of an eager message sent in parts

  // The first part of an eager message sent in parts (kFlagMore), matched by r or not: a
  // contiguous receive takes the parts in place; otherwise they gather in an Unexpected
  // entry, queued at once (so messages behind it from the peer match after it) or waiting
  // for r, and a receive that matches it before the last part waits for it.
  int firstPart(int peer, const transport::FrameHeader& h, Request* r,
                transport::PayloadTarget* t) {
    auto& parts = g.eagerParts[static_cast<size_t>(peer)];
    if (findPart(parts, h.a))
      return setErrorCause(MPI_ERR_INTERN, "eager message in parts sent twice");
    State::EagerPart& p = parts.emplace_back();
    p.wireId = h.a;
    p.size = h.msgSize;
    p.tag = h.tag;
    if (r && r->dt->contiguous()) {
      p.r = r;
      t->dest = contiguousBase(r);
      t->keep = std::min<uint64_t>(h.payloadLen, r->bytes);
    } else {
      Unexpected* u = unexpectedOf(peer, h);
      u->data.resize(h.msgSize);
      u->partial = true;
      if (r)
        u->waiter = r;
      else
        addUnexpected(u);
      p.u = u;
      t->dest = u->data.data();
      t->keep = h.payloadLen;
    }
    t->mode = kTargetPart;
    return 0;
  }
  static State::EagerPart* findPart(std::vector<State::EagerPart>& parts, uint64_t wireId) {
    for (State::EagerPart& p : parts)
      if (p.wireId == wireId) return &p;
    return nullptr;
  }
  // A later part (kEagerMore): where its bytes go.
  int nextPart(int peer, const transport::FrameHeader& h, transport::PayloadTarget* t) {
    const State::EagerPart* at = findPart(g.eagerParts[static_cast<size_t>(peer)], h.a);
    if (!at || at->arrived != h.offset || at->size != h.msgSize || at->tag != h.tag)
      return setErrorCause(MPI_ERR_INTERN, "eager part does not fit a message under way");
    const State::EagerPart& p = *at;
    if (p.r) {
      t->dest = contiguousBase(p.r) + h.offset;
      t->keep = h.offset < p.r->bytes ? std::min<uint64_t>(h.payloadLen, p.r->bytes - h.offset) : 0;
    } else {
      t->dest = p.u->data.data() + h.offset;
      t->keep = h.payloadLen;
    }
    t->mode = kTargetPart;
    return 0;
  }
  // A part's bytes are stored; after the last, the message is delivered.
  void partStored(int peer, const transport::FrameHeader& h) {
    auto& parts = g.eagerParts[static_cast<size_t>(peer)];
    State::EagerPart* p = findPart(parts, h.a);
    p->arrived += h.payloadLen;
    if (p->arrived < p->size) return;
    const State::EagerPart done = *p;
    *p = parts.back();
    parts.pop_back();
    if (done.r) {
      finishRecv(done.r, peer, done.tag, done.size, std::min(done.size, done.r->bytes));
      return;
    }
    done.u->partial = false;
    if (Request* w = done.u->waiter) {
      done.u->waiter = nullptr;
      deliverUnexpected(w, done.u);
    }
  }

  // A DATA frame of a striped transfer: any range of the message, on any rail, possibly
  // twice (a rail failed after it wrote the range). Once the receive has completed, a
  // late copy is dropped (request ids are never reused).
  int stripedData(int peer, const transport::FrameHeader& h, transport::PayloadTarget* t) {
    auto it = g.byId.find(h.b);
    if (it == g.byId.end()) {
      if (h.b == 0 || h.b >= g.nextId)
        return setErrorCause(MPI_ERR_INTERN, "striped DATA for a request never made");
      t->mode = kTargetDiscard;
      t->keep = 0;
      return 0;
    }
    Request* r = it->second;
    if (r->kind != Request::Kind::kRecv || r->phase != Request::Phase::kStreaming ||
        r->srcWorld != peer || !r->stripeOk || h.offset > r->accepted ||
        h.payloadLen > r->accepted - h.offset)
      return setErrorCause(MPI_ERR_INTERN, "striped DATA does not fit its request");
    t->mode = kTargetStriped;
    t->cookie = r;
    t->keep = h.payloadLen;
    t->dest = contiguousBase(r) + h.offset;
    return 0;
  }
};

Sink gSink;

// ---------- sends ----------

// The eager frame of a contiguous message to `peer`, a rank reached through shared
// memory, written into its ring at once; false (nothing written) when a frame is queued
// for it or the ring is full.
bool eagerIntoRing(int peer, uint32_t context, int tag, const void* buf,
                   const datatype::Datatype& dt, uint64_t bytes, uint64_t wireId) {
  if (bytes <= transport::ShmTransport::kSmallBytes) {
    if (!g.shm->trySendSmall(peer, context, tag, wireId,
                             static_cast<const unsigned char*>(buf) + dt.trueLb(), bytes))
      return false;
    ++g.counters.eagerSent;
    return true;
  }
  transport::FrameHeader h;
  h.src = g.me;
  h.context = context;
  h.tag = tag;
  h.msgSize = bytes;
  h.type = transport::FrameType::kEager;
  h.payloadLen = bytes;
  h.a = wireId;
  if (!g.shm->trySendNow(peer, h, static_cast<const unsigned char*>(buf) + dt.trueLb(), bytes))
    return false;
  ++g.counters.eagerSent;
  return true;
}

// Hands the frame (MsgFrame or EagerParts) of s's eager message to the transport. The
// send completes when the frame is written, or at once, with a copy of what the kernel
// has not taken yet (eager messages are small).
template <typename Frame>
void routeEager(Request* s, Frame* f) {
  bool done = false;
  f->req = s;
  f->doneFlag = &done;
  route(s->peer, f);
  if (!done) {
    f->doneFlag = nullptr;
    f->req = nullptr;
    f->ownRemaining();
    completeRequest(s);
  }
}

// Sends the eager message of s (header h) in parts of `part` bytes (EagerParts).
void sendEagerParts(Request* s, const transport::FrameHeader& h, uint64_t part) {
  ++g.counters.eagerParted;
  std::vector<unsigned char> packed;
  const unsigned char* src;
  if (s->dt->contiguous()) {
    src = static_cast<const unsigned char*>(s->buf) + s->dt->trueLb();
  } else {
    packed.resize(s->bytes);
    s->dt->pack(s->buf, s->count, 0, packed.data(), s->bytes);
    src = packed.data();
  }
  auto* f = new EagerParts(h, src, part);
  f->owned = std::move(packed);  // the bytes stay where src points
  routeEager(s, f);
}

int startSend(Request* s) {
  const int dest = s->peer;
  if (dest == MPI_PROC_NULL) {
    completeRequest(s);
    return MPI_SUCCESS;
  }
  const bool sync = s->mode == SendMode::kSynchronous;
  // Every message gets an id unique among this process's messages (a buffered send's copy
  // has it assigned with its user request): a cancel request names the message by it.
  if (!s->wireId) s->wireId = g.nextId++;
  if (dest == g.me) {
    ++g.counters.selfSent;
    Request* r = matchPosted(s->context, g.me, s->tag);
    if (r) {
      deliverSelf(r, s);
      return MPI_SUCCESS;
    }
    auto* u = newUnexpected();
    u->srcWorld = g.me;
    u->tag = s->tag;
    u->context = s->context;
    u->size = s->bytes;
    u->sreq = s->wireId;
    if (!sync && s->bytes <= kEagerLimit.get()) {
      u->data.resize(s->bytes);
      if (s->bytes) s->dt->pack(s->buf, s->count, 0, u->data.data(), s->bytes);
      addUnexpected(u);
      completeRequest(s);
    } else {
      u->selfSender = s;
      addUnexpected(u);
    }
    return MPI_SUCCESS;
  }
  transport::FrameHeader h;
  h.src = g.me;
  h.context = s->context;
  h.tag = s->tag;
  h.msgSize = s->bytes;
  // A rail-directed message large enough to leave rail 0 goes by rendezvous: its data then
  // travels as a stripe on its rail while the envelope keeps its place on rail 0.
  const bool directed = s->rail > 0 && s->bytes >= kRailDirectMin.get() && kStripe.get() &&
                        s->dt->contiguous() && !viaShm(dest) && !sameHost(dest) &&
                        railMayJoin(dest, s->rail);
  if (!directed && s->rail > 0) s->rail = -1;
  if (!sync && !directed && s->bytes <= kEagerLimit.get()) {
    if (viaShm(dest) && (s->dt->contiguous() || s->bytes == 0) &&
        eagerIntoRing(dest, s->context, s->tag, s->buf, *s->dt, s->bytes, s->wireId)) {
      // Written into the peer's ring at once: no frame object, the send is complete.
      completeRequest(s);
      return MPI_SUCCESS;
    }
    ++g.counters.eagerSent;
    h.type = transport::FrameType::kEager;
    h.payloadLen = s->bytes;
    h.a = s->wireId;
    compress::DataType ctype;
    const bool code = codecPath(dest) && compress_channel::eligible(s->dt, s->bytes, &ctype) &&
                      compress_channel::decide(dest);
    if (const uint64_t part = code ? 0 : eagerPart(dest, s->bytes)) {
      sendEagerParts(s, h, part);
      return MPI_SUCCESS;
    }
    auto* f = new MsgFrame;
    const unsigned char* src;
    if (s->dt->contiguous() || s->bytes == 0) {
      src = static_cast<const unsigned char*>(s->buf) + s->dt->trueLb();
    } else {
      f->owned.resize(s->bytes);
      s->dt->pack(s->buf, s->count, 0, f->owned.data(), s->bytes);
      src = f->owned.data();
    }
    if (code)
      f->setCoded(h, dest, ctype, src, s->bytes);
    else
      f->setFrame(h, src, s->bytes);
    routeEager(s, f);
    return MPI_SUCCESS;
  }
  ++g.counters.rndvSent;
  h.type = transport::FrameType::kRts;
  if (sync) h.flags = transport::kFlagSync;
  if (directed) {
    h.flags |= transport::kFlagRail;
    ++g.counters.railDirected;
  }
  compress::DataType ctype;
  // A zero-byte message (its buffer may be NULL) has nothing to read in place.
  if (s->bytes > 0 && s->dt->contiguous() && s->bytes >= transport::cma::minBytes() &&
      transport::cma::enabled() && sameHost(dest) &&
      !(codecPath(dest) && compress_channel::mode() == compress_channel::Mode::kOn &&
        compress_channel::eligible(s->dt, s->bytes, &ctype))) {
    // The receiver may read it in place (the buffer stays untouched until the CTS). Not
    // offered when the user forced compression (CCMPI_COMPRESS=on) for this message.
    h.flags |= transport::kFlagCma;
    h.b = reinterpret_cast<uintptr_t>(static_cast<const unsigned char*>(s->buf) + s->dt->trueLb());
  }
  s->phase = Request::Phase::kAwaitCts;
  s->id = s->wireId;
  g.byId[s->id] = s;
  h.a = s->id;
  sendControl(dest, h);
  return MPI_SUCCESS;
}

int checkedDatatype(MPI_Datatype type, datatype::Datatype** out) {
  // MPI_DATATYPE_NULL reaches here only for empty messages (the API layer allows it with
  // count 0 alone): zero bytes.
  datatype::Datatype* dt = datatype::lookup(type == MPI_DATATYPE_NULL ? MPI_BYTE : type);
  if (!dt) return setErrorCause(MPI_ERR_TYPE, "invalid datatype handle");
  *out = dt;
  return MPI_SUCCESS;
}

}  // namespace

// ---------- requests ----------

// Released requests keep their memory for the next one (kSpares).
std::vector<void*> gSpareRequests;

Request* newRequest(Request::Kind kind) {
  Request* r;
  if (!gSpareRequests.empty()) {
    r = new (gSpareRequests.back()) Request;
    gSpareRequests.pop_back();
  } else {
    r = new Request;
  }
  r->kind = kind;
  ++g.liveRequests;
  return r;
}

void releaseRequest(Request* r) {
  if (!r) return;
  unregisterId(r);
  if (r->type != MPI_DATATYPE_NULL && r->dt && !r->dt->predefined()) datatype::release(r->type);
  if (r->comm) {
    --r->comm->refs;
    if (r->idleRef) --r->comm->idleRefs;
  }
  --g.liveRequests;
  if (gSpareRequests.size() < kSpares) {
    if (gSpareRequests.capacity() == 0) gSpareRequests.reserve(kSpares);
    r->~Request();
    gSpareRequests.push_back(r);
    return;
  }
  delete r;
}

void markIdle(Request* r) {
  if (r->idleRef || !r->comm) return;
  r->idleRef = true;
  ++r->comm->idleRefs;
}

void completeRequest(Request* r) {
  if (r->complete) return;
  r->complete = true;
  r->phase = Request::Phase::kDone;
  markIdle(r);
  if (r->onComplete) {
    auto fn = std::move(r->onComplete);
    r->onComplete = nullptr;
    fn(r);
  }
  if (r->freeOnComplete) releaseRequest(r);
}

void setEmptyStatus(MPI_Status* st) {
  if (st == MPI_STATUS_IGNORE) return;
  st->MPI_SOURCE = MPI_ANY_SOURCE;
  st->MPI_TAG = MPI_ANY_TAG;
  st->MPI_ERROR = MPI_SUCCESS;
  st->ccmpi_cancelled = 0;
  st->ccmpi_count = 0;
}

void fillStatus(const Request* r, MPI_Status* st) {
  if (st == MPI_STATUS_IGNORE) return;
  if (r->kind == Request::Kind::kRecv) {
    if (r->srcWorld == MPI_PROC_NULL) {
      st->MPI_SOURCE = MPI_PROC_NULL;
      st->MPI_TAG = MPI_ANY_TAG;
    } else {
      st->MPI_SOURCE = r->comm ? r->comm->peerRankOfWorld(r->srcWorld) : r->srcWorld;
      st->MPI_TAG = r->srcTag;
    }
    st->ccmpi_count = static_cast<long long>(r->received);
  } else {
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
    // kOther: file accesses report the bytes they moved (0 for everything else).
    st->ccmpi_count = r->kind == Request::Kind::kOther ? static_cast<long long>(r->received) : 0;
  }
  st->ccmpi_cancelled = r->cancelled ? 1 : 0;
  // MPI_ERROR is set only by the multiple-completion calls (the standard's rule); the
  // API layer does that.
}

// ---------- public p2p entry points ----------

int isend(const void* buf, int64_t count, MPI_Datatype type, int dest, int tag, comm::Comm& c,
          Ctx ctx, SendMode mode, Request** out) {
  datatype::Datatype* dt = nullptr;
  if (int rc = checkedDatatype(type, &dt)) return rc;
  return isendTyped(buf, count, type, dt, dest, tag, c, ctx, mode, out);
}

namespace {

// A send request for the message (not started).
Request* newSend(const void* buf, int64_t count, MPI_Datatype type, datatype::Datatype* dt,
                 int dest, int tag, comm::Comm& c, Ctx ctx, SendMode mode) {
  Request* s = newRequest(Request::Kind::kSend);
  s->buf = const_cast<void*>(buf);
  s->count = count;
  s->type = type;
  s->dt = dt;
  if (!dt->predefined()) datatype::retain(type);  // predefined types are never freed
  s->bytes = static_cast<uint64_t>(count) * dt->size();
  s->peer = dest == MPI_PROC_NULL ? MPI_PROC_NULL : c.peerWorldRank(dest);
  s->tag = tag;
  s->context = c.contextId + static_cast<uint32_t>(ctx);
  s->comm = &c;
  ++c.refs;
  s->mode = mode;
  return s;
}

}  // namespace

int isendTyped(const void* buf, int64_t count, MPI_Datatype type, datatype::Datatype* dt, int dest,
               int tag, comm::Comm& c, Ctx ctx, SendMode mode, Request** out) {
  Request* s = newSend(buf, count, type, dt, dest, tag, c, ctx, mode);
  *out = s;
  if (mode == SendMode::kBuffered && s->peer != MPI_PROC_NULL) {
    // Copy the message into the attached buffer's budget; the user's request completes
    // at once and the copy travels on its own.
    const int64_t need = static_cast<int64_t>(s->bytes) + kBsendOverhead;
    BsendPool* pool = poolFor(c);
    if (pool->buf == nullptr || pool->used + need > pool->size) {
      releaseRequest(s);
      *out = nullptr;
      return setErrorCause(MPI_ERR_BUFFER,
                           "MPI_Bsend needs %lld bytes of attached buffer (message + "
                           "MPI_BSEND_OVERHEAD) but only %lld of %lld are free",
                           static_cast<long long>(need),
                           static_cast<long long>(pool->size - pool->used),
                           static_cast<long long>(pool->size));
    }
    pool->used += need;
    ++pool->pending;
    Request* inner = newRequest(Request::Kind::kSend);
    inner->staging.resize(s->bytes);
    if (s->bytes) dt->pack(buf, count, 0, inner->staging.data(), s->bytes);
    inner->buf = inner->staging.data();
    // The packed copy travels as bytes, or, when the message is made of one
    // floating-point type (compression may code it), as a contiguous array of it.
    compress::DataType ctype;
    MPI_Datatype carry = MPI_BYTE;
    if (compress_channel::eligible(dt, s->bytes, &ctype)) {
      carry = ctype == compress::DataType::kFloat64 ? MPI_DOUBLE : MPI_FLOAT;
    }
    inner->dt = datatype::lookup(carry);
    inner->type = carry;
    inner->count = static_cast<int64_t>(s->bytes / inner->dt->size());
    if (!inner->dt->predefined()) datatype::retain(carry);
    inner->bytes = s->bytes;
    inner->peer = s->peer;
    inner->tag = tag;
    inner->context = s->context;
    inner->mode = SendMode::kStandard;
    inner->freeOnComplete = true;
    inner->wireId = s->wireId = g.nextId++;
    inner->onComplete = [need, pool](Request*) {
      pool->used -= need;
      --pool->pending;
    };
    completeRequest(s);
    return startSend(inner);
  }
  return startSend(s);
}

uint64_t railDirectMin() {
  return kStripe.get() ? kRailDirectMin.get() : UINT64_MAX;
}

uint64_t stripeMin() {
  return kStripe.get() ? kStripeMin.get() : UINT64_MAX;
}

int isendOnRail(const void* buf, int64_t count, MPI_Datatype type, int dest, int tag, comm::Comm& c,
                Ctx ctx, int rail, Request** out) {
  if (rail < 0) return isend(buf, count, type, dest, tag, c, ctx, SendMode::kStandard, out);
  datatype::Datatype* dt = nullptr;
  if (int rc = checkedDatatype(type, &dt)) return rc;
  Request* s = newSend(buf, count, type, dt, dest, tag, c, ctx, SendMode::kStandard);
  s->rail = static_cast<int8_t>(std::min(rail, 127));
  *out = s;
  return startSend(s);
}

int irecv(void* buf, int64_t count, MPI_Datatype type, int source, int tag, comm::Comm& c, Ctx ctx,
          Request** out) {
  datatype::Datatype* dt = nullptr;
  if (int rc = checkedDatatype(type, &dt)) return rc;
  return irecvTyped(buf, count, type, dt, source, tag, c, ctx, out);
}

int irecvTyped(void* buf, int64_t count, MPI_Datatype type, datatype::Datatype* dt, int source,
               int tag, comm::Comm& c, Ctx ctx, Request** out) {
  Request* r = newRequest(Request::Kind::kRecv);
  r->buf = buf;
  r->count = count;
  r->type = type;
  r->dt = dt;
  if (!dt->predefined()) datatype::retain(type);
  r->bytes = static_cast<uint64_t>(count) * dt->size();
  r->peer =
      (source == MPI_ANY_SOURCE || source == MPI_PROC_NULL) ? source : c.peerWorldRank(source);
  r->tag = tag;
  r->context = c.contextId + static_cast<uint32_t>(ctx);
  r->comm = &c;
  ++c.refs;
  *out = r;
  if (source == MPI_PROC_NULL) {
    r->srcWorld = MPI_PROC_NULL;
    completeRequest(r);
    return MPI_SUCCESS;
  }
  Queues& q = queuesOf(r->context);
  for (Unexpected* u = q.unexpected.head; u; u = u->qNext) {
    if (srcMatches(r->peer, u->srcWorld) && tagMatches(tag, u->tag)) {
      q.unexpected.erase(u);
      deliverUnexpected(r, u);
      return MPI_SUCCESS;
    }
  }
  q.posted.push(r);
  return MPI_SUCCESS;
}

void pollOnce() {
  progress::engine().poll(0);
}

void waitFor(Request* r) {
  if (r->poll) {
    progress::engine().waitUntil([r] {
      if (!r->complete && r->poll) r->poll(r);
      return r->complete;
    });
  } else {
    progress::engine().waitUntil([r] { return r->complete; });
  }
}

int wait(Request* r, MPI_Status* status) {
  waitFor(r);
  fillStatus(r, status);
  const int err = r->error;
  releaseRequest(r);
  return err;
}

int waitAll(int n, Request** reqs, MPI_Status* statuses) {
  int err = MPI_SUCCESS;
  for (int i = 0; i < n; ++i) {
    if (!reqs[i]) continue;
    MPI_Status* st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
    const int rc = wait(reqs[i], st);
    reqs[i] = nullptr;
    if (rc && !err) err = rc;
  }
  return err;
}

bool test(Request* r, MPI_Status* status) {
  if (!r->complete) {
    if (r->poll) r->poll(r);
    pollOnce();
  }
  if (!r->complete) return false;
  fillStatus(r, status);
  releaseRequest(r);
  return true;
}

void requestFree(Request* r) {
  if (r->complete) {
    releaseRequest(r);
  } else {
    r->freeOnComplete = true;
  }
}

bool sendNow(const void* buf, int64_t count, MPI_Datatype type, int dest, int tag, comm::Comm& c,
             Ctx ctx, datatype::Datatype* dt) {
  // startSend's eager branch into a ring, without a request; the caller takes the ordinary
  // way when it returns false, which keeps the order.
  if (!g.shm || dest == MPI_PROC_NULL || count < 0) return false;
  const int peer = c.peerWorldRank(dest);
  if (peer == g.me || !viaShm(peer)) return false;
  if (!dt && checkedDatatype(type, &dt) != MPI_SUCCESS) return false;
  if (!dt->contiguous()) return false;
  const uint64_t bytes = static_cast<uint64_t>(count) * dt->size();
  if (bytes > kEagerLimit.get() || !eagerIntoRing(peer, c.contextId + static_cast<uint32_t>(ctx),
                                                  tag, buf, *dt, bytes, g.nextId))
    return false;
  ++g.nextId;  // the wire id a cancel request would name (a blocking send has none)
  return true;
}

int send(const void* buf, int64_t count, MPI_Datatype type, int dest, int tag, comm::Comm& c,
         Ctx ctx) {
  if (sendNow(buf, count, type, dest, tag, c, ctx)) return MPI_SUCCESS;
  Request* r = nullptr;
  if (int rc = isend(buf, count, type, dest, tag, c, ctx, SendMode::kStandard, &r)) return rc;
  return wait(r, MPI_STATUS_IGNORE);
}

int recv(void* buf, int64_t count, MPI_Datatype type, int source, int tag, comm::Comm& c,
         MPI_Status* status, Ctx ctx) {
  Request* r = nullptr;
  if (int rc = irecv(buf, count, type, source, tag, c, ctx, &r)) return rc;
  return wait(r, status);
}

int sendrecv(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype, int dest, int sendtag,
             void* recvbuf, int64_t recvcount, MPI_Datatype recvtype, int source, int recvtag,
             comm::Comm& c, MPI_Status* status, Ctx ctx) {
  Request* rr = nullptr;
  Request* sr = nullptr;
  // The send first: a large one's request to send then leaves before the receive is
  // posted, so when the peer does the same, each side's clear-to-send for the other's
  // request goes out before its own data (posted the other way round, the later side's
  // request could reach a peer already streaming its data on the same connection, and the
  // clear-to-send would wait behind that data: a 256 KiB exchange at 12.5 Mbit/s took
  // 1.3x a one-way transfer).
  if (int rc = isend(sendbuf, sendcount, sendtype, dest, sendtag, c, ctx, SendMode::kStandard, &sr))
    return rc;
  if (int rc = irecv(recvbuf, recvcount, recvtype, source, recvtag, c, ctx, &rr)) {
    cancel(sr);
    wait(sr, MPI_STATUS_IGNORE);
    return rc;
  }
  const int rcs = wait(sr, MPI_STATUS_IGNORE);
  const int rcr = wait(rr, status);
  return rcr ? rcr : rcs;
}

int start(Request* p) {
  if (p->kind == Request::Kind::kPersistentColl) {
    if (p->active) return setErrorCause(MPI_ERR_REQUEST, "persistent request is already active");
    return p->startHook(p);
  }
  const bool isSend = p->kind == Request::Kind::kPersistentSend;
  if (p->kind != Request::Kind::kPersistentSend && p->kind != Request::Kind::kPersistentRecv)
    return setErrorCause(MPI_ERR_REQUEST, "request is not a persistent request");
  if (p->active) return setErrorCause(MPI_ERR_REQUEST, "persistent request is already active");
  Request* op = nullptr;
  int rc;
  // Persistent requests keep the peer as a rank of their communicator, and a reference on
  // their datatype (the user may have freed its handle since MPI_<Send|Recv>_init).
  if (isSend)
    rc = isendTyped(p->buf, p->count, p->type, p->dt, p->peer, p->tag, *p->comm, Ctx::kPt2pt,
                    p->mode, &op);
  else
    rc = irecvTyped(p->buf, p->count, p->type, p->dt, p->peer, p->tag, *p->comm, Ctx::kPt2pt, &op);
  if (rc) return rc;
  p->active = op;
  p->complete = false;
  return MPI_SUCCESS;
}

bool iprobe(int source, int tag, comm::Comm& c, Ctx ctx, MPI_Status* status, bool remove,
            Unexpected** msg) {
  const uint32_t context = c.contextId + static_cast<uint32_t>(ctx);
  const int src = source == MPI_ANY_SOURCE ? MPI_ANY_SOURCE : c.peerWorldRank(source);
  auto& un = queuesOf(context).unexpected;
  for (Unexpected* u = un.head; u; u = u->qNext) {
    if (srcMatches(src, u->srcWorld) && tagMatches(tag, u->tag)) {
      if (status != MPI_STATUS_IGNORE) {
        status->MPI_SOURCE = c.peerRankOfWorld(u->srcWorld);
        status->MPI_TAG = u->tag;  // MPI_ERROR is left alone (single completion)
        status->ccmpi_cancelled = 0;
        status->ccmpi_count = static_cast<long long>(u->size);
      }
      if (remove) {
        *msg = u;
        un.erase(u);
      }
      return true;
    }
  }
  return false;
}

int mrecv(void* buf, int64_t count, MPI_Datatype type, Unexpected* msg, comm::Comm& c,
          Request** out) {
  datatype::Datatype* dt = nullptr;
  if (int rc = checkedDatatype(type, &dt)) return rc;
  Request* r = newRequest(Request::Kind::kRecv);
  r->buf = buf;
  r->count = count;
  r->type = type;
  r->dt = dt;
  if (!dt->predefined()) datatype::retain(type);
  r->bytes = static_cast<uint64_t>(count) * dt->size();
  r->peer = msg->srcWorld;
  r->tag = msg->tag;
  r->context = msg->context;
  r->comm = &c;
  ++c.refs;
  *out = r;
  deliverUnexpected(r, msg);
  return MPI_SUCCESS;
}

int cancel(Request* r) {
  if (r->complete && r->kind != Request::Kind::kSend) return MPI_SUCCESS;
  if (r->kind == Request::Kind::kRecv && r->phase == Request::Phase::kPosted &&
      queuesOf(r->context).posted.holds(r)) {
    queuesOf(r->context).posted.erase(r);
    r->cancelled = true;
    r->srcWorld = MPI_PROC_NULL;
    completeRequest(r);
  }
  if (r->kind == Request::Kind::kSend) return cancelSend(r);
  return MPI_SUCCESS;
}

int bufferAttach(BufferScope scope, uint64_t key, void* buf, int64_t size) {
  BsendPool* pool = scope == BufferScope::kProcess ? &g.bsend : &(*poolMap(scope))[key];
  if (pool->buf) return setErrorCause(MPI_ERR_BUFFER, "a buffer is already attached");
  if (size < 0)
    return setErrorCause(MPI_ERR_ARG, "negative buffer size %lld", static_cast<long long>(size));
  if (buf == nullptr && buf != MPI_BUFFER_AUTOMATIC && size > 0)
    return setErrorCause(MPI_ERR_BUFFER, "buffer is NULL");
  pool->buf = buf == nullptr ? static_cast<void*>(&g.bsend) : buf;  // NULL of size 0: empty
  pool->size = buf == MPI_BUFFER_AUTOMATIC ? INT64_MAX : size;
  pool->used = 0;
  return MPI_SUCCESS;
}

int bufferDetach(BufferScope scope, uint64_t key, void* bufOut, int64_t* sizeOut) {
  BsendPool* pool = findPool(scope, key);
  if (!pool || !pool->buf) {  // nothing attached: NULL and 0, as before MPI-4.1
    *static_cast<void**>(bufOut) = nullptr;
    *sizeOut = 0;
    return MPI_SUCCESS;
  }
  // Detach blocks until every buffered message has been transmitted.
  progress::engine().waitUntil([pool] { return pool->pending == 0; });
  const bool automatic = pool->buf == MPI_BUFFER_AUTOMATIC;
  *static_cast<void**>(bufOut) = pool->buf == &g.bsend ? nullptr : pool->buf;
  *sizeOut = automatic ? 0 : pool->size;
  pool->buf = nullptr;
  pool->size = 0;
  if (scope != BufferScope::kProcess) poolMap(scope)->erase(key);
  return MPI_SUCCESS;
}

bool bufferIdle(BufferScope scope, uint64_t key) {
  const BsendPool* pool = findPool(scope, key);
  return !pool || pool->pending == 0;
}

int bufferAttach(void* buf, int size) {
  return bufferAttach(BufferScope::kProcess, 0, buf, size);
}

int bufferDetach(void* bufOut, int* sizeOut) {
  int64_t size = 0;
  const int rc = bufferDetach(BufferScope::kProcess, 0, bufOut, &size);
  if (!rc) *sizeOut = size > INT_MAX ? INT_MAX : static_cast<int>(size);
  return rc;
}

size_t liveRequests() {
  return g.liveRequests;
}

// ---------- set-up ----------

transport::Sink* sink() {
  return &gSink;
}

int init(transport::TcpTransport* tcp, transport::ShmTransport* shm, int worldRank, int worldSize) {
  g.tcp = tcp;
  g.shm = shm;
  g.me = worldRank;
  g.worldSize = worldSize;
  g.rxCoded.assign(static_cast<size_t>(worldSize), {});
  g.eagerParts.assign(static_cast<size_t>(worldSize), {});
  progress::engine().addHook(&releaseHeldDue);
  return compress_channel::init(tcp, worldSize);
}

void growPeers(int count) {
  if (g.rxCoded.size() < static_cast<size_t>(count)) g.rxCoded.resize(static_cast<size_t>(count));
  if (g.eagerParts.size() < static_cast<size_t>(count))
    g.eagerParts.resize(static_cast<size_t>(count));
  compress_channel::growPeers(count);
}

void finalize() {
  if (kStats.get()) {
    const Counters& c = g.counters;
    std::fprintf(
        stderr,
        "ccmpi-p2p: rank=%d eager_sent=%llu rndv_sent=%llu self_sent=%llu "
        "unexpected=%llu cma_pulled=%llu tcp_remote=%llu tcp_paced=%llu "
        "pacing_Bps=%llu shm_frames=%llu shm_wakeups=%llu tcp_opened=%llu cma_split=%llu "
        "striped=%llu restriped=%llu rails_opened=%llu rails_lost=%llu shm_light=%d "
        "rail_directed=%llu exchange_held=%llu exchange_freed=%llu eager_parted=%llu\n",
        g.me, static_cast<unsigned long long>(c.eagerSent),
        static_cast<unsigned long long>(c.rndvSent), static_cast<unsigned long long>(c.selfSent),
        static_cast<unsigned long long>(c.unexpected), static_cast<unsigned long long>(c.cmaPulled),
        static_cast<unsigned long long>(g.tcp ? g.tcp->remoteOpened() : 0),
        static_cast<unsigned long long>(g.tcp ? g.tcp->pacedOpened() : 0),
        static_cast<unsigned long long>(transport::pacingRate()),
        static_cast<unsigned long long>(g.shm ? g.shm->framesSent() : 0),
        static_cast<unsigned long long>(g.shm ? g.shm->wakeupsSent() : 0),
        static_cast<unsigned long long>(g.tcp ? g.tcp->connectionsOpened() : 0),
        static_cast<unsigned long long>(c.cmaSplit), static_cast<unsigned long long>(c.striped),
        static_cast<unsigned long long>(c.restriped),
        static_cast<unsigned long long>(g.tcp ? g.tcp->railsOpened() : 0),
        static_cast<unsigned long long>(g.tcp ? g.tcp->railsLost() : 0),
        g.shm && g.shm->lightFences() ? 1 : 0, static_cast<unsigned long long>(c.railDirected),
        static_cast<unsigned long long>(c.exchangeHeld),
        static_cast<unsigned long long>(c.exchangeFreed),
        static_cast<unsigned long long>(c.eagerParted));
  }
  compress_channel::finalize(g.me);
  amShutdown();
  g.rxCoded.clear();
  // Messages still arriving in parts whose entry is in no queue (a receive waits for it,
  // or MPI_Mprobe took it).
  for (auto& parts : g.eagerParts)
    for (const State::EagerPart& p : parts)
      if (p.u && !queuesOf(p.u->context).unexpected.holds(p.u)) delete p.u;
  g.eagerParts.clear();
  for (auto& [ctx, q] : g.queues) {
    while (Unexpected* u = q.unexpected.head) {
      q.unexpected.erase(u);
      delete u;
    }
  }
  g.queues.clear();
  g.lastQueues = nullptr;
  for (Unexpected* u : gSpareUnexpected) delete u;
  gSpareUnexpected.clear();
  g.byId.clear();
}

void sendActiveMessage(int peerWorld, uint32_t context, int handler, uint64_t word,
                       const void* payload, size_t len) {
  transport::FrameHeader h;
  h.type = transport::FrameType::kAm;
  h.src = g.me;
  h.context = context;
  h.tag = handler;
  h.a = word;
  h.msgSize = h.payloadLen = len;
  auto* f = new MsgFrame;
  f->owned.assign(static_cast<const unsigned char*>(payload),
                  static_cast<const unsigned char*>(payload) + len);
  f->setFrame(h, f->owned.data(), len);
  route(peerWorld, f);
}

uint64_t eagerLimit() {
  return kEagerLimit.get();
}
const Counters& counters() {
  return g.counters;
}

}  // namespace ccmpi::p2p
