// One-sided communication (MPI-4.0 chapter 12) over active messages (p2p/am.h).
//
// A window holds a private duplicate of its communicator; the duplicate's context id names
// the window on every member (the key of each message). At creation the members exchange
// their base address, size and displacement unit, so an origin computes absolute target
// addresses itself. One active-message handler, registered on MPI_COMM_WORLD at MPI_Init
// (so its id is the same everywhere), serves every window.
//
// Data movement. The origin flattens target_count elements of the target datatype into
// runs: byte ranges (put, get) or runs of basic elements of the target's basic type
// (accumulate family), and sends them in messages of at most the active-message payload
// (header + runs + packed data; a get's reply fits the same bound). The target copies or
// applies the op run by run inside its handler, so every accumulate is atomic per element
// against every other accumulate (handlers run one at a time), whatever the datatypes. A get
// sends runs and the target replies with the packed bytes; the origin unpacks them with the
// origin datatype once all have arrived.
//
// Synchronization relies on the order of active messages between a pair: a marker sent
// after a set of operations is handled after them.
//   fence            every member sends a fence marker to every member and waits for one
//                    from each (per source, so a fast rank's next fence does not count) and
//                    for its own gets, then a barrier (unless MPI_MODE_NOSUCCEED): no
//                    operation of the next epoch reaches a rank before the last one's;
//   post/start       post sends a POST to each origin; start waits for one from each
//                    target; complete waits for its gets and sends COMPLETE; wait/test wait
//                    for a COMPLETE from each origin of the post group;
//   lock/unlock      a lock request is granted by the target's handler (shared/exclusive,
//                    FIFO queue); unlock sends UNLOCK, which the target answers once all
//                    earlier operations are applied; flush sends FLUSH (answered alike).
// Passive-target progress happens whenever the target drives progress (any MPI call), and
// while it computes through the progress thread (api/async_progress.h), which the first
// window starts unless CCMPI_ASYNC_PROGRESS=0.
//
// MPI_Win_allocate_shared maps one POSIX shared-memory object per window (rank 0 creates
// it, the others open it by name, then it is unlinked); MPI_Win_shared_query returns
// addresses in it. The memory model is MPI_WIN_UNIFIED.
//
// Direct windows: when every member's memory is in one such segment (allocate_shared, and
// MPI_Win_allocate on members of one host), the origin does the data movement itself: puts
// and gets are copies, the accumulate family is applied under a lock word in the segment
// (so accumulates stay atomic against each other, all of them coming this way). Each is
// complete at both ends on return (then a full fence); synchronization is unchanged.
#include "api/win.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/api.h"
#include "api/request_table.h"
#include "base/handles.h"
#include "base/tunables.h"
#include "comm/comm.h"
#include "comm/errhandler.h"
#include "datatype/datatype.h"
#include "op/op.h"
#include "p2p/am.h"
#include "p2p/request.h"
#include "progress/engine.h"
#include "runtime/runtime.h"

using namespace ccmpi;

namespace ccmpi::rma {
namespace {

enum Kind : uint8_t {
  kPut,
  kAcc,
  kGet,
  kGetAcc,
  kCas,
  kGetReply,
  kLock,
  kLockGrant,
  kUnlock,
  kFlush,
  kAck,
  kPost,
  kComplete,
  kFence,
};

struct Hdr {
  uint32_t key = 0;
  uint8_t kind = 0;
  uint8_t lockType = 0;
  uint16_t pad = 0;
  uint32_t nruns = 0;
  int32_t basic = 0;  // accumulate family: the target's basic type
  int32_t op = 0;
  uint32_t unit = 1;    // packed bytes per run unit
  uint64_t stride = 1;  // memory bytes per run unit
  uint64_t tag = 0;     // gets: the origin's pending-get id
  uint64_t streamOff = 0;
  uint64_t len = 0;  // data bytes in this message
};
static_assert(sizeof(Hdr) % 8 == 0);

struct Run {
  uint64_t addr;
  uint64_t n;
};

struct Window {
  MPI_Win handle = MPI_WIN_NULL;
  MPI_Comm comm = MPI_COMM_NULL;  // private duplicate
  comm::Comm* c = nullptr;
  uint32_t key = 0;
  int rank = 0;
  int size = 0;
  int flavor = MPI_WIN_FLAVOR_CREATE;
  void* base = nullptr;
  MPI_Aint winSize = 0;
  int dispUnit = 1;
  int model = MPI_WIN_UNIFIED;
  std::vector<uint64_t> bases;
  std::vector<int64_t> sizes;
  std::vector<int> dispUnits;
  std::vector<int> world;  // window rank -> world rank
  // Memory this window owns: allocate (malloc), allocate_shared (a mapping).
  void* owned = nullptr;
  void* shm = nullptr;
  size_t shmLen = 0;
  std::vector<int64_t> shmOff;
  // Every member's memory is in the mapping shm: puts and gets are copies by the origin.
  bool direct = false;
  size_t lockOff = 0;  // the accumulates' lock word in shm (direct windows)
  std::vector<std::pair<uint64_t, uint64_t>> attached;  // dynamic: (base, size)
  std::string name;
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  std::map<int, void*> attrs;
  MPI_Info info = MPI_INFO_NULL;
  // Synchronization, origin side.
  uint64_t fenceEpoch = 0;
  std::vector<uint64_t> fenceFrom;
  std::vector<int> postFrom, completeFrom, grants;
  std::vector<uint64_t> acksWanted, acks;
  // Puts or accumulates without an answer went to the target since its last FLUSH/UNLOCK
  // (operations with a reply are complete at the target when their reply is in).
  std::vector<uint8_t> unacked;
  std::vector<int> lockedAs;  // 0 or MPI_LOCK_SHARED / MPI_LOCK_EXCLUSIVE
  bool lockAll = false;
  std::vector<int> startGroup, postGroup;
  bool started = false, posted = false;
  int pendingGets = 0;
  // Locks, target side.
  int exclusive = -1;  // window rank holding the exclusive lock
  int shared = 0;
  std::deque<std::pair<int, int>> waiting;  // (rank, lock type)
};

HandleTable<Window>& table() {
  static HandleTable<Window> t(HandleKind::kWin);
  return t;
}
std::unordered_map<uint32_t, Window*> gByKey;
struct Orphan {
  int src;
  std::vector<unsigned char> msg;
};
std::vector<Orphan> gOrphans;  // messages for a window not created here yet
int gAmId = -1;
comm::Comm* gWorld = nullptr;

struct PendingGet {
  Window* w = nullptr;
  std::vector<unsigned char> stream;
  uint64_t remaining = 0;
  void* buf = nullptr;
  int64_t count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  p2p::Request* req = nullptr;
};
std::unordered_map<uint64_t, std::unique_ptr<PendingGet>> gGets;
uint64_t gNextTag = 1;

void onAm(int src, uint64_t, const void* payload, size_t len, void*);

void send(int worldRank, const std::vector<unsigned char>& m) {
  p2p::amSend(*gWorld, worldRank, gAmId, 0, m.data(), m.size());
}

std::vector<unsigned char> message(const Hdr& h, const std::vector<Run>& runs, size_t data) {
  std::vector<unsigned char> m(sizeof(Hdr) + runs.size() * sizeof(Run) + data);
  memcpy(m.data(), &h, sizeof h);
  if (!runs.empty()) memcpy(m.data() + sizeof h, runs.data(), runs.size() * sizeof(Run));
  return m;
}

void control(Window& w, int target, Kind kind, int lockType = 0) {
  Hdr h;
  h.key = w.key;
  h.kind = kind;
  h.lockType = static_cast<uint8_t>(lockType);
  send(w.world[static_cast<size_t>(target)], message(h, {}, 0));
}

template <typename Done>
void waitFor(Done&& done) {
  progress::engine().waitUntil(done);
}

// --- target side ---------------------------------------------------------------------

bool grantable(const Window& w, int type) {
  return w.exclusive < 0 && (type == MPI_LOCK_SHARED || w.shared == 0);
}

void grant(Window& w, int rank, int type) {
  if (type == MPI_LOCK_EXCLUSIVE)
    w.exclusive = rank;
  else
    ++w.shared;
  control(w, rank, kLockGrant);
}

void grantWaiting(Window& w) {
  while (!w.waiting.empty() && grantable(w, w.waiting.front().second)) {
    auto [rank, type] = w.waiting.front();
    w.waiting.pop_front();
    grant(w, rank, type);
  }
}

void reply(Window& w, int rank, const Hdr& req, std::vector<unsigned char>& data) {
  Hdr h;
  h.key = w.key;
  h.kind = kGetReply;
  h.tag = req.tag;
  h.streamOff = req.streamOff;
  h.len = data.size();
  std::vector<unsigned char> m(sizeof h + data.size());
  memcpy(m.data(), &h, sizeof h);
  if (!data.empty()) memcpy(m.data() + sizeof h, data.data(), data.size());
  send(w.world[static_cast<size_t>(rank)], m);
}

// old: where the target's previous values go, packed (nullptr: not wanted).
void applyAccumulate(const Hdr& h, const std::vector<Run>& runs, const unsigned char* data,
                     unsigned char* old) {
  datatype::Datatype* dt = datatype::lookup(h.basic);
  const int64_t sb = dt->size();
  std::vector<unsigned char> tmp;
  for (const Run& r : runs) {
    void* addr = reinterpret_cast<void*>(r.addr);
    const int64_t n = static_cast<int64_t>(r.n);
    const size_t bytes = static_cast<size_t>(n * sb);
    if (old) {
      dt->pack(addr, n, 0, old, bytes);
      old += bytes;
    }
    if (h.op == MPI_NO_OP) continue;
    if (h.op == MPI_REPLACE) {
      dt->unpack(addr, n, 0, data, bytes);
    } else if (dt->contiguous()) {
      op::apply(h.op, data, addr, n, h.basic);  // the packed run is the memory layout
    } else {
      tmp.resize(static_cast<size_t>(n * dt->extent()));
      dt->unpack(tmp.data(), n, 0, data, bytes);
      op::apply(h.op, tmp.data(), addr, n, h.basic);
    }
    data += bytes;
  }
}

void handle(Window& w, int src, const Hdr& h, const unsigned char* body, size_t len) {
  const int rank = w.c->peerRankOfWorld(src);
  std::vector<Run> runs(h.nruns);
  if (h.nruns) memcpy(runs.data(), body, h.nruns * sizeof(Run));
  const unsigned char* data = body + h.nruns * sizeof(Run);
  (void)len;
  switch (h.kind) {
    case kPut:
      for (const Run& r : runs) {
        memcpy(reinterpret_cast<void*>(r.addr), data, r.n);
        data += r.n;
      }
      break;
    case kAcc:
      applyAccumulate(h, runs, data, nullptr);
      break;
    case kGetAcc: {
      uint64_t elements = 0;
      for (const Run& r : runs) elements += r.n;
      std::vector<unsigned char> old(elements * h.unit);
      applyAccumulate(h, runs, data, old.data());
      reply(w, rank, h, old);
      break;
    }
    case kGet: {
      std::vector<unsigned char> out(h.len);
      size_t at = 0;
      for (const Run& r : runs) {
        memcpy(out.data() + at, reinterpret_cast<const void*>(r.addr), r.n);
        at += r.n;
      }
      reply(w, rank, h, out);
      break;
    }
    case kCas: {
      const size_t n = h.unit;
      void* addr = reinterpret_cast<void*>(runs[0].addr);
      std::vector<unsigned char> old(n);
      memcpy(old.data(), addr, n);
      if (memcmp(old.data(), data + n, n) == 0) memcpy(addr, data, n);
      reply(w, rank, h, old);
      break;
    }
    case kGetReply: {
      auto it = gGets.find(h.tag);
      if (it == gGets.end()) break;
      PendingGet& g = *it->second;
      if (h.len) memcpy(g.stream.data() + h.streamOff, body, h.len);
      g.remaining -= h.len;
      if (g.remaining == 0) {
        datatype::Datatype* dt = datatype::lookup(g.type);
        if (dt && !g.stream.empty())
          dt->unpack(g.buf, g.count, 0, g.stream.data(), g.stream.size());
        datatype::release(g.type);
        --g.w->pendingGets;
        if (g.req) p2p::completeRequest(g.req);
        gGets.erase(it);
      }
      break;
    }
    case kLock:
      if (grantable(w, h.lockType) && w.waiting.empty())
        grant(w, rank, h.lockType);
      else
        w.waiting.emplace_back(rank, h.lockType);
      break;
    case kLockGrant:
      ++w.grants[static_cast<size_t>(rank)];
      break;
    case kUnlock:
      if (w.exclusive == rank)
        w.exclusive = -1;
      else if (w.shared > 0)
        --w.shared;
      control(w, rank, kAck);
      grantWaiting(w);
      break;
    case kFlush:
      control(w, rank, kAck);
      break;
    case kAck:
      ++w.acks[static_cast<size_t>(rank)];
      break;
    case kPost:
      ++w.postFrom[static_cast<size_t>(rank)];
      break;
    case kComplete:
      ++w.completeFrom[static_cast<size_t>(rank)];
      break;
    case kFence:
      ++w.fenceFrom[static_cast<size_t>(rank)];
      break;
    default:
      break;
  }
}

void onAm(int src, uint64_t, const void* payload, size_t len, void*) {
  if (len < sizeof(Hdr)) return;
  Hdr h;
  memcpy(&h, payload, sizeof h);
  auto it = gByKey.find(h.key);
  const auto* p = static_cast<const unsigned char*>(payload);
  if (it == gByKey.end()) {
    gOrphans.push_back(Orphan{src, std::vector<unsigned char>(p, p + len)});
    return;
  }
  handle(*it->second, src, h, p + sizeof h, len - sizeof h);
}

// --- errors ------------------------------------------------------------------------------

[[noreturn]] void fatal(int code) {
  const std::string msg = errorString(code);
  fprintf(stderr, "ccmpi: rank %d: %s\n", runtime::worldRank(), msg.c_str());
  fflush(stderr);
  int cls = errorClassOf(code);
  if (cls <= 0) cls = MPI_ERR_UNKNOWN;
  runtime::abortJob(cls, std::string());
}

int dispatch(Window* w, int code) {
  comm::Errhandler* e = comm::lookupErrhandler(w ? w->errhandler : MPI_ERRORS_ARE_FATAL);
  if (!e) fatal(code);
  switch (e->kind) {
    case comm::Errhandler::Kind::kReturn:
      return code;
    case comm::Errhandler::Kind::kUserWin:
      if (e->otherFn) {
        int userCode = code;
        MPI_Win h = w->handle;
        reinterpret_cast<MPI_Win_errhandler_function*>(e->otherFn)(&h, &userCode);
      }
      return code;
    default:
      fatal(code);
  }
}

__attribute__((format(printf, 4, 5))) int raiseWin(Window* w, const char* func, int cls,
                                                   const char* fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return dispatch(w, makeErrorCode(cls, func, buf));
}

// --- origin side -------------------------------------------------------------------------

// Appends the byte blocks of `count` elements of dt based at `at` (adjacent ones merged);
// false if the type has too many blocks to list.
bool blocksOf(const datatype::Datatype& dt, int64_t count, uint64_t at,
              std::vector<datatype::Block>* out) {
  if (count == 0 || dt.size() == 0) return true;
  if (dt.contiguous()) {
    out->push_back({static_cast<int64_t>(at) + dt.trueLb(), count * dt.size()});
    return true;
  }
  const std::vector<datatype::Block> one = dt.blocks();
  if (one.empty()) return false;
  for (int64_t i = 0; i < count; ++i)
    for (const datatype::Block& b : one) {
      const int64_t d = static_cast<int64_t>(at) + i * dt.extent() + b.disp;
      if (!out->empty() && out->back().disp + out->back().len == d)
        out->back().len += b.len;
      else
        out->push_back({d, b.len});
    }
  return true;
}

// Runs of elements of the basic type (packed size sb, extent eb) in the blocks.
std::vector<Run> elementRuns(const std::vector<datatype::Block>& blocks, int64_t sb, int64_t eb) {
  std::vector<Run> runs;
  int64_t into = 0;  // bytes of the current element seen so far
  for (const datatype::Block& b : blocks) {
    int64_t off = 0;
    while (off < b.len) {
      const uint64_t a = static_cast<uint64_t>(b.disp + off);
      if (into == 0) {
        int64_t k = 1;
        if (sb == eb) k = (b.len - off) / sb;
        if (k == 0) k = 1;
        if (!runs.empty() && runs.back().addr + runs.back().n * static_cast<uint64_t>(eb) == a)
          runs.back().n += static_cast<uint64_t>(k);
        else
          runs.push_back({a, static_cast<uint64_t>(k)});
        if (sb == eb && k * sb <= b.len - off) {
          off += k * sb;
          continue;
        }
      }
      const int64_t take = std::min(b.len - off, sb - into);
      off += take;
      into = (into + take) % sb;
    }
  }
  return runs;
}

struct OpArgs {
  Kind kind;
  const void* obuf;
  int64_t ocount;
  MPI_Datatype otype;
  void* rbuf;
  int64_t rcount;
  MPI_Datatype rtype;
  int target;
  MPI_Aint disp;
  int64_t tcount;
  MPI_Datatype ttype;
  MPI_Op op;
  const void* compare;
};

// Holds a direct window's accumulate lock (a word in the shared segment, zero when free):
// accumulates on such windows are applied by their origins one at a time.
class ShmLock {
 public:
  explicit ShmLock(Window& w)
      : word_(*reinterpret_cast<uint32_t*>(static_cast<char*>(w.shm) + w.lockOff)) {
    std::atomic_ref<uint32_t> a(word_);
    unsigned spins = 0;
    while (a.exchange(1, std::memory_order_acquire) != 0) {
      while (a.load(std::memory_order_relaxed) != 0) {
        if (++spins > 64)
          progress::Engine::yieldCpu();  // the holder may be off its CPU
        else
          progress::Engine::cpuRelax();
      }
    }
  }
  ~ShmLock() { std::atomic_ref<uint32_t>(word_).store(0, std::memory_order_release); }
  ShmLock(const ShmLock&) = delete;
  ShmLock& operator=(const ShmLock&) = delete;

 private:
  uint32_t& word_;
};

// The accumulate family (and the puts and gets they reduce to) on a direct window: the
// origin applies it under the window's lock, so it is atomic against every other one
// (they all come this way). runs: in the target's addresses.
int directAtomic(Window& w, size_t t, const OpArgs& a, Kind kind, const Hdr& h,
                 std::vector<Run> runs, datatype::Datatype* odt, bool sendsData, int64_t bytes) {
  if (bytes == 0 && kind != kCas) return MPI_SUCCESS;
  char* seg = static_cast<char*>(w.shm) + w.shmOff[t];
  const uint64_t b0 = w.bases[t];
  for (Run& r : runs) r.addr = reinterpret_cast<uint64_t>(seg + (r.addr - b0));
  // The origin's data as a packed stream, and where fetched values go: the user's buffers
  // themselves when their types are contiguous (a 1 MiB accumulate paid 2 ms in page
  // faults of fresh copies before).
  std::vector<unsigned char> in, out;
  const size_t fetched = kind == kCas ? h.unit : kind == kGet || kind == kGetAcc ? bytes : 0;
  unsigned char* dst = nullptr;
  if (fetched > 0) {
    const datatype::Datatype* rdt =
        a.rtype != MPI_DATATYPE_NULL ? datatype::lookup(a.rtype) : nullptr;
    if (rdt && rdt->contiguous() && static_cast<size_t>(a.rcount * rdt->size()) == fetched) {
      dst = static_cast<unsigned char*>(a.rbuf) + rdt->trueLb();
    } else {
      out.resize(fetched);
      dst = out.data();
    }
  }
  const unsigned char* src = nullptr;
  if (kind == kCas) {
    in.resize(2 * size_t{h.unit});
    memcpy(in.data(), a.obuf, h.unit);
    memcpy(in.data() + h.unit, a.compare, h.unit);
    src = in.data();
  } else if (sendsData && odt->contiguous()) {
    src = static_cast<const unsigned char*>(a.obuf) + odt->trueLb();
  } else if (sendsData) {
    in.resize(static_cast<size_t>(bytes));
    odt->pack(a.obuf, a.ocount, 0, in.data(), in.size());
    src = in.data();
  }
  {
    ShmLock lock(w);
    switch (kind) {
      case kPut: {
        const unsigned char* d = src;
        for (const Run& r : runs) {
          memcpy(reinterpret_cast<void*>(r.addr), d, r.n);
          d += r.n;
        }
        break;
      }
      case kGet: {
        unsigned char* d = dst;
        for (const Run& r : runs) {
          memcpy(d, reinterpret_cast<const void*>(r.addr), r.n);
          d += r.n;
        }
        break;
      }
      case kAcc:
        applyAccumulate(h, runs, src, nullptr);
        break;
      case kGetAcc:
        applyAccumulate(h, runs, src, dst);
        break;
      case kCas: {
        const size_t n = h.unit;
        auto* addr = reinterpret_cast<unsigned char*>(runs[0].addr);
        memcpy(dst, addr, n);
        if (memcmp(dst, src + n, n) == 0) memcpy(addr, src, n);
        break;
      }
      default:
        break;
    }
    std::atomic_thread_fence(std::memory_order_seq_cst);
  }
  if (!out.empty() && a.rtype != MPI_DATATYPE_NULL)
    datatype::lookup(a.rtype)->unpack(a.rbuf, a.rcount, 0, out.data(), out.size());
  return MPI_SUCCESS;
}

// Issues one operation; returns an error class with its cause, or MPI_SUCCESS. *pending
// is the get whose reply completes it (nullptr when it is complete locally already).
int issue(Window& w, const OpArgs& a, PendingGet** pending) {
  *pending = nullptr;
  datatype::Datatype* tdt = datatype::lookup(a.ttype);
  datatype::Datatype* odt = a.otype != MPI_DATATYPE_NULL ? datatype::lookup(a.otype) : nullptr;
  const int64_t bytes = a.tcount * tdt->size();
  Kind kind = a.kind;
  const MPI_Datatype basic = tdt->basicType();
  const bool accumulate = kind == kAcc || kind == kGetAcc;
  if (accumulate && basic == MPI_DATATYPE_NULL) {
    if (a.op == MPI_REPLACE && kind == kAcc)
      kind = kPut;
    else if (a.op == MPI_NO_OP && kind == kGetAcc)
      kind = kGet;
    else if (bytes > 0)
      return setErrorCause(MPI_ERR_TYPE,
                           "the target datatype of an accumulate must consist of one "
                           "predefined type");
  }
  const bool sendsData = kind == kPut || kind == kAcc || (kind == kGetAcc && a.op != MPI_NO_OP);
  if (sendsData && odt && a.ocount * odt->size() != bytes)
    return setErrorCause(
        MPI_ERR_TYPE, "origin (%lld bytes) and target (%lld bytes) type signatures differ",
        static_cast<long long>(a.ocount * odt->size()), static_cast<long long>(bytes));
  if (sendsData && accumulate && kind != kPut && odt && bytes > 0 && odt->basicType() != basic &&
      a.op != MPI_REPLACE)
    return setErrorCause(MPI_ERR_TYPE, "origin and target basic types differ (%s and %s)",
                         odt->name().c_str(), tdt->name().c_str());
  const size_t t = static_cast<size_t>(a.target);
  const bool dynamic = w.flavor == MPI_WIN_FLAVOR_DYNAMIC;
  const uint64_t tbase =
      dynamic ? static_cast<uint64_t>(a.disp)
              : w.bases[t] + static_cast<uint64_t>(a.disp) * static_cast<uint64_t>(w.dispUnits[t]);
  std::vector<datatype::Block> blocks;
  if (!blocksOf(*tdt, a.tcount, tbase, &blocks))
    return setErrorCause(MPI_ERR_TYPE, "the target datatype has too many blocks");
  if (!dynamic && !blocks.empty()) {
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (const datatype::Block& b : blocks) {
      lo = std::min(lo, b.disp);
      hi = std::max(hi, b.disp + b.len);
    }
    const int64_t b0 = static_cast<int64_t>(w.bases[t]);
    if (lo < b0 || hi > b0 + w.sizes[t])
      return setErrorCause(MPI_ERR_RMA_RANGE,
                           "bytes [%lld, %lld) of the target's window are outside its %lld bytes",
                           static_cast<long long>(lo - b0), static_cast<long long>(hi - b0),
                           static_cast<long long>(w.sizes[t]));
  }
  // Same host, memory in the shared segment: the origin copies (the datatype layer packs
  // straight into the target's blocks, or unpacks from them), complete at both ends on
  // return. The accumulate family is directAtomic's.
  if (w.direct && (a.kind == kPut || a.kind == kGet)) {
    char* seg = static_cast<char*>(w.shm) + w.shmOff[t];
    const int64_t b0 = static_cast<int64_t>(w.bases[t]);
    size_t off = 0;
    for (const datatype::Block& b : blocks) {
      char* p = seg + (b.disp - b0);
      const size_t n = static_cast<size_t>(b.len);
      if (a.kind == kPut)
        odt->pack(a.obuf, a.ocount, off, p, n);
      else
        datatype::lookup(a.rtype)->unpack(a.rbuf, a.rcount, off, p, n);
      off += n;
    }
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return MPI_SUCCESS;
  }
  Hdr h;
  h.key = w.key;
  h.kind = kind;
  h.op = a.op;
  std::vector<Run> runs;
  if (kind == kAcc || kind == kGetAcc || kind == kCas) {
    datatype::Datatype* bdt = datatype::lookup(basic);
    h.basic = basic;
    h.unit = static_cast<uint32_t>(bdt->size());
    h.stride = static_cast<uint64_t>(bdt->extent());
    runs = elementRuns(blocks, bdt->size(), bdt->extent());
  } else {
    for (const datatype::Block& b : blocks)
      runs.push_back({static_cast<uint64_t>(b.disp), static_cast<uint64_t>(b.len)});
  }
  if (w.direct) return directAtomic(w, t, a, kind, h, std::move(runs), odt, sendsData, bytes);
  const bool gets = kind == kGet || kind == kGetAcc || kind == kCas;
  PendingGet* g = nullptr;
  if (gets) {
    auto p = std::make_unique<PendingGet>();
    g = p.get();
    g->w = &w;
    g->stream.resize(static_cast<size_t>(bytes));
    g->remaining = static_cast<uint64_t>(bytes);
    g->buf = a.rbuf;
    g->count = a.rcount;
    g->type = a.rtype;
    h.tag = gNextTag++;
    if (bytes == 0) return MPI_SUCCESS;
    datatype::retain(a.rtype);
    ++w.pendingGets;
    gGets.emplace(h.tag, std::move(p));
    *pending = g;
  }
  const int dest = w.world[t];
  if (!gets) w.unacked[t] = 1;
  if (kind == kCas) {
    const size_t n = h.unit;
    h.len = n;
    h.nruns = 1;
    std::vector<unsigned char> m = message(h, runs, 2 * n);
    unsigned char* d = m.data() + sizeof h + sizeof(Run);
    memcpy(d, a.obuf, n);
    memcpy(d + n, a.compare, n);
    send(dest, m);
    return MPI_SUCCESS;
  }
  if (bytes == 0) return MPI_SUCCESS;
  const size_t budget = p2p::amMaxPayload() - sizeof(Hdr);
  const uint64_t unit = h.unit;
  std::vector<Run> part;
  uint64_t partBytes = 0, streamOff = 0;
  auto flush = [&] {
    if (part.empty()) return;
    h.nruns = static_cast<uint32_t>(part.size());
    h.streamOff = streamOff;
    h.len = partBytes;
    std::vector<unsigned char> m = message(h, part, sendsData ? partBytes : 0);
    if (sendsData)
      odt->pack(a.obuf, a.ocount, streamOff, m.data() + sizeof h + part.size() * sizeof(Run),
                partBytes);
    send(dest, m);
    streamOff += partBytes;
    partBytes = 0;
    part.clear();
  };
  for (Run r : runs) {
    while (r.n > 0) {
      const size_t used = (part.size() + 1) * sizeof(Run) + partBytes;
      const uint64_t room = used < budget ? (budget - used) / unit : 0;
      const uint64_t take = std::min<uint64_t>(r.n, room);
      if (take == 0) {
        flush();
        continue;
      }
      part.push_back({r.addr, take});
      partBytes += take * unit;
      r.addr += take * h.stride;
      r.n -= take;
    }
  }
  flush();
  return MPI_SUCCESS;
}

void waitGets(Window& w) {
  waitFor([&w] { return w.pendingGets == 0; });
}

// FLUSH (or UNLOCK) to each target in `targets`, then waits for every answer.
void flushTargets(Window& w, const std::vector<int>& targets, Kind kind) {
  for (int t : targets) {
    if (kind == kFlush && !w.unacked[static_cast<size_t>(t)]) continue;
    w.unacked[static_cast<size_t>(t)] = 0;
    ++w.acksWanted[static_cast<size_t>(t)];
    control(w, t, kind);
  }
  waitFor([&w, &targets] {
    for (int t : targets)
      if (w.acks[static_cast<size_t>(t)] < w.acksWanted[static_cast<size_t>(t)]) return false;
    return true;
  });
  waitGets(w);
}

// --- keyvals ------------------------------------------------------------------------------

struct WinKeyval {
  MPI_Win_copy_attr_function* copy = nullptr;
  MPI_Win_delete_attr_function* del = nullptr;
  void* extra = nullptr;
  int refs = 1;
};
std::map<int, WinKeyval> gKeyvals;
int gNextKeyval = 0x4000;

bool predefinedKeyval(int k) {
  return k == MPI_WIN_BASE || k == MPI_WIN_SIZE || k == MPI_WIN_DISP_UNIT ||
         k == MPI_WIN_CREATE_FLAVOR || k == MPI_WIN_MODEL;
}

void releaseKeyval(int k) {
  auto it = gKeyvals.find(k);
  if (it != gKeyvals.end() && --it->second.refs == 0) gKeyvals.erase(it);
}

int deleteAttr(Window& w, int keyval) {
  auto it = w.attrs.find(keyval);
  if (it == w.attrs.end()) return MPI_SUCCESS;
  auto kv = gKeyvals.find(keyval);
  if (kv != gKeyvals.end() && kv->second.del) {
    const int rc = kv->second.del(w.handle, keyval, it->second, kv->second.extra);
    if (rc != MPI_SUCCESS) return rc;
  }
  w.attrs.erase(it);
  releaseKeyval(keyval);
  return MPI_SUCCESS;
}

// --- creation ----------------------------------------------------------------------------

template <typename Setup>
int createWindow(const char* kFunc, MPI_Comm comm, MPI_Info info, int flavor, MPI_Aint size,
                 MPI_Aint dispUnit, MPI_Win* win, Setup&& setup) {
  comm::Comm* c = comm::lookup(comm);
  if (!c) return api::raisef(kFunc, MPI_ERR_COMM, "invalid communicator handle 0x%x", comm);
  if (c->isInter())
    return api::raiseCommf(comm, kFunc, MPI_ERR_COMM, "windows need an intracommunicator");
  if (!win) return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "win pointer is NULL");
  if (size < 0)
    return api::raiseCommf(comm, kFunc, MPI_ERR_SIZE, "size %lld is negative",
                           static_cast<long long>(size));
  if (dispUnit <= 0 || dispUnit > INT_MAX)
    return api::raiseCommf(comm, kFunc, MPI_ERR_DISP, "disp_unit %lld is not in 1..%d",
                           static_cast<long long>(dispUnit), INT_MAX);
  if (info != MPI_INFO_NULL) {
    int nkeys;
    if (PMPI_Info_get_nkeys(info, &nkeys) != MPI_SUCCESS)
      return api::raiseCommf(comm, kFunc, MPI_ERR_INFO, "invalid info handle 0x%x", info);
  }
  registerHandler();
  auto owned = std::make_unique<Window>();
  Window& w = *owned;
  if (int rc = PMPI_Comm_dup(comm, &w.comm)) return rc;
  w.c = comm::lookup(w.comm);
  w.key = w.c->contextId;
  w.rank = w.c->rank;
  w.size = w.c->size;
  w.flavor = flavor;
  w.winSize = size;
  w.dispUnit = static_cast<int>(dispUnit);
  const size_t n = static_cast<size_t>(w.size);
  w.world = w.c->worldRanks;
  w.fenceFrom.assign(n, 0);
  w.postFrom.assign(n, 0);
  w.completeFrom.assign(n, 0);
  w.grants.assign(n, 0);
  w.acksWanted.assign(n, 0);
  w.acks.assign(n, 0);
  w.lockedAs.assign(n, 0);
  w.unacked.assign(n, 0);
  if (info != MPI_INFO_NULL) PMPI_Info_dup(info, &w.info);
  w.handle = table().add(std::move(owned));
  gByKey[w.key] = &w;
  int rc = setup(w);
  int ok = rc == MPI_SUCCESS ? 1 : 0, all = 0;
  PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, w.comm);
  if (all) {
    struct Entry {
      uint64_t base;
      int64_t size;
      int64_t disp;
    } mine{reinterpret_cast<uint64_t>(w.base), w.winSize, w.dispUnit};
    std::vector<Entry> every(n);
    PMPI_Allgather(&mine, sizeof mine, MPI_BYTE, every.data(), sizeof mine, MPI_BYTE, w.comm);
    for (const Entry& e : every) {
      w.bases.push_back(e.base);
      w.sizes.push_back(e.size);
      w.dispUnits.push_back(static_cast<int>(e.disp));
    }
  }
  if (!all) {
    const std::string cause = rc ? lastErrorCause() : "another member failed to create it";
    if (w.shm) munmap(w.shm, w.shmLen);
    free(w.owned);
    gByKey.erase(w.key);
    PMPI_Comm_free(&w.comm);
    if (w.info != MPI_INFO_NULL) PMPI_Info_free(&w.info);
    table().remove(w.handle);
    return api::raiseCommf(comm, kFunc, rc ? rc : MPI_ERR_OTHER, "%s", cause.c_str());
  }
  // Messages that came before this rank registered the window (none can: the others wait
  // for its part of the allgather above; kept for safety).
  if (!gOrphans.empty()) {
    std::vector<Orphan> o;
    o.swap(gOrphans);
    for (Orphan& m : o) onAm(m.src, 0, m.msg.data(), m.msg.size(), nullptr);
  }
  *win = w.handle;
  api::startAsyncProgressInCall();  // passive-target progress from now on
  return MPI_SUCCESS;
}

std::atomic<uint64_t> gShmSeq{0};

Tunable<bool> kDirect("CCMPI_RMA_DIRECT", true,
                      "MPI_Win_allocate maps the members' memory into one shared-memory segment "
                      "when they share a host, and puts and gets to such windows (and to "
                      "MPI_Win_allocate_shared ones) are copies by the origin");
// MPI_Win_allocate keeps larger windows (all members' sizes together) in private memory: the
// segment is reserved up front (a tmpfs segment that cannot grow would raise SIGBUS).
constexpr int64_t kDirectMaxBytes = int64_t{1} << 30;

// Maps one segment holding every member's memory (rank 0 creates it and broadcasts its
// name, the others open it, then it is unlinked). allocate (MPI_Win_allocate): segments
// start 64-byte aligned, the whole is reserved, and a failure is MPI_ERR_RMA_SHARED with
// nothing mapped (the caller falls back to private memory); otherwise (allocate_shared) the
// segments are contiguous in rank order.
int setupShared(Window& w, MPI_Aint size, bool allocate = false) {
  std::vector<int64_t> sizes(static_cast<size_t>(w.size));
  int64_t mine = size;
  PMPI_Allgather(&mine, 1, MPI_INT64_T, sizes.data(), 1, MPI_INT64_T, w.comm);
  w.shmOff.assign(sizes.size(), 0);
  int64_t total = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    w.shmOff[i] = total;
    total += allocate ? (sizes[i] + 63) / 64 * 64 : sizes[i];
  }
  // Every member computed the same total: they all give up together.
  if (allocate && total > kDirectMaxBytes)
    return setErrorCause(MPI_ERR_RMA_SHARED, "the window is too large to share");
  // The accumulates' lock word (a direct window) follows the members' memory.
  w.lockOff = static_cast<size_t>((total + 63) / 64 * 64);
  w.shmLen = w.lockOff + 64;
  char name[64] = {};
  int ok = 1;
  if (w.rank == 0) {
    snprintf(name, sizeof name, "/ccmpi-win-%d-%llu", static_cast<int>(getpid()),
             static_cast<unsigned long long>(gShmSeq++));
    const int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0 || ftruncate(fd, static_cast<off_t>(w.shmLen)) != 0) ok = 0;
    if (ok && allocate && posix_fallocate(fd, 0, static_cast<off_t>(w.shmLen)) != 0) ok = 0;
    if (ok) {
      void* p = mmap(nullptr, w.shmLen, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      if (p == MAP_FAILED) ok = 0;
      if (ok) w.shm = p;
    }
    if (fd >= 0) close(fd);
    if (!ok && fd >= 0) shm_unlink(name);
    if (!ok) name[0] = '\0';
  }
  PMPI_Bcast(name, sizeof name, MPI_CHAR, 0, w.comm);
  if (w.rank != 0) {
    const int fd = name[0] ? shm_open(name, O_RDWR, 0600) : -1;
    if (fd < 0) ok = 0;
    if (ok) {
      void* p = mmap(nullptr, w.shmLen, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      if (p == MAP_FAILED)
        ok = 0;
      else
        w.shm = p;
    }
    if (fd >= 0) close(fd);
  }
  int all = 0;
  PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, w.comm);
  if (w.rank == 0 && name[0]) shm_unlink(name);
  if (!all) {
    if (allocate && w.shm) {
      munmap(w.shm, w.shmLen);
      w.shm = nullptr;
    }
    return setErrorCause(MPI_ERR_RMA_SHARED,
                         "the members cannot share memory (not all on one host?)");
  }
  w.base = static_cast<char*>(w.shm) + w.shmOff[static_cast<size_t>(w.rank)];
  w.direct = kDirect.get();
  return MPI_SUCCESS;
}

// MPI_Win_allocate: one shared segment when the members share a host (puts and gets are
// then copies by the origin), private memory otherwise.
// Every member decides alike from the hosts of the world ranks (CCMPI_SHM_ISLAND's emulated
// hosts count as hosts).
int allocateWindow(Window& w, MPI_Aint size) {
  const std::vector<int>& hosts = runtime::worldHosts();
  bool oneHost = !hosts.empty();
  for (int r : w.world)
    if (r < 0 || static_cast<size_t>(r) >= hosts.size() ||
        hosts[static_cast<size_t>(r)] != hosts[static_cast<size_t>(w.world[0])])
      oneHost = false;
  if (kDirect.get() && oneHost && setupShared(w, size, true) == MPI_SUCCESS) return MPI_SUCCESS;
  void* p = nullptr;
  if (posix_memalign(&p, 64, size > 0 ? size : 1) != 0)
    return setErrorCause(MPI_ERR_NO_MEM, "cannot allocate %lld bytes",
                         static_cast<long long>(size));
  w.owned = p;
  w.base = p;
  return MPI_SUCCESS;
}

}  // namespace

void registerHandler() {
  comm::Comm* world = comm::lookup(MPI_COMM_WORLD);
  if (!world) return;
  if (gAmId >= 0 && gWorld == world) return;
  gWorld = world;
  p2p::amRegister(*world, onAm, nullptr, &gAmId);
}

}  // namespace ccmpi::rma

using namespace ccmpi::rma;

namespace {

// The window of handle h or an MPI_ERR_WIN raised on MPI_COMM_WORLD.
#define WIN_OR_RAISE(w, h)                         \
  CCMPI_HANDLE_OR_RAISE(Window, w, table().get(h), \
                        api::raisef(kFunc, MPI_ERR_WIN, "invalid window handle 0x%x", h))

int checkRank(Window* w, const char* kFunc, int rank, bool procNull) {
  if ((procNull && rank == MPI_PROC_NULL) || (rank >= 0 && rank < w->size)) return MPI_SUCCESS;
  return raiseWin(w, kFunc, MPI_ERR_RANK, "rank %d is not in the window's group of %d", rank,
                  w->size);
}

int checkType(Window* w, const char* kFunc, MPI_Datatype t, const char* what) {
  datatype::Datatype* dt = datatype::lookup(t);
  if (!dt) return raiseWin(w, kFunc, MPI_ERR_TYPE, "invalid %s datatype 0x%x", what, t);
  if (!dt->committed())
    return raiseWin(w, kFunc, MPI_ERR_TYPE, "the %s datatype is not committed", what);
  return MPI_SUCCESS;
}

int rmaOp(const char* kFunc, MPI_Win win, const OpArgs& a, MPI_Request* request) {
  WIN_OR_RAISE(w, win);
  if (request) *request = MPI_REQUEST_NULL;
  if (int rc = checkRank(w, kFunc, a.target, true)) return rc;
  if (a.ocount < 0 || a.tcount < 0 || a.rcount < 0)
    return raiseWin(w, kFunc, MPI_ERR_COUNT, "negative count");
  if (a.otype != MPI_DATATYPE_NULL || a.kind == kPut || a.kind == kAcc)
    if (int rc = checkType(w, kFunc, a.otype, "origin")) return rc;
  if (a.rtype != MPI_DATATYPE_NULL)
    if (int rc = checkType(w, kFunc, a.rtype, "result")) return rc;
  if (int rc = checkType(w, kFunc, a.ttype, "target")) return rc;
  if (a.kind == kAcc || a.kind == kGetAcc) {
    op::Op* o = op::lookup(a.op);
    if (!o || (!o->predefined && a.op != MPI_REPLACE && a.op != MPI_NO_OP))
      return raiseWin(w, kFunc, MPI_ERR_OP, "RMA accumulates take predefined ops only");
    if (a.op == MPI_NO_OP && a.kind == kAcc)
      return raiseWin(w, kFunc, MPI_ERR_OP, "MPI_NO_OP is for MPI_Get_accumulate only");
    const MPI_Datatype b = datatype::lookup(a.ttype)->basicType();
    if (a.op != MPI_REPLACE && a.op != MPI_NO_OP && b != MPI_DATATYPE_NULL &&
        !op::validFor(a.op, b))
      return raiseWin(w, kFunc, MPI_ERR_OP, "%s is not defined for %s", op::name(a.op),
                      datatype::lookup(b)->name().c_str());
  }
  if (a.disp < 0 && w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
    return raiseWin(w, kFunc, MPI_ERR_DISP, "target_disp %lld is negative",
                    static_cast<long long>(a.disp));
  p2p::Request* r = nullptr;
  if (request) {
    r = p2p::newRequest(p2p::Request::Kind::kOther);
    r->commHandle = w->comm;
  }
  PendingGet* g = nullptr;
  if (a.target != MPI_PROC_NULL) {
    if (int rc = issue(*w, a, &g)) {
      if (r) p2p::releaseRequest(r);
      return raiseWin(w, kFunc, rc, "%s", lastErrorCause().c_str());
    }
  }
  if (r) {
    if (g)
      g->req = r;
    else
      p2p::completeRequest(r);
    *request = api::requestHandle(r);
  }
  return MPI_SUCCESS;
}

OpArgs args(Kind kind, const void* obuf, int64_t ocount, MPI_Datatype otype, int target,
            MPI_Aint disp, int64_t tcount, MPI_Datatype ttype) {
  OpArgs a{};
  a.kind = kind;
  a.obuf = obuf;
  a.ocount = ocount;
  a.otype = otype;
  a.target = target;
  a.disp = disp;
  a.tcount = tcount;
  a.ttype = ttype;
  a.op = MPI_OP_NULL;
  a.rtype = MPI_DATATYPE_NULL;
  return a;
}

std::vector<int> groupRanks(Window& w, MPI_Group group, bool* ok) {
  int n = 0;
  *ok = PMPI_Group_size(group, &n) == MPI_SUCCESS;
  std::vector<int> in(static_cast<size_t>(n)), out(static_cast<size_t>(n));
  if (!*ok) return out;
  for (int i = 0; i < n; ++i) in[static_cast<size_t>(i)] = i;
  MPI_Group wg;
  PMPI_Comm_group(w.comm, &wg);
  PMPI_Group_translate_ranks(group, n, in.data(), wg, out.data());
  PMPI_Group_free(&wg);
  for (int r : out)
    if (r == MPI_UNDEFINED) *ok = false;
  return out;
}

std::vector<int> allRanks(const Window& w) {
  std::vector<int> v(static_cast<size_t>(w.size));
  for (int i = 0; i < w.size; ++i) v[static_cast<size_t>(i)] = i;
  return v;
}

constexpr int kAllAsserts =
    MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED;

int checkAssert(Window* w, const char* kFunc, int assert) {
  if (assert & ~kAllAsserts)
    return raiseWin(w, kFunc, MPI_ERR_ASSERT, "assert %d has unknown bits", assert);
  return MPI_SUCCESS;
}

}  // namespace

// --- creation and destruction -------------------------------------------------------------

extern "C" int PMPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info,
                               MPI_Comm comm, MPI_Win* win) {
  CCMPI_API_BEGIN("MPI_Win_create");
  return createWindow(kFunc, comm, info, MPI_WIN_FLAVOR_CREATE, size, disp_unit, win,
                      [base](Window& w) {
                        w.base = base;
                        return MPI_SUCCESS;
                      });
}
CCMPI_MPI_ALIAS(MPI_Win_create)

extern "C" int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                                 void* baseptr, MPI_Win* win) {
  CCMPI_API_BEGIN("MPI_Win_allocate");
  if (!baseptr) return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "baseptr is NULL");
  const int rc = createWindow(kFunc, comm, info, MPI_WIN_FLAVOR_ALLOCATE, size, disp_unit, win,
                              [size](Window& w) { return allocateWindow(w, size); });
  if (rc == MPI_SUCCESS) *static_cast<void**>(baseptr) = table().get(*win)->base;
  return rc;
}
CCMPI_MPI_ALIAS(MPI_Win_allocate)

extern "C" int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                                        void* baseptr, MPI_Win* win) {
  CCMPI_API_BEGIN("MPI_Win_allocate_shared");
  if (!baseptr) return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "baseptr is NULL");
  const int rc = createWindow(kFunc, comm, info, MPI_WIN_FLAVOR_SHARED, size, disp_unit, win,
                              [size](Window& w) { return setupShared(w, size); });
  if (rc == MPI_SUCCESS) *static_cast<void**>(baseptr) = table().get(*win)->base;
  return rc;
}
CCMPI_MPI_ALIAS(MPI_Win_allocate_shared)

extern "C" int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint* size, int* disp_unit,
                                     void* baseptr) {
  CCMPI_API_BEGIN("MPI_Win_shared_query");
  WIN_OR_RAISE(w, win);
  if (int rc = checkRank(w, kFunc, rank, true)) return rc;
  if (!size || !disp_unit || !baseptr)
    return raiseWin(w, kFunc, MPI_ERR_ARG, "NULL output argument");
  if (w->flavor != MPI_WIN_FLAVOR_SHARED) {
    // MPI-4.1: other windows share only the caller's own memory with it.
    const bool mine = rank == w->rank || (rank == MPI_PROC_NULL && w->size == 1);
    *size = mine ? w->winSize : 0;
    *disp_unit = mine ? w->dispUnit : w->dispUnits[static_cast<size_t>(rank < 0 ? 0 : rank)];
    *static_cast<void**>(baseptr) = mine && w->winSize > 0 ? w->base : nullptr;
    return MPI_SUCCESS;
  }
  if (rank == MPI_PROC_NULL) {
    rank = 0;
    for (int i = 0; i < w->size; ++i)
      if (w->sizes[static_cast<size_t>(i)] > 0) {
        rank = i;
        break;
      }
  }
  const size_t r = static_cast<size_t>(rank);
  *size = w->sizes[r];
  *disp_unit = w->dispUnits[r];
  *static_cast<void**>(baseptr) = *size > 0 ? static_cast<char*>(w->shm) + w->shmOff[r] : nullptr;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Win_shared_query)

extern "C" int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  CCMPI_API_BEGIN("MPI_Win_create_dynamic");
  return createWindow(kFunc, comm, info, MPI_WIN_FLAVOR_DYNAMIC, 0, 1, win,
                      [](Window&) { return MPI_SUCCESS; });
}
CCMPI_MPI_ALIAS(MPI_Win_create_dynamic)

extern "C" int PMPI_Win_attach(MPI_Win win, void* base, MPI_Aint size) {
  CCMPI_API_BEGIN("MPI_Win_attach");
  WIN_OR_RAISE(w, win);
  if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
    return raiseWin(w, kFunc, MPI_ERR_RMA_FLAVOR, "memory is attached to dynamic windows only");
  if (size < 0) return raiseWin(w, kFunc, MPI_ERR_SIZE, "size is negative");
  if (!base && size > 0) return raiseWin(w, kFunc, MPI_ERR_ARG, "base is NULL");
  w->attached.emplace_back(reinterpret_cast<uint64_t>(base), static_cast<uint64_t>(size));
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Win_attach)

extern "C" int PMPI_Win_detach(MPI_Win win, const void* base) {
  CCMPI_API_BEGIN("MPI_Win_detach");
  WIN_OR_RAISE(w, win);
  if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
    return raiseWin(w, kFunc, MPI_ERR_RMA_FLAVOR, "memory is detached from dynamic windows only");
  for (auto it = w->attached.begin(); it != w->attached.end(); ++it)
    if (it->first == reinterpret_cast<uint64_t>(base)) {
      w->attached.erase(it);
      return MPI_SUCCESS;
    }
  return raiseWin(w, kFunc, MPI_ERR_RMA_ATTACH, "no memory attached at %p", base);
}
CCMPI_MPI_ALIAS(MPI_Win_detach)

extern "C" int PMPI_Win_free(MPI_Win* win) {
  CCMPI_API_BEGIN("MPI_Win_free");
  if (!win) return api::raisef(kFunc, MPI_ERR_ARG, "win pointer is NULL");
  WIN_OR_RAISE(w, *win);
  if (w->started || w->posted || w->lockAll)
    return raiseWin(w, kFunc, MPI_ERR_RMA_SYNC, "the window is in an access or exposure epoch");
  for (int l : w->lockedAs)
    if (l) return raiseWin(w, kFunc, MPI_ERR_RMA_SYNC, "a lock on the window is held");
  waitGets(*w);
  PMPI_Barrier(w->comm);
  while (!w->attrs.empty()) {
    const int k = w->attrs.rbegin()->first;
    if (int rc = deleteAttr(*w, k))
      return raiseWin(w, kFunc, rc, "an attribute delete callback failed");
  }
  gByKey.erase(w->key);
  if (w->shm) munmap(w->shm, w->shmLen);
  free(w->owned);
  PMPI_Comm_free(&w->comm);
  if (w->info != MPI_INFO_NULL) PMPI_Info_free(&w->info);
  comm::releaseErrhandler(w->errhandler);
  table().remove(*win);
  *win = MPI_WIN_NULL;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Win_free)

extern "C" int PMPI_Win_get_group(MPI_Win win, MPI_Group* group) {
  CCMPI_API_BEGIN("MPI_Win_get_group");
  WIN_OR_RAISE(w, win);
  if (!group) return raiseWin(w, kFunc, MPI_ERR_ARG, "group pointer is NULL");
  return PMPI_Comm_group(w->comm, group);
}
CCMPI_MPI_ALIAS(MPI_Win_get_group)

extern "C" int PMPI_Win_set_info(MPI_Win win, MPI_Info info) {
  CCMPI_API_BEGIN("MPI_Win_set_info");
  WIN_OR_RAISE(w, win);
  int nkeys = 0;
  if (info != MPI_INFO_NULL && PMPI_Info_get_nkeys(info, &nkeys) != MPI_SUCCESS)
    return raiseWin(w, kFunc, MPI_ERR_INFO, "invalid info handle 0x%x", info);
  if (w->info == MPI_INFO_NULL) PMPI_Info_create(&w->info);
  char key[MPI_MAX_INFO_KEY + 1], value[MPI_MAX_INFO_VAL + 1];
  for (int i = 0; i < nkeys; ++i) {
    int flag = 0;
    PMPI_Info_get_nthkey(info, i, key);
    PMPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag);
    if (flag) PMPI_Info_set(w->info, key, value);
  }
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Win_set_info)

extern "C" int PMPI_Win_get_info(MPI_Win win, MPI_Info* info_used) {
  CCMPI_API_BEGIN("MPI_Win_get_info");
  WIN_OR_RAISE(w, win);
  if (!info_used) return raiseWin(w, kFunc, MPI_ERR_ARG, "info_used pointer is NULL");
  if (w->info != MPI_INFO_NULL)
    PMPI_Info_dup(w->info, info_used);
  else
    PMPI_Info_create(info_used);
  static const char* const kDefaults[][2] = {{"no_locks", "false"},
                                             {"accumulate_ordering", "rar,raw,war,waw"},
                                             {"accumulate_ops", "same_op_no_op"},
                                             {"same_size", "false"},
                                             {"same_disp_unit", "false"}};
  char value[MPI_MAX_INFO_VAL + 1];
  for (const auto& kv : kDefaults) {
    int flag = 0;
    PMPI_Info_get(*info_used, kv[0], MPI_MAX_INFO_VAL, value, &flag);
    if (!flag) PMPI_Info_set(*info_used, kv[0], kv[1]);
  }
  if (w->flavor == MPI_WIN_FLAVOR_SHARED) {
    int flag = 0;
    PMPI_Info_get(*info_used, "alloc_shared_noncontig", MPI_MAX_INFO_VAL, value, &flag);
    if (!flag) PMPI_Info_set(*info_used, "alloc_shared_noncontig", "false");
  }
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Win_get_info)

// --- names, attributes, error handlers ----------------------------------------------------

extern "C" int PMPI_Win_set_name(MPI_Win win, const char* win_name) {
  CCMPI_API_BEGIN("MPI_Win_set_name");
  WIN_OR_RAISE(w, win);
  if (!win_name) return raiseWin(w, kFunc, MPI_ERR_ARG, "win_name is NULL");
  w->name.assign(win_name, strnlen(win_name, MPI_MAX_OBJECT_NAME - 1));
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Win_set_name)

extern "C" int PMPI_Win_get_name(MPI_Win win, char* win_name, int* resultlen) {
  CCMPI_API_BEGIN("MPI_Win_get_name");
  WIN_OR_RAISE(w, win);
  if (!win_name || !resultlen) return raiseWin(w, kFunc, MPI_ERR_ARG, "NULL output argument");
  memcpy(win_name, w->name.c_str(), w->name.size() + 1);
  *resultlen = static_cast<int>(w->name.size());
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Win_get_name)

extern "C" int PMPI_Win_create_keyval(MPI_Win_copy_attr_function* win_copy_attr_fn,
                                      MPI_Win_delete_attr_function* win_delete_attr_fn,
                                      int* win_keyval, void* extra_state) {
  CCMPI_API_BEGIN("MPI_Win_create_keyval");
  if (!win_keyval) return api::raisef(kFunc, MPI_ERR_ARG, "win_keyval pointer is NULL");
  WinKeyval k;
  k.copy = win_copy_attr_fn;
  k.del = win_delete_attr_fn;
  k.extra = extra_state;
  *win_keyval = gNextKeyval++;
  gKeyvals[*win_keyval] = k;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Win_create_keyval)

extern "C" int PMPI_Win_free_keyval(int* win_keyval) {
  CCMPI_API_BEGIN("MPI_Win_free_keyval");
  if (!win_keyval) return api::raisef(kFunc, MPI_ERR_ARG, "win_keyval pointer is NULL");
  if (!gKeyvals.count(*win_keyval))
    return api::raisef(kFunc, MPI_ERR_KEYVAL, "%d is not a window keyval", *win_keyval);
  releaseKeyval(*win_keyval);
  *win_keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Win_free_keyval)

extern "C" int PMPI_Win_set_attr(MPI_Win win, int win_keyval, void* attribute_val) {
  CCMPI_API_BEGIN("MPI_Win_set_attr");
  WIN_OR_RAISE(w, win);
  if (!gKeyvals.count(win_keyval))
    return raiseWin(w, kFunc, MPI_ERR_KEYVAL, "%d is not a window keyval%s", win_keyval,
                    predefinedKeyval(win_keyval) ? " that can be set" : "");
  if (w->attrs.count(win_keyval)) {
    if (int rc = deleteAttr(*w, win_keyval))
      return raiseWin(w, kFunc, rc, "the attribute delete callback failed");
  }
  ++gKeyvals[win_keyval].refs;
  w->attrs[win_keyval] = attribute_val;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Win_set_attr)

extern "C" int PMPI_Win_get_attr(MPI_Win win, int win_keyval, void* attribute_val, int* flag) {
  CCMPI_API_BEGIN("MPI_Win_get_attr");
  WIN_OR_RAISE(w, win);
  if (!attribute_val || !flag) return raiseWin(w, kFunc, MPI_ERR_ARG, "NULL output argument");
  void** out = static_cast<void**>(attribute_val);
  *flag = 1;
  switch (win_keyval) {
    case MPI_WIN_BASE:
      *out = w->base;
      return MPI_SUCCESS;
    case MPI_WIN_SIZE:
      *out = &w->winSize;
      return MPI_SUCCESS;
    case MPI_WIN_DISP_UNIT:
      *out = &w->dispUnit;
      return MPI_SUCCESS;
    case MPI_WIN_CREATE_FLAVOR:
      *out = &w->flavor;
      return MPI_SUCCESS;
    case MPI_WIN_MODEL:
      *out = &w->model;
      return MPI_SUCCESS;
    default:
      break;
  }
  *flag = 0;
  if (!gKeyvals.count(win_keyval))
    return raiseWin(w, kFunc, MPI_ERR_KEYVAL, "%d is not a window keyval", win_keyval);
  auto it = w->attrs.find(win_keyval);
  if (it != w->attrs.end()) {
    *out = it->second;
    *flag = 1;
  }
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Win_get_attr)

extern "C" int PMPI_Win_delete_attr(MPI_Win win, int win_keyval) {
  CCMPI_API_BEGIN("MPI_Win_delete_attr");
  WIN_OR_RAISE(w, win);
  if (!gKeyvals.count(win_keyval))
    return raiseWin(w, kFunc, MPI_ERR_KEYVAL, "%d is not a window keyval", win_keyval);
  if (int rc = deleteAttr(*w, win_keyval))
    return raiseWin(w, kFunc, rc, "the attribute delete callback failed");
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Win_delete_attr)

extern "C" int PMPI_Win_create_errhandler(MPI_Win_errhandler_function* win_errhandler_fn,
                                          MPI_Errhandler* errhandler) {
  CCMPI_API_BEGIN("MPI_Win_create_errhandler");
  if (!win_errhandler_fn) return api::raisef(kFunc, MPI_ERR_ARG, "error handler function is NULL");
  if (!errhandler) return api::raisef(kFunc, MPI_ERR_ARG, "errhandler pointer is NULL");
  *errhandler = comm::newWinErrhandler(win_errhandler_fn);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Win_create_errhandler)

extern "C" int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler) {
  CCMPI_API_BEGIN("MPI_Win_set_errhandler");
  WIN_OR_RAISE(w, win);
  comm::Errhandler* e = comm::lookupErrhandler(errhandler);
  if (!e) return raiseWin(w, kFunc, MPI_ERR_ARG, "invalid error handler handle 0x%x", errhandler);
  if (!e->predefined && e->kind != comm::Errhandler::Kind::kUserWin)
    return raiseWin(w, kFunc, MPI_ERR_ARG, "error handler 0x%x was not created for windows",
                    errhandler);
  comm::retainErrhandler(errhandler);
  comm::releaseErrhandler(w->errhandler);
  w->errhandler = errhandler;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Win_set_errhandler)

extern "C" int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler* errhandler) {
  CCMPI_API_BEGIN("MPI_Win_get_errhandler");
  WIN_OR_RAISE(w, win);
  if (!errhandler) return raiseWin(w, kFunc, MPI_ERR_ARG, "errhandler pointer is NULL");
  comm::retainErrhandler(w->errhandler);
  *errhandler = w->errhandler;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Win_get_errhandler)

extern "C" int PMPI_Win_call_errhandler(MPI_Win win, int errorcode) {
  CCMPI_API_BEGIN("MPI_Win_call_errhandler");
  WIN_OR_RAISE(w, win);
  dispatch(w, errorcode);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Win_call_errhandler)

// --- communication ------------------------------------------------------------------------

extern "C" int PMPI_Put(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Win win) {
  CCMPI_API_BEGIN("MPI_Put");
  return rmaOp(kFunc, win,
               args(kPut, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                    target_count, target_datatype),
               nullptr);
}
CCMPI_MPI_ALIAS(MPI_Put)

extern "C" int PMPI_Rput(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                         int target_rank, MPI_Aint target_disp, int target_count,
                         MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Rput");
  if (!request) return api::raisef(kFunc, MPI_ERR_ARG, "request pointer is NULL");
  return rmaOp(kFunc, win,
               args(kPut, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                    target_count, target_datatype),
               request);
}
CCMPI_MPI_ALIAS(MPI_Rput)

namespace {
OpArgs getArgs(void* origin_addr, int64_t origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, int64_t target_count,
               MPI_Datatype target_datatype) {
  OpArgs a = args(kGet, nullptr, 0, MPI_DATATYPE_NULL, target_rank, target_disp, target_count,
                  target_datatype);
  a.rbuf = origin_addr;
  a.rcount = origin_count;
  a.rtype = origin_datatype;
  return a;
}
}  // namespace

extern "C" int PMPI_Get(void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Win win) {
  CCMPI_API_BEGIN("MPI_Get");
  return rmaOp(kFunc, win,
               getArgs(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                       target_count, target_datatype),
               nullptr);
}
CCMPI_MPI_ALIAS(MPI_Get)

extern "C" int PMPI_Rget(void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                         int target_rank, MPI_Aint target_disp, int target_count,
                         MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Rget");
  if (!request) return api::raisef(kFunc, MPI_ERR_ARG, "request pointer is NULL");
  return rmaOp(kFunc, win,
               getArgs(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                       target_count, target_datatype),
               request);
}
CCMPI_MPI_ALIAS(MPI_Rget)

extern "C" int PMPI_Accumulate(const void* origin_addr, int origin_count,
                               MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                               int target_count, MPI_Datatype target_datatype, MPI_Op op,
                               MPI_Win win) {
  CCMPI_API_BEGIN("MPI_Accumulate");
  OpArgs a = args(kAcc, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                  target_count, target_datatype);
  a.op = op;
  return rmaOp(kFunc, win, a, nullptr);
}
CCMPI_MPI_ALIAS(MPI_Accumulate)

extern "C" int PMPI_Raccumulate(const void* origin_addr, int origin_count,
                                MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                                int target_count, MPI_Datatype target_datatype, MPI_Op op,
                                MPI_Win win, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Raccumulate");
  if (!request) return api::raisef(kFunc, MPI_ERR_ARG, "request pointer is NULL");
  OpArgs a = args(kAcc, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                  target_count, target_datatype);
  a.op = op;
  return rmaOp(kFunc, win, a, request);
}
CCMPI_MPI_ALIAS(MPI_Raccumulate)

namespace {
OpArgs getAccArgs(const void* origin_addr, int64_t origin_count, MPI_Datatype origin_datatype,
                  void* result_addr, int64_t result_count, MPI_Datatype result_datatype,
                  int target_rank, MPI_Aint target_disp, int64_t target_count,
                  MPI_Datatype target_datatype, MPI_Op op) {
  OpArgs a = args(kGetAcc, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                  target_count, target_datatype);
  if (op == MPI_NO_OP) {
    a.obuf = nullptr;
    a.ocount = 0;
    a.otype = MPI_DATATYPE_NULL;
  }
  a.rbuf = result_addr;
  a.rcount = result_count;
  a.rtype = result_datatype;
  a.op = op;
  return a;
}
}  // namespace

extern "C" int PMPI_Get_accumulate(const void* origin_addr, int origin_count,
                                   MPI_Datatype origin_datatype, void* result_addr,
                                   int result_count, MPI_Datatype result_datatype, int target_rank,
                                   MPI_Aint target_disp, int target_count,
                                   MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  CCMPI_API_BEGIN("MPI_Get_accumulate");
  return rmaOp(
      kFunc, win,
      getAccArgs(origin_addr, origin_count, origin_datatype, result_addr, result_count,
                 result_datatype, target_rank, target_disp, target_count, target_datatype, op),
      nullptr);
}
CCMPI_MPI_ALIAS(MPI_Get_accumulate)

extern "C" int PMPI_Rget_accumulate(const void* origin_addr, int origin_count,
                                    MPI_Datatype origin_datatype, void* result_addr,
                                    int result_count, MPI_Datatype result_datatype, int target_rank,
                                    MPI_Aint target_disp, int target_count,
                                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                                    MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Rget_accumulate");
  if (!request) return api::raisef(kFunc, MPI_ERR_ARG, "request pointer is NULL");
  return rmaOp(
      kFunc, win,
      getAccArgs(origin_addr, origin_count, origin_datatype, result_addr, result_count,
                 result_datatype, target_rank, target_disp, target_count, target_datatype, op),
      request);
}
CCMPI_MPI_ALIAS(MPI_Rget_accumulate)

extern "C" int PMPI_Fetch_and_op(const void* origin_addr, void* result_addr, MPI_Datatype datatype,
                                 int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win) {
  CCMPI_API_BEGIN("MPI_Fetch_and_op");
  return rmaOp(kFunc, win,
               getAccArgs(origin_addr, 1, datatype, result_addr, 1, datatype, target_rank,
                          target_disp, 1, datatype, op),
               nullptr);
}
CCMPI_MPI_ALIAS(MPI_Fetch_and_op)

extern "C" int PMPI_Compare_and_swap(const void* origin_addr, const void* compare_addr,
                                     void* result_addr, MPI_Datatype datatype, int target_rank,
                                     MPI_Aint target_disp, MPI_Win win) {
  CCMPI_API_BEGIN("MPI_Compare_and_swap");
  OpArgs a = args(kCas, origin_addr, 1, datatype, target_rank, target_disp, 1, datatype);
  a.rbuf = result_addr;
  a.rcount = 1;
  a.rtype = datatype;
  a.compare = compare_addr;
  WIN_OR_RAISE(w, win);
  datatype::Datatype* dt = datatype::lookup(datatype);
  if (!dt || !dt->predefined() || dt->basicKind() == datatype::BasicKind::kFloat ||
      dt->basicKind() == datatype::BasicKind::kComplex ||
      dt->basicKind() == datatype::BasicKind::kPair)
    return raiseWin(w, kFunc, MPI_ERR_TYPE,
                    "MPI_Compare_and_swap takes a predefined integer, logical or byte type");
  if (!origin_addr || !compare_addr || !result_addr)
    return raiseWin(w, kFunc, MPI_ERR_ARG, "NULL buffer");
  return rmaOp(kFunc, win, a, nullptr);
}
CCMPI_MPI_ALIAS(MPI_Compare_and_swap)

// --- synchronization ----------------------------------------------------------------------

extern "C" int PMPI_Win_fence(int assert, MPI_Win win) {
  CCMPI_API_BEGIN("MPI_Win_fence");
  WIN_OR_RAISE(w, win);
  if (int rc = checkAssert(w, kFunc, assert)) return rc;
  if (w->started || w->posted || w->lockAll)
    return raiseWin(w, kFunc, MPI_ERR_RMA_SYNC, "the window is in another kind of epoch");
  const uint64_t epoch = ++w->fenceEpoch;
  for (int t = 0; t < w->size; ++t) control(*w, t, kFence);
  waitFor([w, epoch] {
    for (uint64_t f : w->fenceFrom)
      if (f < epoch) return false;
    return w->pendingGets == 0;
  });
  // Everything that targeted this rank is in; the barrier makes it so everywhere before any
  // operation of the next epoch starts (an operation to a rank that has not seen all of the
  // last epoch's yet could overtake them on another connection).
  if (!(assert& MPI_MODE_NOSUCCEED)) PMPI_Barrier(w->comm);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Win_fence)

extern "C" int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win) {
  CCMPI_API_BEGIN("MPI_Win_start");
  WIN_OR_RAISE(w, win);
  if (int rc = checkAssert(w, kFunc, assert)) return rc;
  if (w->started) return raiseWin(w, kFunc, MPI_ERR_RMA_SYNC, "an access epoch is open already");
  bool ok;
  std::vector<int> ranks = groupRanks(*w, group, &ok);
  if (!ok) return raiseWin(w, kFunc, MPI_ERR_GROUP, "the group is not a subgroup of the window's");
  waitFor([w, &ranks] {
    for (int r : ranks)
      if (w->postFrom[static_cast<size_t>(r)] == 0) return false;
    return true;
  });
  for (int r : ranks) --w->postFrom[static_cast<size_t>(r)];
  w->startGroup = std::move(ranks);
  w->started = true;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Win_start)

extern "C" int PMPI_Win_complete(MPI_Win win) {
  CCMPI_API_BEGIN("MPI_Win_complete");
  WIN_OR_RAISE(w, win);
  if (!w->started) return raiseWin(w, kFunc, MPI_ERR_RMA_SYNC, "no access epoch (MPI_Win_start)");
  waitGets(*w);
  for (int r : w->startGroup) control(*w, r, kComplete);
  w->startGroup.clear();
  w->started = false;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Win_complete)

extern "C" int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win) {
  CCMPI_API_BEGIN("MPI_Win_post");
  WIN_OR_RAISE(w, win);
  if (int rc = checkAssert(w, kFunc, assert)) return rc;
  if (w->posted) return raiseWin(w, kFunc, MPI_ERR_RMA_SYNC, "an exposure epoch is open already");
  bool ok;
  std::vector<int> ranks = groupRanks(*w, group, &ok);
  if (!ok) return raiseWin(w, kFunc, MPI_ERR_GROUP, "the group is not a subgroup of the window's");
  for (int r : ranks) control(*w, r, kPost);
  w->postGroup = std::move(ranks);
  w->posted = true;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Win_post)

namespace {
bool exposureDone(const Window& w) {
  for (int r : w.postGroup)
    if (w.completeFrom[static_cast<size_t>(r)] == 0) return false;
  return true;
}
void endExposure(Window& w) {
  for (int r : w.postGroup) --w.completeFrom[static_cast<size_t>(r)];
  w.postGroup.clear();
  w.posted = false;
}
}  // namespace

extern "C" int PMPI_Win_wait(MPI_Win win) {
  CCMPI_API_BEGIN("MPI_Win_wait");
  WIN_OR_RAISE(w, win);
  if (!w->posted) return raiseWin(w, kFunc, MPI_ERR_RMA_SYNC, "no exposure epoch (MPI_Win_post)");
  waitFor([w] { return exposureDone(*w); });
  endExposure(*w);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Win_wait)

extern "C" int PMPI_Win_test(MPI_Win win, int* flag) {
  CCMPI_API_BEGIN("MPI_Win_test");
  WIN_OR_RAISE(w, win);
  if (!flag) return raiseWin(w, kFunc, MPI_ERR_ARG, "flag pointer is NULL");
  if (!w->posted) return raiseWin(w, kFunc, MPI_ERR_RMA_SYNC, "no exposure epoch (MPI_Win_post)");
  progress::engine().poll(0);
  *flag = exposureDone(*w) ? 1 : 0;
  if (*flag) endExposure(*w);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Win_test)

namespace {
void lockOne(Window& w, int rank, int type) {
  control(w, rank, kLock, type);
  waitFor([&w, rank] { return w.grants[static_cast<size_t>(rank)] > 0; });
  --w.grants[static_cast<size_t>(rank)];
  w.lockedAs[static_cast<size_t>(rank)] = type;
}
}  // namespace

extern "C" int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win) {
  CCMPI_API_BEGIN("MPI_Win_lock");
  WIN_OR_RAISE(w, win);
  if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE)
    return raiseWin(w, kFunc, MPI_ERR_LOCKTYPE, "lock type %d is not valid", lock_type);
  if (int rc = checkRank(w, kFunc, rank, true)) return rc;
  if (int rc = checkAssert(w, kFunc, assert)) return rc;
  if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
  if (w->lockAll || w->lockedAs[static_cast<size_t>(rank)])
    return raiseWin(w, kFunc, MPI_ERR_RMA_SYNC, "rank %d is locked already", rank);
  lockOne(*w, rank, lock_type);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Win_lock)

extern "C" int PMPI_Win_unlock(int rank, MPI_Win win) {
  CCMPI_API_BEGIN("MPI_Win_unlock");
  WIN_OR_RAISE(w, win);
  if (int rc = checkRank(w, kFunc, rank, true)) return rc;
  if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
  if (!w->lockedAs[static_cast<size_t>(rank)] || w->lockAll)
    return raiseWin(w, kFunc, MPI_ERR_RMA_SYNC, "rank %d is not locked (MPI_Win_lock)", rank);
  flushTargets(*w, {rank}, kUnlock);
  w->lockedAs[static_cast<size_t>(rank)] = 0;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Win_unlock)

extern "C" int PMPI_Win_lock_all(int assert, MPI_Win win) {
  CCMPI_API_BEGIN("MPI_Win_lock_all");
  WIN_OR_RAISE(w, win);
  if (int rc = checkAssert(w, kFunc, assert)) return rc;
  if (w->lockAll)
    return raiseWin(w, kFunc, MPI_ERR_RMA_SYNC, "MPI_Win_lock_all was called already");
  for (int l : w->lockedAs)
    if (l) return raiseWin(w, kFunc, MPI_ERR_RMA_SYNC, "a lock on the window is held already");
  for (int t = 0; t < w->size; ++t) control(*w, t, kLock, MPI_LOCK_SHARED);
  waitFor([w] {
    for (int g : w->grants)
      if (g == 0) return false;
    return true;
  });
  for (int t = 0; t < w->size; ++t) {
    --w->grants[static_cast<size_t>(t)];
    w->lockedAs[static_cast<size_t>(t)] = MPI_LOCK_SHARED;
  }
  w->lockAll = true;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Win_lock_all)

extern "C" int PMPI_Win_unlock_all(MPI_Win win) {
  CCMPI_API_BEGIN("MPI_Win_unlock_all");
  WIN_OR_RAISE(w, win);
  if (!w->lockAll) return raiseWin(w, kFunc, MPI_ERR_RMA_SYNC, "no MPI_Win_lock_all epoch");
  flushTargets(*w, allRanks(*w), kUnlock);
  for (int& l : w->lockedAs) l = 0;
  w->lockAll = false;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Win_unlock_all)

namespace {
int flushCall(const char* kFunc, MPI_Win win, int rank, bool local) {
  WIN_OR_RAISE(w, win);
  if (rank != -2) {
    if (int rc = checkRank(w, kFunc, rank, true)) return rc;
    if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
    if (!w->lockedAs[static_cast<size_t>(rank)])
      return raiseWin(w, kFunc, MPI_ERR_RMA_SYNC, "rank %d is not locked", rank);
  }
  // Puts and accumulates are complete locally once issued (their data is copied).
  if (local) {
    waitGets(*w);
    return MPI_SUCCESS;
  }
  std::vector<int> targets;
  if (rank == -2) {
    for (int t = 0; t < w->size; ++t)
      if (w->lockedAs[static_cast<size_t>(t)]) targets.push_back(t);
  } else {
    targets.push_back(rank);
  }
  flushTargets(*w, targets, kFlush);
  return MPI_SUCCESS;
}
}  // namespace

extern "C" int PMPI_Win_flush(int rank, MPI_Win win) {
  CCMPI_API_BEGIN("MPI_Win_flush");
  return flushCall(kFunc, win, rank, false);
}
CCMPI_MPI_ALIAS(MPI_Win_flush)

extern "C" int PMPI_Win_flush_all(MPI_Win win) {
  CCMPI_API_BEGIN("MPI_Win_flush_all");
  return flushCall(kFunc, win, -2, false);
}
CCMPI_MPI_ALIAS(MPI_Win_flush_all)

extern "C" int PMPI_Win_flush_local(int rank, MPI_Win win) {
  CCMPI_API_BEGIN("MPI_Win_flush_local");
  return flushCall(kFunc, win, rank, true);
}
CCMPI_MPI_ALIAS(MPI_Win_flush_local)

extern "C" int PMPI_Win_flush_local_all(MPI_Win win) {
  CCMPI_API_BEGIN("MPI_Win_flush_local_all");
  return flushCall(kFunc, win, -2, true);
}
CCMPI_MPI_ALIAS(MPI_Win_flush_local_all)

extern "C" int PMPI_Win_sync(MPI_Win win) {
  CCMPI_API_BEGIN("MPI_Win_sync");
  WIN_OR_RAISE(w, win);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  progress::engine().poll(0);
  (void)w;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Win_sync)

// --- large-count forms (MPI-4.0) ----------------------------------------------------------

// BEGIN large-count block (generated by tools/gen_large_count.py; do not edit)
extern "C" int PMPI_Put_c(const void* origin_addr, MPI_Count origin_count,
                          MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                          MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win) {
  CCMPI_API_BEGIN("MPI_Put_c");
  return rmaOp(kFunc, win,
               args(kPut, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                    target_count, target_datatype),
               nullptr);
}
CCMPI_MPI_ALIAS(MPI_Put_c)

extern "C" int PMPI_Get_c(void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                          int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                          MPI_Datatype target_datatype, MPI_Win win) {
  CCMPI_API_BEGIN("MPI_Get_c");
  return rmaOp(kFunc, win,
               getArgs(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                       target_count, target_datatype),
               nullptr);
}
CCMPI_MPI_ALIAS(MPI_Get_c)

extern "C" int PMPI_Accumulate_c(const void* origin_addr, MPI_Count origin_count,
                                 MPI_Datatype origin_datatype, int target_rank,
                                 MPI_Aint target_disp, MPI_Count target_count,
                                 MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  CCMPI_API_BEGIN("MPI_Accumulate_c");
  OpArgs a = args(kAcc, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                  target_count, target_datatype);
  a.op = op;
  return rmaOp(kFunc, win, a, nullptr);
}
CCMPI_MPI_ALIAS(MPI_Accumulate_c)

extern "C" int PMPI_Get_accumulate_c(const void* origin_addr, MPI_Count origin_count,
                                     MPI_Datatype origin_datatype, void* result_addr,
                                     MPI_Count result_count, MPI_Datatype result_datatype,
                                     int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                                     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  CCMPI_API_BEGIN("MPI_Get_accumulate_c");
  return rmaOp(
      kFunc, win,
      getAccArgs(origin_addr, origin_count, origin_datatype, result_addr, result_count,
                 result_datatype, target_rank, target_disp, target_count, target_datatype, op),
      nullptr);
}
CCMPI_MPI_ALIAS(MPI_Get_accumulate_c)

extern "C" int PMPI_Rput_c(const void* origin_addr, MPI_Count origin_count,
                           MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                           MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win,
                           MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Rput_c");
  if (!request) return api::raisef(kFunc, MPI_ERR_ARG, "request pointer is NULL");
  return rmaOp(kFunc, win,
               args(kPut, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                    target_count, target_datatype),
               request);
}
CCMPI_MPI_ALIAS(MPI_Rput_c)

extern "C" int PMPI_Rget_c(void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                           int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                           MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Rget_c");
  if (!request) return api::raisef(kFunc, MPI_ERR_ARG, "request pointer is NULL");
  return rmaOp(kFunc, win,
               getArgs(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                       target_count, target_datatype),
               request);
}
CCMPI_MPI_ALIAS(MPI_Rget_c)

extern "C" int PMPI_Raccumulate_c(const void* origin_addr, MPI_Count origin_count,
                                  MPI_Datatype origin_datatype, int target_rank,
                                  MPI_Aint target_disp, MPI_Count target_count,
                                  MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                                  MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Raccumulate_c");
  if (!request) return api::raisef(kFunc, MPI_ERR_ARG, "request pointer is NULL");
  OpArgs a = args(kAcc, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                  target_count, target_datatype);
  a.op = op;
  return rmaOp(kFunc, win, a, request);
}
CCMPI_MPI_ALIAS(MPI_Raccumulate_c)

extern "C" int PMPI_Rget_accumulate_c(const void* origin_addr, MPI_Count origin_count,
                                      MPI_Datatype origin_datatype, void* result_addr,
                                      MPI_Count result_count, MPI_Datatype result_datatype,
                                      int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                                      MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                                      MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Rget_accumulate_c");
  if (!request) return api::raisef(kFunc, MPI_ERR_ARG, "request pointer is NULL");
  return rmaOp(
      kFunc, win,
      getAccArgs(origin_addr, origin_count, origin_datatype, result_addr, result_count,
                 result_datatype, target_rank, target_disp, target_count, target_datatype, op),
      request);
}
CCMPI_MPI_ALIAS(MPI_Rget_accumulate_c)

extern "C" int PMPI_Win_create_c(void* base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                                 MPI_Comm comm, MPI_Win* win) {
  CCMPI_API_BEGIN("MPI_Win_create_c");
  return createWindow(kFunc, comm, info, MPI_WIN_FLAVOR_CREATE, size, disp_unit, win,
                      [base](Window& w) {
                        w.base = base;
                        return MPI_SUCCESS;
                      });
}
CCMPI_MPI_ALIAS(MPI_Win_create_c)

extern "C" int PMPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                                   void* baseptr, MPI_Win* win) {
  CCMPI_API_BEGIN("MPI_Win_allocate_c");
  if (!baseptr) return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "baseptr is NULL");
  const int rc = createWindow(kFunc, comm, info, MPI_WIN_FLAVOR_ALLOCATE, size, disp_unit, win,
                              [size](Window& w) { return allocateWindow(w, size); });
  if (rc == MPI_SUCCESS) *static_cast<void**>(baseptr) = table().get(*win)->base;
  return rc;
}
CCMPI_MPI_ALIAS(MPI_Win_allocate_c)

extern "C" int PMPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                                          MPI_Comm comm, void* baseptr, MPI_Win* win) {
  CCMPI_API_BEGIN("MPI_Win_allocate_shared_c");
  if (!baseptr) return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "baseptr is NULL");
  const int rc = createWindow(kFunc, comm, info, MPI_WIN_FLAVOR_SHARED, size, disp_unit, win,
                              [size](Window& w) { return setupShared(w, size); });
  if (rc == MPI_SUCCESS) *static_cast<void**>(baseptr) = table().get(*win)->base;
  return rc;
}
CCMPI_MPI_ALIAS(MPI_Win_allocate_shared_c)

extern "C" int PMPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint* size, MPI_Aint* disp_unit,
                                       void* baseptr) {
  CCMPI_API_BEGIN("MPI_Win_shared_query_c");
  WIN_OR_RAISE(w, win);
  if (int rc = checkRank(w, kFunc, rank, true)) return rc;
  if (!size || !disp_unit || !baseptr)
    return raiseWin(w, kFunc, MPI_ERR_ARG, "NULL output argument");
  if (w->flavor != MPI_WIN_FLAVOR_SHARED) {
    // MPI-4.1: other windows share only the caller's own memory with it.
    const bool mine = rank == w->rank || (rank == MPI_PROC_NULL && w->size == 1);
    *size = mine ? w->winSize : 0;
    *disp_unit = mine ? w->dispUnit : w->dispUnits[static_cast<size_t>(rank < 0 ? 0 : rank)];
    *static_cast<void**>(baseptr) = mine && w->winSize > 0 ? w->base : nullptr;
    return MPI_SUCCESS;
  }
  if (rank == MPI_PROC_NULL) {
    rank = 0;
    for (int i = 0; i < w->size; ++i)
      if (w->sizes[static_cast<size_t>(i)] > 0) {
        rank = i;
        break;
      }
  }
  const size_t r = static_cast<size_t>(rank);
  *size = w->sizes[r];
  *disp_unit = w->dispUnits[r];
  *static_cast<void**>(baseptr) = *size > 0 ? static_cast<char*>(w->shm) + w->shmOff[r] : nullptr;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Win_shared_query_c)
// END large-count block
