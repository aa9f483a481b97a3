// epoll-based progress engine.
#include "progress/engine.h"

#include <sched.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>

#include "base/log.h"
#include "base/tunables.h"

namespace ccmpi::progress {
namespace {

Tunable<int64_t> kSpinUs("CCMPI_SPIN_US", -1,
                         "microseconds a blocked call polls before sleeping in epoll_wait; "
                         "-1 = auto (20000 when the ranks of this host have a core each but "
                         "the machine runs more of the job's ranks than it has cores, as "
                         "the hosts of an emulated cluster do; else 300 when the rank is "
                         "alone on its host, 1000 when the ranks of this host have a core "
                         "each, or two share a core and no machine of the job holds more "
                         "than two per core, else 50; ranks that outnumber the cores of "
                         "their host or machine yield the core on every idle poll)");

constexpr int64_t kSharedMachineSpinUs = 20000;

constexpr int kMaxEvents = 64;

}  // namespace

int64_t Engine::nowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

void Engine::yieldCpu() {
  sched_yield();
}

void Engine::cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

void Engine::setLocalRanks(int localRanks) {
  localRanks_ = localRanks > 0 ? localRanks : 1;
  updateWaitPolicy();
}

void Engine::setMachineRanksPerCore(int ranksPerCore) {
  machineRanksPerCore_ = ranksPerCore;
  updateWaitPolicy();
}

void Engine::updateWaitPolicy() {
  crowded_ = localRanks_ > sysconf(_SC_NPROCESSORS_ONLN);
  sharedMachine_ = !crowded_ && machineRanksPerCore_ > 1;
  spinNs_ = -1;
}

int64_t Engine::spinBudgetNs() {
  if (spinNs_ < 0) {
    int64_t us = kSpinUs.get();
    if (us < 0) {
      const long cores = sysconf(_SC_NPROCESSORS_ONLN);
      // Oversubscribed, a short spin (which yields the core every few polls) still beats
      // sleeping: the peer that will answer gets the core at once, and the answer is
      // picked up without a wake-up. Measured with OSU 8 B on 2 cores (3 runs each,
      // 2026-11-24): 4 ranks, 20 -> 50 us: allreduce 32-53 -> 28-36 us, alltoall 47-51 ->
      // 34-41 us; 16 ranks, 0 -> 20-200 us: alltoall 340-453 -> 325-389 us, no point worse.
      // Alone on its host, a rank waits for the network only: a collective step there
      // is a round trip of a few hundred microseconds, and sleeping through it costs a
      // wake-up on top. Measured on 29 emulated hosts at 100 Mbit/s (2 cores, one rank per
      // host, 3 runs each, 2026-11-25): Scatterv of 1 KiB to 5 ranks after a barrier,
      // median of the per-call maximum 578-631 us at 50, 552-559 at 150, 461-532 at 300;
      // Bcast 8 B 293-528 vs 560-617 us, Alltoall 8 B (16 hosts) 599-616 vs 655-732 us;
      // Alltoall 64-256 KiB, Allgather 1-64 KiB and Alltoallv 2 KiB within 1-2%.
      // With shared memory (2026-11-26, quiet machine, OSU): 2 ranks on the 2 cores, 1 B
      // latency with a 50 us spin was bimodal, 0.5-0.7 us or 1.2-8.1 us per run: a wait
      // that outlasts the spin sleeps, and waking an idle virtual CPU takes longer than a
      // message, so the partner sleeps too, and so on; 300 or 1000 us: 0.84-1.12 in every
      // run. Each rank has its core, so the spin costs nobody. 16 ranks on 2 cores (2 runs
      // each, us): spin 0 / 20: osu_multi_lat 1 B 33-35 / 38-45, osu_allreduce 8 B 66-72 /
      // 66-81, osu_alltoall 8 B 61-65 / 83-85, osu_allgather 64 KiB 405-433 / 411-765:
      // with many ranks per core a spin takes the core from the rank that would answer.
      // Then, yielding on every idle turn instead of every other one (16 ranks, 2 runs, us,
      // spin 0 / 50): multi_lat 31-38 / 28-37, allreduce 8 B 69-72 / 61-69, alltoall 8 B
      // 70 / 56-73, bcast 8 B 18 / 8-13, allgather 64 KiB 343-449 / 297-392; 8 ranks,
      // sparse Alltoallv 4 x 1 KiB 39-45 (every other turn, 20 us) -> 32-35.
      // At two ranks per core (4 ranks here, 2026-11-27) a 50 us spin lost to Open MPI in
      // IOR's collective MPI-IO, whose ranks meet in an allgather between 64 KiB writes
      // that contend for the file's lock: 30 iterations each, median write MiB/s, spin
      // 50 / 300 / 2000: 1171 / 1367 / 1448, Open MPI (romio321, yielding spin) 1428; the
      // wake-ups (futex_wake) took 5% of the CPU. OSU 8 B at 4 ranks (3 runs, us), spin 50
      // / 1000: allreduce 13.4 / 7.0, alltoall 7.5 / 10.3, allgather 8.1 / 7.8 (2000),
      // barrier 9.7 / 8.3, bcast 0.5 / 0.7: no worse. With two ranks per core, the core a
      // spinning rank yields goes to the one other rank, likely the one it waits for. Not
      // when other hosts of the job share this machine's CPUs (an emulated cluster of
      // several ranks per host): there the machine's ranks per core decide.
      // Hosts of the job that share this machine's CPUs (an emulated cluster: one rank per
      // host, 8 or 16 hosts on 2 cores) wait for the network, and a rank asleep there is
      // woken late: the wake-up waits for a core, and while every rank sleeps the CPUs go
      // idle, and the shaper's timers and the wake-ups then start from an idle CPU. Such a
      // rank keeps yielding for 20 ms instead (as Open MPI's ranks do with
      // mpi_yield_when_idle, without end). Measured on 8 and 16 emulated hosts at 25
      // Mbit/s, one rank each, 2026-11-28, runs alternating (docs/cluster.md, "Waiting on a
      // shared machine"): sleeping after 300 us / yielding for 20 ms / Open MPI: HPCG 3.1
      // 24^3 GFLOP/s 0.82-0.87 / 0.88-0.95 / 0.91-0.96; LULESH -s 12 FOM 536-547 / 560-575 /
      // 544-555; Alltoall on 16 hosts (the old default against this), 8 B 3.4-3.8 ms /
      // 1.6-1.8, 1 KiB 11.7-12.0 / 5.6-5.8, 64 KiB unchanged (358-376).
      // Waits longer than that (a rank held up by another's work) still sleep.
      const bool twoPerCore = localRanks_ <= 2 * cores && machineRanksPerCore_ <= 2;
      us = sharedMachine_                       ? kSharedMachineSpinUs
           : localRanks_ == 1                   ? 300
           : localRanks_ <= cores || twoPerCore ? 1000
                                                : 50;
    }
    spinNs_ = us * 1000;
  }
  return spinNs_;
}

int Engine::init() {
  if (epfd_ >= 0) return 0;
  epfd_ = epoll_create1(EPOLL_CLOEXEC);
  if (epfd_ < 0) return -1;
  return 0;
}

void Engine::shutdown() {
  if (epfd_ >= 0) close(epfd_);
  epfd_ = -1;
}

int Engine::add(int fd, uint32_t events, EventHandler* h, bool traffic) {
  epoll_event ev{};
  ev.events = events;
  ev.data.ptr = h;
  const int rc = epoll_ctl(epfd_, EPOLL_CTL_ADD, fd, &ev);
  if (rc == 0 && traffic) trafficFds_.push_back(fd);
  return rc;
}

int Engine::modify(int fd, uint32_t events, EventHandler* h) {
  epoll_event ev{};
  ev.events = events;
  ev.data.ptr = h;
  return epoll_ctl(epfd_, EPOLL_CTL_MOD, fd, &ev);
}

void Engine::remove(int fd) {
  if (epfd_ >= 0) epoll_ctl(epfd_, EPOLL_CTL_DEL, fd, nullptr);
  std::erase(trafficFds_, fd);
}

void Engine::addHook(Hook h) {
  for (Hook x : hooks_)
    if (x == h) return;
  hooks_.push_back(h);
}

bool Engine::runHooks() {
  bool progressed = false;
  // By index: a hook may add another (a send that opens a connection watches it), which
  // can reallocate the vector.
  for (size_t i = 0; i < hooks_.size(); ++i) progressed |= hooks_[i]();
  return progressed;
}

int Engine::pollImpl(int timeoutMs, bool always) {
  if (epfd_ < 0) return 0;
  outsideArmed_ = false;
  int fast = fast_.poll ? fast_.poll() : 0;
  const bool hooked = !hooks_.empty() && runHooks();
  if (hooked) timeoutMs = 0;
  if (fast > 0) timeoutMs = 0;
  // A spinning caller polls the shared-memory rings on every call but pays for an
  // epoll_wait (a system call) only on every 32nd while connections are open (a message
  // from a local peer is then seen within a few hundred nanoseconds, one from the network
  // a little later), on every 4096th when only rare events can come (measured with OSU 1 B
  // latency, 2 ranks on the 2 cores, 14 runs each, 2026-11-26: every call -> every 256th:
  // median 0.29 -> 0.27 us, minimum 0.22 -> 0.19). An epoll_wait costs about 0.7 us here,
  // more than a round trip: every 256th still meant 13,000 calls in 200,000 round trips,
  // every 4096th 500. (The multicast socket of a job on one host was counted as traffic
  // until 2026-11-26, which made it an epoll_wait in nearly every wait of such a job.)
  const unsigned every = trafficFds_.empty() ? kQuietPollEvery : kTrafficPollEvery;
  if (timeoutMs == 0 && fast_.poll && !always && (++skipped_ & (every - 1)) != 0) {
    return fast;
  }
  bool announced = false;
  if (timeoutMs != 0 && fast_.prepareSleep) {
    if (fast_.prepareSleep())
      announced = true;
    else
      timeoutMs = 0;
  }
  // After prepareSleep, which may ask for an early wake-up itself.
  const int64_t wake = wakeNs_;
  wakeNs_ = 0;
  epoll_event evs[kMaxEvents];
  int n;
  if (wake != 0 && timeoutMs != 0) {
    // Sleep to the earlier of the timeout and the requested wake-up, to the nanosecond
    // (a pacing interval is far below epoll_wait's millisecond).
    int64_t left = std::max<int64_t>(wake - nowNs(), 0);
    if (timeoutMs > 0) left = std::min<int64_t>(left, int64_t{timeoutMs} * 1000000);
    const timespec ts{static_cast<time_t>(left / 1000000000), static_cast<long>(left % 1000000000)};
    n = epoll_pwait2(epfd_, evs, kMaxEvents, &ts, nullptr);
  } else {
    n = epoll_wait(epfd_, evs, kMaxEvents, timeoutMs);
  }
  if (n < 0) {
    if (errno != EINTR) log::error("epoll_wait failed: errno %d", errno);
    n = 0;
  }
  if (announced) fast_.endSleep();
  for (int i = 0; i < n; ++i) static_cast<EventHandler*>(evs[i].data.ptr)->onEvent(evs[i].events);
  if (fast_.poll) n += fast_.poll() + fast;
  if (!hooks_.empty() && runHooks() && always) ++n;
  return always && hooked ? n + 1 : n;
}

bool Engine::armOutsideWait(int64_t* wakeNs) {
  if (fast_.prepareSleep && !fast_.prepareSleep()) return false;
  *wakeNs = wakeNs_;  // after prepareSleep, which may ask for an early wake-up itself
  outsideArmed_ = true;
  return true;
}

void Engine::disarmOutsideWait() {
  if (fast_.endSleep) fast_.endSleep();
  outsideArmed_ = false;
}

Engine& engine() {
  static Engine e;
  return e;
}

}  // namespace ccmpi::progress
