/* The progress thread wakes on traffic (api/async_progress.h): rank 1 computes without MPI
 * calls while rank 0 sends it active messages; each handler must run promptly, run by the
 * progress thread (started by the window's creation). Each round: a barrier, rank 0 waits
 * 2 ms (rank 1 is computing by then, its progress thread asleep) and sends its clock;
 * the handler records the delay from the send to the handler (both ranks read the same
 * machine's CLOCK_MONOTONIC). The median over the rounds must stay below kBoundMs, far above
 * a wake-up on a loaded machine, and every handler must run within kLimit seconds (a lost
 * wake-up). Then rank 1 sleeps kIdleMs without MPI calls: the CPU time its process used
 * meanwhile (the progress thread's, which sleeps until traffic arrives: 0.03-0.1 ms
 * measured; a thread polling every 200 us used 8-25 ms) must stay below kIdleCpuMs. */
#include <mpi.h>
#include <mpix_ccmpi.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"

enum { kRounds = 25, kLimit = 10, kBoundMs = 20, kIdleMs = 300, kIdleCpuMs = 4 };

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* Written by the handler on the progress thread, read by the main thread: an atomic
 * (volatile is no synchronization; ThreadSanitizer reported the race). */
static atomic_int arrived_;
static double delay_[kRounds];

static void on_ping(int source, const void* payload, int len, void* state) {
  (void)state;
  CHECK(source == 0 && len == (int)sizeof(double), "source %d, length %d", source, len);
  double sent;
  memcpy(&sent, payload, sizeof sent);
  const int a = atomic_load(&arrived_);
  if (a < kRounds) delay_[a] = now() - sent;
  atomic_store(&arrived_, a + 1);
}

static int by_value(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size == 2, "needs 2 ranks");
  int* mem;
  MPI_Win win;
  MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
  int id;
  CHECK_MPI(MPIX_Am_register(MPI_COMM_WORLD, on_ping, NULL, &id));
  for (int r = 0; r < kRounds; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
      sleep_ms(2);
      const double t = now();
      CHECK_MPI(MPIX_Am_send(MPI_COMM_WORLD, 1, id, &t, sizeof t));
    } else {
      const double start = now();
      while (atomic_load(&arrived_) == r && now() - start < kLimit) {
      }
      CHECK(atomic_load(&arrived_) == r + 1, "round %d: no handler ran within %d s of computing", r,
            kLimit);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    qsort(delay_, kRounds, sizeof delay_[0], by_value);
    const double median = delay_[kRounds / 2] * 1e3, max = delay_[kRounds - 1] * 1e3;
    const double c0 = cpu();
    sleep_ms(kIdleMs);
    const double idle = (cpu() - c0) * 1e3;
    printf("arrival to handler: min %.3f median %.3f max %.3f ms; idle %d ms: %.3f ms CPU\n",
           delay_[0] * 1e3, median, max, kIdleMs, idle);
    CHECK(median < kBoundMs, "median delay %.3f ms (bound %d ms)", median, kBoundMs);
    CHECK(idle < kIdleCpuMs, "%.3f ms of CPU while idle for %d ms (bound %d ms)", idle, kIdleMs,
          kIdleCpuMs);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  test_pass("am_async_latency");
  MPI_Finalize();
  return 0;
}
