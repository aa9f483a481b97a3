/* Passive-target progress while the target computes (run with CCMPI_ASYNC_PROGRESS=1):
 * the last rank spins in a loop that makes no MPI call until the value the others put into
 * its window (under exclusive locks, each waiting for the previous one's through a get)
 * has arrived; the loop gives up after kLimit seconds, which fails the test. Without a
 * progress thread the puts, gets and lock grants would wait for the target's next MPI call.
 * Each origin also reads the target's "computing" flag through MPI_Get while it spins, so
 * the operations provably completed during the compute loop.
 *
 * The loop reads window memory that the progress thread writes: the MPI standard allows
 * that polling (the unified memory model), but in C11 terms it is a data race, which
 * ThreadSanitizer reports. In a ThreadSanitizer build the loop's accesses are excluded
 * with its dynamic annotations (a suppression by function name fails when TSan cannot
 * restore the earlier access's stack), so a race anywhere else (inside ccmpi between its
 * own threads) is still reported. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

#include "check.h"

enum { kLimit = 30 };

#if defined(__SANITIZE_THREAD__)
#define RMA_ASYNC_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RMA_ASYNC_TSAN 1
#endif
#endif
#ifdef RMA_ASYNC_TSAN
void AnnotateIgnoreReadsBegin(const char* file, int line);
void AnnotateIgnoreReadsEnd(const char* file, int line);
void AnnotateIgnoreWritesBegin(const char* file, int line);
void AnnotateIgnoreWritesEnd(const char* file, int line);
#define IGNORE_BEGIN()                             \
  do {                                             \
    AnnotateIgnoreReadsBegin(__FILE__, __LINE__);  \
    AnnotateIgnoreWritesBegin(__FILE__, __LINE__); \
  } while (0)
#define IGNORE_END()                             \
  do {                                           \
    AnnotateIgnoreWritesEnd(__FILE__, __LINE__); \
    AnnotateIgnoreReadsEnd(__FILE__, __LINE__);  \
  } while (0)
#else
#define IGNORE_BEGIN() ((void)0)
#define IGNORE_END() ((void)0)
#endif

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The target: computes (spins without MPI calls) until its window holds `want`, then
 * clears its "computing" flag. */
static void rma_async_target_computes(volatile int* mem, int want) {
  const double start = now();
  IGNORE_BEGIN();
  while (mem[0] != want && now() - start < kLimit) {
  }
  const int got = mem[0];
  mem[1] = 0;
  IGNORE_END();
  CHECK(got == want, "after %d s of computing the window holds %d, not %d", kLimit, got, want);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2, "needs 2 ranks");
  const int target = size - 1;
  volatile int* mem;
  MPI_Win win;
  MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, (void*)&mem, &win);
  mem[0] = 0; /* sum of what the origins put */
  mem[1] = 1; /* 1 while the target computes */
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == target) {
    rma_async_target_computes(mem, (size - 1) * size / 2); /* origins r put r + 1 */
  } else {
    /* Origin r waits until r origins have added theirs, then adds r + 1 (ordered by the
     * exclusive lock and the get inside it). */
    int done = 0;
    for (;;) {
      int cur = 0, computing = 0;
      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win);
      MPI_Get(&cur, 1, MPI_INT, target, 0, 1, MPI_INT, win);
      MPI_Get(&computing, 1, MPI_INT, target, 1, 1, MPI_INT, win);
      MPI_Win_flush(target, win);
      CHECK(computing == 1, "the target stopped computing before rank %d added its value", rank);
      if (cur == rank * (rank + 1) / 2) {
        int v = cur + rank + 1;
        MPI_Put(&v, 1, MPI_INT, target, 0, 1, MPI_INT, win);
        done = 1;
      }
      MPI_Win_unlock(target, win);
      if (done) break;
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  test_pass("rma_async");
  MPI_Finalize();
  return 0;
}
