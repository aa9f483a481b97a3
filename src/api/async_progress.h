#pragma once
// The progress thread: drives the progress engine while the program computes outside MPI,
// so active-message handlers (passive-target RMA: locks, gets, accumulates) run without the
// target calling MPI. CCMPI_ASYNC_PROGRESS: 1 = from MPI_Init; auto (the default) = from
// the creation of the first window (a program without windows never has it); 0 = never.
//
// The engine is not thread-safe, so the thread drives it only while no MPI call runs:
// every entry point (CCMPI_API_BEGIN) holds one process-wide mutex for its duration (a
// nested call counts once) while the thread is on. The thread takes the mutex, polls what
// is ready, announces a sleep to its shared-memory peers (as a blocked call does, so their
// traffic rings the doorbell) and sleeps outside the mutex on the engine's epoll set: it
// wakes when traffic arrives and costs nothing while idle. A call that drove the engine
// renews the announcement when it returns (a poll withdraws it), or wakes the thread when
// work is pending. While off, the guard costs one relaxed load and a branch per call.
#include <atomic>

namespace ccmpi::api {

extern std::atomic<bool> gAsyncProgress;
bool enterApiSlow();
void leaveApiSlow();
void leaveUnheld();

class ApiGuard {
 public:
  ApiGuard() {
    if (__builtin_expect(gAsyncProgress.load(std::memory_order_relaxed), 0)) held_ = enterApiSlow();
  }
  ~ApiGuard() {
    if (__builtin_expect(held_, 0))
      leaveApiSlow();
    else if (__builtin_expect(gAsyncProgress.load(std::memory_order_relaxed), 0))
      leaveUnheld();  // the call that started the thread
  }
  ApiGuard(const ApiGuard&) = delete;
  ApiGuard& operator=(const ApiGuard&) = delete;

 private:
  bool held_ = false;
};

// Starts the thread if CCMPI_ASYNC_PROGRESS is 1 (MPI_Init, outside any guarded call).
void startAsyncProgress();
// Starts it unless CCMPI_ASYNC_PROGRESS is 0, from inside an MPI call that began while it
// was off (window creation, MPI_Init model only): the call takes the mutex now and lets it
// go when it returns.
void startAsyncProgressInCall();
// Stops it (MPI_Finalize).
void stopAsyncProgress();

}  // namespace ccmpi::api
