// The progress thread (see async_progress.h).
#include "api/async_progress.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <mutex>
#include <string>
#include <thread>

#include "base/tunables.h"
#include "progress/engine.h"
#include "runtime/runtime.h"

namespace ccmpi::api {
namespace {

Tunable<std::string> kAsync("CCMPI_ASYNC_PROGRESS", "auto",
                            "a progress thread runs active-message handlers (passive-target RMA) "
                            "while the program computes outside MPI: 1 = from MPI_Init, auto = "
                            "from the first window's creation, 0 = never");

std::mutex gMutex;
thread_local int tDepth = 0;  // guarded calls this thread is inside (the thread: 1 when polling)
thread_local bool tAdopted = false;  // startAsyncProgressInCall took the mutex for this call
std::thread::id gThreadId;
std::atomic<bool> gStop{false};
std::atomic<int> gWaiting{0};  // calls waiting for the mutex
bool gOut = false;             // the thread sleeps outside the mutex (guarded by gMutex)
int gWakeFd = -1;              // an eventfd that wakes the thread
std::thread gThread;

// Polls this many times at most before letting the mutex go, so calls waiting for it get in.
constexpr int kBurst = 64;
constexpr int64_t kNoWakeFdNs = 10'000'000;

void wakeThread() {
  if (gWakeFd < 0) return;
  const uint64_t one = 1;
  (void)!::write(gWakeFd, &one, sizeof one);
}

// Sleeps until the engine has an event, the wake-up fd is written or wakeNs (0 = never).
void sleepOnEngine(int64_t wakeNs) {
  pollfd fds[2] = {{progress::engine().waitFd(), POLLIN, 0}, {gWakeFd, POLLIN, 0}};
  // Without the eventfd (it could not be made), nothing else ends the sleep: a stop is
  // seen within kNoWakeFdNs.
  if (gWakeFd < 0) {
    const int64_t cap = progress::Engine::nowNs() + kNoWakeFdNs;
    wakeNs = wakeNs == 0 ? cap : std::min(wakeNs, cap);
  }
  timespec ts{};
  const timespec* timeout = nullptr;
  if (wakeNs != 0) {
    const int64_t left = std::max<int64_t>(wakeNs - progress::Engine::nowNs(), 0);
    ts = {static_cast<time_t>(left / 1000000000), static_cast<long>(left % 1000000000)};
    timeout = &ts;
  }
  (void)::ppoll(fds, 2, timeout, nullptr);
  if (fds[1].revents & POLLIN) {
    uint64_t v;
    (void)!::read(gWakeFd, &v, sizeof v);
  }
}

// Drives the engine while no call does: polls what is ready, announces the sleep to the
// peers (their traffic then wakes the epoll set) and sleeps on the engine's descriptors
// outside the mutex. A call that drove the engine meanwhile re-announces the sleep when it
// returns, or wakes the thread (handOff).
void loop() {
  auto& eng = progress::engine();
  for (;;) {
    gMutex.lock();
    if (gStop.load(std::memory_order_acquire)) {
      gMutex.unlock();
      return;
    }
    gOut = false;
    tDepth = 1;  // handlers that call MPI (MPIX_Am_send) do not lock again
    eng.disarmOutsideWait();
    int i = 0;
    while (i < kBurst && eng.pollOnce() > 0) ++i;
    int64_t wakeNs = 0;
    const bool armed = i < kBurst && eng.armOutsideWait(&wakeNs);
    tDepth = 0;
    gOut = true;
    gMutex.unlock();
    // Work is pending: poll again, unless a call waits for the mutex (it drives the engine
    // and hands the sleep back when it returns).
    if (!armed && gWaiting.load(std::memory_order_acquire) == 0) continue;
    sleepOnEngine(armed ? wakeNs : 0);
  }
}

// Before a call lets the mutex go (returns or sleeps outside the engine): if the thread
// sleeps and the call drove the engine, the announcement may be gone (a poll withdrew it
// or consumed the doorbell): renew it, or wake the thread when work is pending or the
// engine wants a wake-up by a time.
void handOff() {
  if (!gOut) return;
  auto& eng = progress::engine();
  if (eng.outsideWaitArmed()) return;
  int64_t wakeNs = 0;
  if (!eng.armOutsideWait(&wakeNs) || wakeNs != 0) wakeThread();
}

void lockForCall() {
  gWaiting.fetch_add(1, std::memory_order_acq_rel);
  gMutex.lock();
  gWaiting.fetch_sub(1, std::memory_order_relaxed);
}

}  // namespace

std::atomic<bool> gAsyncProgress{false};

bool enterApiSlow() {
  if (tDepth++ == 0) lockForCall();
  return true;
}

void leaveApiSlow() {
  if (--tDepth == 0) {
    handOff();
    gMutex.unlock();
  }
}

void leaveUnheld() {
  if (tAdopted && tDepth == 1) {
    tAdopted = false;
    tDepth = 0;
    handOff();
    gMutex.unlock();
  }
}

namespace {

// A call that sleeps outside the engine (progress::Engine::beforeOutsideSleep) lets the
// thread poll meanwhile: it gives the mutex up and takes it back with its depth.
thread_local int tSavedDepth = 0;
void releaseForSleep() {
  if (tDepth == 0 || std::this_thread::get_id() == gThreadId) return;
  tSavedDepth = tDepth;
  tDepth = 0;
  handOff();
  gMutex.unlock();
}
void reacquireAfterSleep() {
  if (tSavedDepth == 0) return;
  lockForCall();
  tDepth = tSavedDepth;
  tSavedDepth = 0;
}

// At exit (MPI_Abort, an exit without MPI_Finalize): a joinable thread would end the
// process with std::terminate.
void stopAtExit() {
  if (!gThread.joinable()) return;
  gStop.store(true, std::memory_order_release);
  if (std::this_thread::get_id() == gThreadId) {
    gThread.detach();
    return;
  }
  if (tDepth > 0) {  // exit from inside a call: the thread needs the mutex to see the stop
    tDepth = 0;
    gMutex.unlock();
  }
  wakeThread();
  gThread.join();
}

void launch() {
  static bool registered = false;
  if (!registered) {
    registered = true;
    atexit(stopAtExit);
  }
  if (gWakeFd < 0) gWakeFd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  gStop.store(false);
  gOut = false;
  gAsyncProgress.store(true);
  gThread = std::thread(loop);
  gThreadId = gThread.get_id();
  progress::engine().setOutsideSleepHooks(releaseForSleep, reacquireAfterSleep);
}

}  // namespace

void startAsyncProgress() {
  if (kAsync.get() != "1" || gThread.joinable()) return;
  launch();
}

void startAsyncProgressInCall() {
  if (kAsync.get() == "0" || gThread.joinable() || !runtime::initialized()) return;
  gMutex.lock();
  ++tDepth;
  tAdopted = true;
  launch();
}

void stopAsyncProgress() {
  if (!gThread.joinable()) return;
  gStop.store(true, std::memory_order_release);
  // The thread takes the mutex to see the stop: the caller (MPI_Finalize) lets it go
  // meanwhile and takes it back for its guard, which lets it go on return.
  const int depth = tDepth;
  if (depth > 0) gMutex.unlock();
  wakeThread();
  gThread.join();
  if (depth > 0) gMutex.lock();
  gOut = false;
  progress::engine().disarmOutsideWait();
  gAsyncProgress.store(false);
  progress::engine().setOutsideSleepHooks(nullptr, nullptr);
}

}  // namespace ccmpi::api
