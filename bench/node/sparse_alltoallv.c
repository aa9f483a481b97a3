/* Sparse MPI_Alltoallv with a new pattern on every call (issue 21's row): every rank sends
 * `bytes` to `peers` others and receives `bytes` from `peers` others; the pattern of call
 * i is the union of `peers` random derangements drawn from seed i (the same at every
 * rank), so no call can reuse what an earlier one learnt. Reports the mean time per call
 * in microseconds, the maximum over ranks, after a barrier-separated warm-up. Every
 * received block is checked.
 * Usage: sparse_alltoallv [peers=4] [bytes=1024] [iterations=2000]
 * Output: "sparse_alltoallv <ranks> <peers> <bytes> <us>" */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng;
static uint32_t next_u32(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (uint32_t)(rng >> 11);
}

/* to[r * peers + k] = the k-th destination of rank r in call `seed`. */
static void pattern(int n, int peers, uint64_t seed, int* to) {
  rng = 0x9e3779b97f4a7c15ull ^ (seed * 0x2545f4914f6cdd1dull);
  if (rng == 0) rng = 1;
  int* perm = malloc(sizeof(int) * (size_t)n);
  for (int k = 0; k < peers; ++k) {
    for (;;) {
      for (int i = 0; i < n; ++i) perm[i] = i;
      for (int i = n - 1; i > 0; --i) {
        const int j = (int)(next_u32() % (uint32_t)(i + 1));
        const int t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
      }
      int ok = 1;
      for (int i = 0; i < n && ok; ++i) {
        if (perm[i] == i) ok = 0;
        for (int q = 0; q < k && ok; ++q)
          if (to[i * peers + q] == perm[i]) ok = 0;
      }
      if (ok) break;
    }
    for (int i = 0; i < n; ++i) to[i * peers + k] = perm[i];
  }
  free(perm);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  int peers = argc > 1 ? atoi(argv[1]) : 4;
  const int bytes = argc > 2 ? atoi(argv[2]) : 1024;
  const int iters = argc > 3 ? atoi(argv[3]) : 2000;
  if (peers > n - 1) peers = n - 1;
  if (peers < 1 || bytes < 1 || iters < 1) {
    if (rank == 0) fprintf(stderr, "sparse_alltoallv: needs 2+ ranks, peers >= 1, bytes >= 1\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int warm = iters / 10 > 0 ? iters / 10 : 1;
  /* Every call's pattern is drawn before the clock starts. */
  const size_t per = (size_t)n * (size_t)peers;
  int* all = malloc(sizeof(int) * per * (size_t)(warm + iters));
  for (int it = 0; it < warm + iters; ++it)
    pattern(n, peers, (uint64_t)it + 1, all + per * (size_t)it);
  int *scount = calloc((size_t)n, sizeof(int)), *sdisp = calloc((size_t)n, sizeof(int));
  int *rcount = calloc((size_t)n, sizeof(int)), *rdisp = calloc((size_t)n, sizeof(int));
  unsigned char* sbuf = malloc((size_t)bytes * (size_t)n);
  unsigned char* rbuf = malloc((size_t)bytes * (size_t)n);
  double t0 = 0;
  for (int it = 0; it < warm + iters; ++it) {
    if (it == warm) {
      MPI_Barrier(MPI_COMM_WORLD);
      t0 = MPI_Wtime();
    }
    const int* to = all + per * (size_t)it;
    for (int r = 0; r < n; ++r) {
      scount[r] = rcount[r] = 0;
      sdisp[r] = rdisp[r] = r * bytes;
    }
    for (int k = 0; k < peers; ++k) scount[to[rank * peers + k]] = bytes;
    for (int r = 0; r < n; ++r)
      for (int k = 0; k < peers; ++k)
        if (to[r * peers + k] == rank) rcount[r] = bytes;
    for (int r = 0; r < n; ++r)
      if (scount[r]) memset(sbuf + (size_t)r * bytes, (rank * 31 + r + it) & 0xff, (size_t)bytes);
    MPI_Alltoallv(sbuf, scount, sdisp, MPI_BYTE, rbuf, rcount, rdisp, MPI_BYTE, MPI_COMM_WORLD);
    for (int r = 0; r < n; ++r) {
      if (!rcount[r]) continue;
      const unsigned char want = (unsigned char)((r * 31 + rank + it) & 0xff);
      if (rbuf[(size_t)r * bytes] != want || rbuf[(size_t)r * bytes + bytes - 1] != want) {
        fprintf(stderr, "sparse_alltoallv: rank %d: wrong data from rank %d in call %d\n", rank, r,
                it);
        MPI_Abort(MPI_COMM_WORLD, 3);
      }
    }
  }
  double mine = (MPI_Wtime() - t0) / iters * 1e6, worst = 0;
  MPI_Reduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("sparse_alltoallv %d %d %d %.3f\n", n, peers, bytes, worst);
  free(all);
  free(scount);
  free(sdisp);
  free(rcount);
  free(rdisp);
  free(sbuf);
  free(rbuf);
  MPI_Finalize();
  return 0;
}
