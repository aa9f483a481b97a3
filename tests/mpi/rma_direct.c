// Puts and gets on windows whose memory all members map (MPI_Win_allocate and
// MPI_Win_allocate_shared on one host) are copies by the origin (docs/rma.md): they complete
// without the target's progress. Run with CCMPI_ASYNC_PROGRESS=0, so a put sent to the
// target's handler would never be applied while the target spins outside MPI (the spin
// fails after 30 s). Also checks derived datatypes on both sides, MPI_Rget, and that
// exclusive locks still exclude (a non-atomic get-increment-put under MPI_LOCK_EXCLUSIVE
// from every rank must count every increment), and that accumulates, fetch-and-op and
// compare-and-swap (applied by the origins under the window's lock) stay atomic, and that
// accumulates of many elements, contiguous, strided and of a pair type, sum up right.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errs = 0;
#define CHECK(c, ...)                                    \
  do {                                                   \
    if (!(c)) {                                          \
      ++errs;                                            \
      fprintf(stderr, "rank %d: ", rank);                \
      fprintf(stderr, __VA_ARGS__);                      \
      fprintf(stderr, " (%s:%d)\n", __FILE__, __LINE__); \
    }                                                    \
  } while (0)

static int rank, size;

// The target (rank 1) spins on its own memory without MPI calls until the origin's put
// lands, then answers in its memory; the origin reads the answer with get + flush.
static void noTargetProgress(MPI_Win win, volatile int* mem) {
  if (rank == 0) {
    int v = 4242, got = 0;
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    MPI_Barrier(MPI_COMM_WORLD);  // the target spins from here on
    MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_flush(1, win);
    const double end = MPI_Wtime() + 30;
    while (got != 4343 && MPI_Wtime() < end) {
      MPI_Get(&got, 1, MPI_INT, 1, 1, 1, MPI_INT, win);
      MPI_Win_flush(1, win);
    }
    CHECK(got == 4343, "the target's answer is %d, not 4343", got);
    MPI_Win_unlock(1, win);
  } else if (rank == 1) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double end = MPI_Wtime() + 30;
    while (mem[0] != 4242 && MPI_Wtime() < end) {
    }
    CHECK(mem[0] == 4242, "the origin's put did not arrive in 30 s without MPI calls (%d)", mem[0]);
    mem[1] = 4343;
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// Vector types on both sides, put then get back, under lock_all and under fence.
static void datatypes(MPI_Win win, int* mem) {
  const int peer = (rank + 1) % size;
  MPI_Datatype every2, every3;
  MPI_Type_vector(4, 1, 2, MPI_INT, &every2);
  MPI_Type_vector(4, 1, 3, MPI_INT, &every3);
  MPI_Type_commit(&every2);
  MPI_Type_commit(&every3);
  for (int i = 0; i < 32; ++i) mem[i] = -1;
  int src[8], back[12];
  for (int i = 0; i < 8; ++i) src[i] = 100 * rank + i;
  MPI_Barrier(MPI_COMM_WORLD);
  // src[0], src[2], src[4], src[6] to the peer's elements 2, 5, 8, 11.
  MPI_Win_lock_all(0, win);
  MPI_Put(src, 1, every2, peer, 2, 1, every3, win);
  MPI_Win_flush_all(win);
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  const int from = (rank + size - 1) % size;
  for (int i = 0; i < 12; ++i) {
    const int want = (i >= 2 && (i - 2) % 3 == 0) ? 100 * from + 2 * ((i - 2) / 3) : -1;
    CHECK(mem[i] == want, "element %d is %d, expected %d", i, mem[i], want);
  }
  // Fence epoch: get the peer's four elements back into every third slot (MPI_Rget).
  for (int i = 0; i < 12; ++i) back[i] = -7;
  MPI_Win_fence(0, win);
  MPI_Request req;
  MPI_Rget(back, 1, every3, peer, 2, 1, every3, win, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  MPI_Win_fence(0, win);
  for (int i = 0; i < 12; ++i) {
    const int want = i % 3 == 0 ? 100 * rank + 2 * (i / 3) : -7;
    CHECK(back[i] == want, "got back element %d = %d, expected %d", i, back[i], want);
  }
  MPI_Type_free(&every2);
  MPI_Type_free(&every3);
}

// Every rank adds 1 to rank 0's counter `iters` times with get, flush, put under an
// exclusive lock: the total counts them all only if the locks exclude each other.
static void exclusive(MPI_Win win, int* mem) {
  const int iters = 200;
  if (rank == 0) mem[0] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < iters; ++i) {
    int v = 0;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Get(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    MPI_Win_flush(0, win);
    ++v;
    MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    MPI_Win_unlock(0, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) CHECK(mem[0] == iters * size, "counter %d, expected %d", mem[0], iters * size);
  MPI_Barrier(MPI_COMM_WORLD);
}

// Accumulates (the target's handler) and direct puts and gets on one window: a sum from
// every rank, then read back with a get.
static void accumulates(MPI_Win win, int* mem) {
  mem[0] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  for (int i = 0; i < 10; ++i) {
    int one = 1;
    MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win);
  }
  MPI_Win_flush_all(win);
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  int got = -1;
  MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
  MPI_Get(&got, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
  MPI_Win_unlock(0, win);
  CHECK(got == 10 * size, "sum %d, expected %d", got, 10 * size);
  MPI_Barrier(MPI_COMM_WORLD);
}

// Many elements per call from every rank: a contiguous origin (applied straight from the
// origin's buffer), a strided one (packed first), and MPI_MAXLOC on MPI_DOUBLE_INT, whose
// packed form is not its memory layout.
static void accumulateArrays(MPI_Win win, int* mem) {
  enum { N = 8 };
  struct DoubleInt {
    double v;
    int k;
  };
  struct DoubleInt* pair = (struct DoubleInt*)(mem + 2 * N);
  if (rank == 0) {
    for (int i = 0; i < 2 * N; ++i) mem[i] = 0;
    pair->v = -1;
    pair->k = -1;
  }
  int contig[N], strided[2 * N];
  for (int i = 0; i < N; ++i) {
    contig[i] = (rank + 1) * (i + 1);
    strided[2 * i] = rank + i;
    strided[2 * i + 1] = -1000;  // skipped by the vector type
  }
  struct DoubleInt in = {(double)(rank % 3), rank};
  MPI_Datatype every2;
  MPI_Type_vector(N, 1, 2, MPI_INT, &every2);
  MPI_Type_commit(&every2);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  MPI_Accumulate(contig, N, MPI_INT, 0, 0, N, MPI_INT, MPI_SUM, win);
  MPI_Accumulate(strided, 1, every2, 0, N, N, MPI_INT, MPI_SUM, win);
  MPI_Accumulate(&in, 1, MPI_DOUBLE_INT, 0, 2 * N, 1, MPI_DOUBLE_INT, MPI_MAXLOC, win);
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    for (int i = 0; i < N; ++i) {
      CHECK(mem[i] == (i + 1) * size * (size + 1) / 2, "contiguous sum %d is %d, expected %d", i,
            mem[i], (i + 1) * size * (size + 1) / 2);
      CHECK(mem[N + i] == size * i + size * (size - 1) / 2, "strided sum %d is %d, expected %d", i,
            mem[N + i], size * i + size * (size - 1) / 2);
    }
    const int best = size >= 3 ? 2 : size - 1;  // the first rank holding the largest rank % 3
    CHECK(pair->v == (double)(best % 3) && pair->k == best,
          "MAXLOC gave (%g, %d), expected (%d, %d)", pair->v, pair->k, best % 3, best);
  }
  MPI_Type_free(&every2);
  MPI_Barrier(MPI_COMM_WORLD);
}

// Atomics from every rank at once on rank 0's counter: fetch-and-op increments must fetch
// distinct values, compare-and-swap increments (retried until they succeed) must all count.
static void atomics(MPI_Win win, int* mem) {
  const int iters = 100;
  if (rank == 0) mem[0] = mem[1] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  int* seen = calloc((size_t)(iters * size), sizeof(int));
  int* mine = malloc(sizeof(int) * iters);
  MPI_Win_lock_all(0, win);
  for (int i = 0; i < iters; ++i) {
    int one = 1, old = -1;
    MPI_Fetch_and_op(&one, &old, MPI_INT, 0, 0, MPI_SUM, win);
    MPI_Win_flush(0, win);
    mine[i] = old;
    for (;;) {
      int cur = -1, next, prev = -1;
      MPI_Get_accumulate(NULL, 0, MPI_INT, &cur, 1, MPI_INT, 0, 1, 1, MPI_INT, MPI_NO_OP, win);
      MPI_Win_flush(0, win);
      next = cur + 1;
      MPI_Compare_and_swap(&next, &cur, &prev, MPI_INT, 0, 1, win);
      MPI_Win_flush(0, win);
      if (prev == cur) break;
    }
  }
  MPI_Win_unlock_all(win);
  MPI_Gather(mine, iters, MPI_INT, rank == 0 ? seen : NULL, iters, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    int* count = calloc((size_t)(iters * size), sizeof(int));
    for (int i = 0; i < iters * size; ++i)
      if (seen[i] >= 0 && seen[i] < iters * size) ++count[seen[i]];
    for (int i = 0; i < iters * size; ++i)
      CHECK(count[i] == 1, "fetch-and-op fetched %d %d times", i, count[i]);
    CHECK(mem[0] == iters * size, "fetch-and-op counter %d, expected %d", mem[0], iters * size);
    CHECK(mem[1] == iters * size, "compare-and-swap counter %d, expected %d", mem[1], iters * size);
    free(count);
  }
  free(seen);
  free(mine);
  MPI_Barrier(MPI_COMM_WORLD);
}

static void run(MPI_Win win, int* mem) {
  if (size >= 2) noTargetProgress(win, mem);
  datatypes(win, mem);
  exclusive(win, mem);
  accumulates(win, mem);
  accumulateArrays(win, mem);
  atomics(win, mem);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int* mem;
  MPI_Win win;
  MPI_Win_allocate(32 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
  run(win, mem);
  MPI_Win_free(&win);
  MPI_Win_allocate_shared(32 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
  run(win, mem);
  MPI_Win_free(&win);
  int all = 0;
  MPI_Allreduce(&errs, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && all == 0) printf(" No Errors\n");
  MPI_Finalize();
  return all != 0;
}
