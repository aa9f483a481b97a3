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
constexpr size_t kControl = 4096;
// Control words, each on its own cache line.
constexpr size_t kArrived = 0;           // uint64: arrivals at barriers, ever
constexpr size_t kRelease = kLine;       // uint32 futex word: the last barrier released
constexpr size_t kSleepers = 2 * kLine;  // uint32: ranks asleep on kRelease

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

inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

}  // namespace

int Segment::create(comm::Comm& c, size_t slotBytes, std::unique_ptr<Segment>* out) {
  out->reset();
  const int n = c.size;
  slotBytes = (slotBytes + kLine - 1) / kLine * kLine;
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
      if (ftruncate(fd, static_cast<off_t>(bytes)) == 0)
        base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
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
  *out = std::move(s);
  return MPI_SUCCESS;
}

Segment::~Segment() {
  if (base_) munmap(base_, bytes_);
}

void Segment::barrier() {
  const uint64_t k = ++barriers_;
  auto arrived = word<uint64_t>(base_, kArrived);
  auto release = word<uint32_t>(base_, kRelease);
  auto sleepers = word<uint32_t>(base_, kSleepers);
  const uint32_t want = static_cast<uint32_t>(k);
  if (arrived.fetch_add(1, std::memory_order_acq_rel) + 1 == k * static_cast<uint64_t>(slots_)) {
    release.store(want, std::memory_order_seq_cst);
    if (sleepers.load(std::memory_order_seq_cst) != 0)
      futexWakeAll(reinterpret_cast<uint32_t*>(static_cast<unsigned char*>(base_) + kRelease));
    return;
  }
  auto done = [&] {
    return static_cast<int32_t>(release.load(std::memory_order_acquire) - want) >= 0;
  };
  for (int i = 0; i < 64; ++i) {
    if (done()) return;
    cpuRelax();
  }
  for (int i = 0; i < 4; ++i) {
    if (done()) return;
    sched_yield();
  }
  while (!done()) {
    progress::engine().poll(0);
    sleepers.fetch_add(1, std::memory_order_seq_cst);
    const uint32_t seen = release.load(std::memory_order_seq_cst);
    if (static_cast<int32_t>(seen - want) < 0)
      futexWait(reinterpret_cast<uint32_t*>(static_cast<unsigned char*>(base_) + kRelease), seen);
    sleepers.fetch_sub(1, std::memory_order_seq_cst);
  }
}

}  // namespace ccmpi::coll::node
