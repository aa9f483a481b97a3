// The shared-memory segment of a one-host communicator (see segment.h).
#include "coll/node/segment.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <mpi.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "base/log.h"
#include "coll/algorithms.h"
#include "progress/engine.h"

namespace ccmpi::coll::node {
namespace {

constexpr size_t kLine = 64;
// Control words, each on its own cache line.
constexpr size_t kSleepers = 2 * kLine;   // uint32: ranks asleep on kEvents
constexpr size_t kEvents = 3 * kLine;     // uint32 futex word: bumped by every post
constexpr size_t kPublished = 4 * kLine;  // uint64: the last phase published + 1
constexpr size_t kReleased = 5 * kLine;   // uint64: the last barrier rank 0 released
// A line per rank, written by that rank only: phases ended, barriers arrived at.
constexpr size_t kSeen = 8 * kLine;
constexpr size_t kArrived = kSeen + 8;

size_t controlBytes(int n) {
  return (kSeen + static_cast<size_t>(n) * kLine + 4095) / 4096 * 4096;
}

template <typename T>
std::atomic_ref<T> word(void* base, size_t off) {
  return std::atomic_ref<T>(*reinterpret_cast<T*>(static_cast<unsigned char*>(base) + off));
}

void futexWait(uint32_t* addr, uint32_t seen) {
  timespec ts{0, 1000 * 1000};  // 1 ms: then poll the network again
  syscall(SYS_futex, addr, FUTEX_WAIT, seen, &ts, nullptr, 0);
}
void futexWakeAll(uint32_t* addr) {
  syscall(SYS_futex, addr, FUTEX_WAKE, 0x7fffffff, nullptr, nullptr, 0);
}

}  // namespace

int Segment::create(comm::Comm& c, size_t slotBytes, std::unique_ptr<Segment>* out) {
  out->reset();
  const int n = c.size;
  slotBytes = (slotBytes + kLine - 1) / kLine * kLine;
  const size_t kControl = controlBytes(n);
  const size_t bytes = kControl + 2 * static_cast<size_t>(n) * slotBytes;
  char name[64] = {};
  int failed = 0;
  void* base = MAP_FAILED;
  if (c.rank == 0) {
    uint64_t rnd = 0;
    for (int attempt = 0; attempt < 8; ++attempt) {
      if (getrandom(&rnd, sizeof rnd, 0) != sizeof rnd) rnd ^= static_cast<uint64_t>(clock());
      snprintf(name, sizeof name, "/ccmpi-%d-%016llx", static_cast<int>(getpid()),
               static_cast<unsigned long long>(rnd));
      const int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
      if (fd < 0 && errno == EEXIST) continue;
      if (fd < 0) {
        log::info("node collectives: shm_open(%s): %s; shared-memory algorithms off", name,
                  strerror(errno));
        break;
      }
      // posix_fallocate reserves the pages now: a full /dev/shm fails here, cleanly,
      // rather than with SIGBUS at first touch.
      const int err = posix_fallocate(fd, 0, static_cast<off_t>(bytes));
      if (err == 0)
        base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      else
        errno = err;
      if (base == MAP_FAILED) {
        log::info("node collectives: sizing or mapping %zu bytes of %s: %s", bytes, name,
                  strerror(errno));
        shm_unlink(name);
      }
      close(fd);
      break;
    }
    if (base == MAP_FAILED) name[0] = 0;
  }
  if (int rc = bcastBinomial(name, sizeof name, MPI_CHAR, 0, c)) {
    if (base != MAP_FAILED) munmap(base, bytes);
    if (c.rank == 0 && name[0]) shm_unlink(name);
    return rc;
  }
  if (!name[0]) return MPI_SUCCESS;  // rank 0 could not make it: no segment anywhere
  if (c.rank != 0) {
    const int fd = shm_open(name, O_RDWR, 0600);
    if (fd >= 0) {
      base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      close(fd);
    }
    if (base == MAP_FAILED) {
      log::info("node collectives: mapping %s: %s; shared-memory algorithms off", name,
                strerror(errno));
      failed = 1;
    }
  }
  int anyFailed = 0;
  const int rc = allreduceRecursiveDoubling(&failed, &anyFailed, 1, MPI_INT, MPI_MAX, c);
  if (c.rank == 0) shm_unlink(name);  // everyone mapped it (or gave up): the name goes
  if (rc || anyFailed) {
    if (base != MAP_FAILED) munmap(base, bytes);
    return rc;
  }
  std::unique_ptr<Segment> s(new Segment());
  s->base_ = base;
  s->bytes_ = bytes;
  s->data_ = static_cast<unsigned char*>(base) + kControl;
  s->slotBytes_ = slotBytes;
  s->slots_ = n;
  s->rank_ = c.rank;
  *out = std::move(s);
  return MPI_SUCCESS;
}

Segment::~Segment() {
  if (base_) munmap(base_, bytes_);
}

void Segment::post() {
  word<uint32_t>(base_, kEvents).fetch_add(1, std::memory_order_seq_cst);
  if (word<uint32_t>(base_, kSleepers).load(std::memory_order_seq_cst) != 0)
    futexWakeAll(reinterpret_cast<uint32_t*>(static_cast<unsigned char*>(base_) + kEvents));
}

bool Segment::anySleeper() const {
  return word<uint32_t>(base_, kSleepers).load(std::memory_order_seq_cst) != 0;
}

bool Segment::allReached(size_t off, uint64_t v) const {
  for (int r = 0; r < slots_; ++r)
    if (word<uint64_t>(base_, off + static_cast<size_t>(r) * kLine)
            .load(std::memory_order_seq_cst) < v)
      return false;
  return true;
}

template <typename Pred>
void Segment::waitUntil(Pred ready) {
  // First the progress engine's spin (progress/engine.h), which keeps the network moving:
  // where ranks outnumber cores it yields the core on every look, so the condition is seen
  // on the waiter's next turn, without a wake-up. Then sleep on the futex.
  if (progress::engine().spinUntil(ready)) return;
  auto events = word<uint32_t>(base_, kEvents);
  auto sleepers = word<uint32_t>(base_, kSleepers);
  for (bool first = true; !ready(); first = false) {
    // After each millisecond slept (the futex wait below times out), the network too:
    // pollOnce asks epoll, where a spinning poll(0) asks it only every few thousand calls
    // when no connection carries traffic, and a rank asleep here would not answer a
    // connection meanwhile. Before the first sleep a poll(0) is enough: the spin has just
    // polled, and a system call on every sleep of a crowded host's barriers costs.
    if (first)
      progress::engine().poll(0);
    else
      progress::engine().pollOnce();
    sleepers.fetch_add(1, std::memory_order_seq_cst);
    const uint32_t seen = events.load(std::memory_order_seq_cst);
    if (!ready()) {
      progress::engine().beforeOutsideSleep();  // the progress thread may poll meanwhile
      futexWait(reinterpret_cast<uint32_t*>(static_cast<unsigned char*>(base_) + kEvents), seen);
      progress::engine().afterOutsideSleep();
    }
    sleepers.fetch_sub(1, std::memory_order_seq_cst);
  }
}

uint64_t Segment::arrive() {
  const uint64_t k = ++barriers_;
  word<uint64_t>(base_, kArrived + static_cast<size_t>(rank_) * kLine)
      .store(k, std::memory_order_seq_cst);
  // Only the arrival that completes the barrier wakes the sleepers (one wake-up per
  // barrier, not one per rank), and only when someone sleeps: the common case reads one
  // word, not every rank's counter. Stores and loads are sequentially consistent: of two
  // ranks arriving together the later one sees the other's counter, and a rank about to
  // sleep counts itself among the sleepers before it looks at the counters once more.
  if (anySleeper() && allReached(kArrived, k)) post();
  return k;
}

void Segment::awaitRelease(uint64_t ticket) {
  // Every rank has arrived at barrier `ticket` (a rank that arrives without waiting may
  // already be at a later one: the counters only grow).
  waitUntil([&] { return allReached(kArrived, ticket); });
}

void Segment::barrier() {
  // Fan-in, fan-out: rank 0 waits for every arrival, then releases the others. It leaves
  // first, so a collective rooted there that follows starts before the others look for
  // it (a broadcast's readers then find its data published), and the others watch one
  // word instead of every rank's counter.
  const uint64_t k = arrive();
  auto released = word<uint64_t>(base_, kReleased);
  if (rank_ != 0) {
    waitUntil([&] { return released.load(std::memory_order_acquire) >= k; });
    return;
  }
  awaitRelease(k);
  released.store(k, std::memory_order_seq_cst);
  if (anySleeper()) post();
}

uint64_t Segment::beginPhase(bool writes) {
  const uint64_t p = phases_++;
  // Every rank ended phase p - 2 (stored as p - 1: phases ended).
  if (writes && p >= 2) waitUntil([&] { return allReached(kSeen, p - 1); });
  return p;
}

void Segment::endPhase(uint64_t phase) {
  word<uint64_t>(base_, kSeen + static_cast<size_t>(rank_) * kLine)
      .store(phase + 1, std::memory_order_seq_cst);
  // Waiters wait for every rank to end a phase: the last one to end it wakes them.
  if (anySleeper() && allReached(kSeen, phase + 1)) post();
}

void Segment::publish(uint64_t phase) {
  word<uint64_t>(base_, kPublished).store(phase + 1, std::memory_order_seq_cst);
  post();
}

void Segment::awaitPublished(uint64_t phase) {
  auto published = word<uint64_t>(base_, kPublished);
  waitUntil([&] { return published.load(std::memory_order_acquire) >= phase + 1; });
}

}  // namespace ccmpi::coll::node
