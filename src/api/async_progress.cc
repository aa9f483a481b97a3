// The progress thread (see async_progress.h).
#include "api/async_progress.h"

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
Tunable<int64_t> kAsyncUs("CCMPI_ASYNC_PROGRESS_US", 200,
                          "microseconds the progress thread sleeps between polls");

std::mutex gMutex;
thread_local int tDepth = 0;  // guarded calls this thread is inside (the thread: 1 when polling)
thread_local bool tAdopted = false;  // startAsyncProgressInCall took the mutex for this call
std::thread::id gThreadId;
std::atomic<bool> gStop{false};
std::thread gThread;

void loop() {
  const int64_t us = kAsyncUs.get() > 0 ? kAsyncUs.get() : 1;
  timespec ts{static_cast<time_t>(us / 1000000), static_cast<long>(us % 1000000) * 1000};
  while (!gStop.load(std::memory_order_acquire)) {
    if (gMutex.try_lock()) {
      tDepth = 1;  // handlers that call MPI (MPIX_Am_send) do not lock again
      // Shared memory is looked at on every poll, sockets on every few: poll a few times.
      for (int i = 0; i < 32; ++i) progress::engine().poll(0);
      tDepth = 0;
      gMutex.unlock();
    }
    nanosleep(&ts, nullptr);
  }
}

}  // namespace

std::atomic<bool> gAsyncProgress{false};

bool enterApiSlow() {
  if (tDepth++ == 0) gMutex.lock();
  return true;
}

void leaveApiSlow() {
  if (--tDepth == 0) gMutex.unlock();
}

void leaveUnheld() {
  if (tAdopted && tDepth == 1) {
    tAdopted = false;
    tDepth = 0;
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
  gMutex.unlock();
}
void reacquireAfterSleep() {
  if (tSavedDepth == 0) return;
  gMutex.lock();
  tDepth = tSavedDepth;
  tSavedDepth = 0;
}

// At exit (MPI_Abort, an exit without MPI_Finalize): a joinable thread would end the
// process with std::terminate.
void stopAtExit() {
  if (!gThread.joinable()) return;
  gStop.store(true, std::memory_order_release);
  if (std::this_thread::get_id() == gThreadId)
    gThread.detach();
  else
    gThread.join();
}

void launch() {
  static bool registered = false;
  if (!registered) {
    registered = true;
    atexit(stopAtExit);
  }
  gStop.store(false);
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
  gThread.join();
  gAsyncProgress.store(false);
  progress::engine().setOutsideSleepHooks(nullptr, nullptr);
  // The caller's guard still holds the mutex and lets it go on return.
}

}  // namespace ccmpi::api
