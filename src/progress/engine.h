#pragma once
// The progress engine: one epoll set for every file descriptor the library watches
// (TCP connections, the listener, the PMI socket; later UDP multicast sockets).
// Handlers run on arrival, inside whichever MPI call is driving progress.
//
// A blocked MPI call spins (polling without sleeping) for CCMPI_SPIN_US, then sleeps in
// epoll_wait, so many ranks sharing few cores do not starve each other.
#include <cstdint>
#include <vector>

namespace ccmpi::progress {

class EventHandler {
 public:
  virtual ~EventHandler() = default;
  // `events` is the epoll event mask (EPOLLIN, EPOLLOUT, EPOLLERR, EPOLLHUP ...).
  virtual void onEvent(uint32_t events) = 0;
};

class Engine {
 public:
  int init();
  void shutdown();
  // `traffic`: the descriptor carries messages (a connection, a multicast socket), not
  // only rare events (a listener, the doorbell, process watches): while one is
  // registered, a spinning poll asks epoll every kTrafficPollEvery calls, otherwise every
  // kQuietPollEvery (see poll()).
  int add(int fd, uint32_t events, EventHandler* h, bool traffic = false);
  int modify(int fd, uint32_t events, EventHandler* h);
  void remove(int fd);
  // Dispatches ready events once. timeoutMs: 0 = do not sleep, -1 = sleep until an event.
  // Returns the number of events handled.
  int poll(int timeoutMs) { return pollImpl(timeoutMs, false); }

  // Work run by every poll(), before it waits and after it dispatches: nonblocking
  // collective schedules advance here, so they progress inside whatever MPI call drives
  // progress. A hook returns true when it made progress; poll() then does not sleep.
  using Hook = bool (*)();
  void addHook(Hook h);
  // A transport polled without a system call (shared memory): poll() runs it first on
  // every call and asks epoll only every few calls while it keeps finding work or the
  // caller does not want to sleep; before sleeping, prepareSleep() announces the sleep to
  // the peers (false: work arrived meanwhile, do not sleep) and endSleep() withdraws it.
  struct FastPath {
    int (*poll)() = nullptr;
    bool (*prepareSleep)() = nullptr;
    void (*endSleep)() = nullptr;
  };
  void setFastPath(const FastPath& f) { fast_ = f; }
  // Work that is due at a time rather than on an event (multicast pacing, repair
  // requests after silence) asks that the current poll() sleep no later than `ns`
  // (nowNs() clock). Hooks ask anew on every poll: the request lasts one poll.
  void wakeBy(int64_t ns) {
    if (wakeNs_ == 0 || ns < wakeNs_) wakeNs_ = ns;
  }

  // Drives progress while done() does not hold, for the spin budget: spins politely.
  // Oversubscribed (more ranks on this host than cores, or on the machine when several
  // hosts of the job share it), every idle poll hands the core to a rank that may be the
  // one we wait for; with a core each, the spin pauses, and after kPoliteAfter idle polls
  // yields too (a rank that has not answered by then may be waiting for this core: other
  // work of the machine took the one it had). The clock is read every 16 idle polls (the
  // budget counts from the first read). Returns done().
  template <typename Done>
  bool spinUntil(Done&& done) {
    const int64_t budget = spinBudgetNs();
    int64_t deadline = 0;  // set at the first clock read: a short wait reads no clock
    unsigned idle = 0;
    lastSpinNs_ = 0;
    while (!done()) {
      if (budget <= 0) return false;
      if (poll(0) != 0) {
        lastSpinNs_ = 0;  // the gap to the next clock read includes that work
        continue;
      }
      ++idle;
      if (yieldsEveryIdlePoll() || idle > kPoliteAfter)
        yieldCpu();
      else
        cpuRelax();
      if ((idle & 15) == 0) {
        const int64_t now = nowNs();
        // 16 idle polls take a microsecond or two: a longer gap is time the rank spent
        // off its CPU while it wanted to run (see setStarvedHook).
        // So does a spin that has gone on, one wait after another, for 100 ms since the
        // last look: a rank kept from its CPU between its waits is seen there too.
        if (starved_ && ((lastSpinNs_ != 0 && now - lastSpinNs_ > kStarvedGapNs) ||
                         now - lastStarvedCheckNs_ > kStarvedCheckNs)) {
          lastStarvedCheckNs_ = now;
          starved_();
        }
        lastSpinNs_ = now;
        if (deadline == 0)
          deadline = now + budget;
        else if (now >= deadline)
          return done();
      }
    }
    return true;
  }

  // Drives progress until done() holds: spins for the spin budget, then sleeps.
  template <typename Done>
  void waitUntil(Done&& done) {
    if (spinUntil(done)) return;
    if (starved_) starved_();
    while (!done()) poll(kSleepSliceMs);
  }

  // Around a sleep outside the engine (a node collective's futex wait): the progress
  // thread (api/async_progress.h), when it runs, may poll the engine meanwhile.
  using SleepHook = void (*)();
  void setOutsideSleepHooks(SleepHook before, SleepHook after) {
    beforeSleep_ = before;
    afterSleep_ = after;
  }
  void beforeOutsideSleep() {
    if (beforeSleep_) beforeSleep_();
  }
  void afterOutsideSleep() {
    if (afterSleep_) afterSleep_();
  }

  // For a thread that sleeps on the engine's events without driving it meanwhile (the
  // progress thread, api/async_progress.h). All but waitFd() are called by whoever drives
  // the engine at the time.
  // Dispatches whatever is ready once, epoll included (poll(0) asks epoll only every few
  // calls), without sleeping. Returns the work done (events, shared-memory frames, hooks
  // that progressed).
  int pollOnce() { return pollImpl(0, true); }
  // Announces a sleep to the shared-memory peers as poll() does before epoll_wait, so their
  // traffic rings the doorbell, which is in the epoll set: waitFd() becomes readable. False:
  // work arrived meanwhile, poll instead. *wakeNs: when the sleep must end (wakeBy; 0 =
  // no limit).
  bool armOutsideWait(int64_t* wakeNs);
  // Withdraws the announcement (whoever then drives the engine).
  void disarmOutsideWait();
  // The announcement holds: no poll ran since (a poll may withdraw it, or consume the
  // doorbell's wake-up).
  bool outsideWaitArmed() const { return outsideArmed_; }
  // Readable (POLLIN) while a registered descriptor has an event.
  int waitFd() const { return epfd_; }

  // Called where a wait hints that the rank may be kept from its CPU: a spin that finds
  // itself descheduled for more than kStarvedGapNs between two clock reads, and a wait
  // that outlasts the spin and goes to sleep (a rank woken on a CPU that another process
  // holds waits for that one's time slice). The runtime then looks at how long the rank
  // waited for a CPU (runtime/affinity.h lets go of a binding when that is long). The hook
  // limits its own cost. nullptr: nothing to do.
  using StarvedHook = void (*)();
  void setStarvedHook(StarvedHook h) { starved_ = h; }
  static constexpr int64_t kStarvedGapNs = 1000000;
  static constexpr int64_t kStarvedCheckNs = 100000000;

  // Idle polls a rank with a core of its own spins before it yields the core on every idle
  // poll (a few tens of microseconds).
  static constexpr unsigned kPoliteAfter = 256;

  static void yieldCpu();
  static void cpuRelax();
  // Monotonic clock in nanoseconds.
  static int64_t nowNs();
  int64_t spinBudgetNs();
  // More ranks on this host than cores.
  bool crowded() const { return crowded_; }
  // A spinning wait hands the core to another process on every idle poll (ranks outnumber
  // the cores of their host, or of the machine several hosts of the job share).
  bool yieldsEveryIdlePoll() const { return crowded_ || sharedMachine_; }
  // Set by the runtime once it knows how many ranks share this host.
  void setLocalRanks(int localRanks);
  // Set by the runtime once the job's ranks per CPU on its busiest machine are known
  // (ranks of every host sharing one kernel, as on an emulated cluster; -1 = unknown).
  void setMachineRanksPerCore(int ranksPerCore);

 private:
  static constexpr int kSleepSliceMs = 1000;
  static constexpr unsigned kTrafficPollEvery = 32;
  static constexpr unsigned kQuietPollEvery = 4096;
  int epfd_ = -1;
  StarvedHook starved_ = nullptr;
  int64_t lastSpinNs_ = 0;
  int64_t lastStarvedCheckNs_ = 0;
  int localRanks_ = 1;
  int machineRanksPerCore_ = -1;
  bool crowded_ = false;  // more ranks on this host than cores
  // The ranks of this host have a core each, but the machine runs more of the job's ranks
  // than it has cores: other hosts of the job share its CPUs (an emulated cluster).
  bool sharedMachine_ = false;
  void updateWaitPolicy();
  int64_t spinNs_ = -1;
  std::vector<int> trafficFds_;
  std::vector<uint64_t> events_;
  std::vector<Hook> hooks_;
  int64_t wakeNs_ = 0;  // see wakeBy (0 = none)
  FastPath fast_;
  SleepHook beforeSleep_ = nullptr;
  SleepHook afterSleep_ = nullptr;
  unsigned skipped_ = 0;       // non-sleeping polls answered by the fast path alone
  bool outsideArmed_ = false;  // see outsideWaitArmed
  bool runHooks();
  int pollImpl(int timeoutMs, bool always);
};

Engine& engine();

}  // namespace ccmpi::progress
