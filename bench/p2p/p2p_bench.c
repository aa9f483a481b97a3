/* Point-to-point microbenchmarks with the OSU methodology, so the same source can be
 * built with ccmpi's mpicc and with Open MPI's or MPICH's and run side by side:
 *   latency  ranks 0 and 1 ping-pong; one-way latency = round trip / 2 (osu_latency)
 *   bw       rank 0 posts a window of 64 Isends of one buffer, rank 1 a window of Irecvs,
 *            then a 4-byte ack; bandwidth = bytes / time (osu_bw)
 *   bibw     both ranks post a window of 64 Irecvs and 64 Isends; bandwidth counts both
 *            directions (osu_bibw)
 *   multilat ranks paired (i, i + n/2) ping-pong at once; mean latency over all paired
 *            ranks (osu_multi_lat)
 * Sizes double from min_bytes to max_bytes. Iterations and warm-up follow OSU's defaults
 * (latency 10000 + 100, bandwidth 100 + 10; above 8 KiB 1000 + 10 and 20 + 2); an
 * explicit iteration count replaces both, with a tenth of it (at least 1) as warm-up.
 * Output: one line per size, "<test> <bytes> <value>" (us or MB/s, MB = 1e6 bytes).
 * Usage: p2p_bench latency|bw|bibw|multilat [max_bytes] [iterations|0] [min_bytes] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kWindow = 64, kLargeMessage = 8192 };

static void pick_iterations(int is_bw, size_t n, int explicit_iters, int* iters, int* warm) {
  if (explicit_iters > 0) {
    *iters = explicit_iters;
    *warm = explicit_iters / 10 > 0 ? explicit_iters / 10 : 1;
  } else if (is_bw) {
    *iters = n > kLargeMessage ? 20 : 100;
    *warm = n > kLargeMessage ? 2 : 10;
  } else {
    *iters = n > kLargeMessage ? 1000 : 10000;
    *warm = n > kLargeMessage ? 10 : 100;
  }
}

/* Ping-pong between each sender and its peer; returns this rank's one-way latency in us
 * (0 for ranks without a partner). */
static double ping_pong(int active, int sender, int peer, char* sbuf, char* rbuf, size_t n,
                        int iters, int warm) {
  double t0 = 0;
  if (!active) return 0;
  for (int i = 0; i < iters + warm; ++i) {
    if (i == warm) t0 = MPI_Wtime();
    if (sender) {
      MPI_Send(sbuf, (int)n, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
      MPI_Recv(rbuf, (int)n, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(rbuf, (int)n, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(sbuf, (int)n, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
    }
  }
  return (MPI_Wtime() - t0) * 1e6 / (2.0 * iters);
}

/* One window exchange; bidirectional when both is set. */
static void window_round(int rank, int both, char* sbuf, char* rbuf, size_t n, MPI_Request* reqs,
                         MPI_Status* stats) {
  const int peer = 1 - rank;
  if (both) {
    for (int w = 0; w < kWindow; ++w)
      MPI_Irecv(rbuf, (int)n, MPI_CHAR, peer, 10, MPI_COMM_WORLD, &reqs[w]);
    for (int w = 0; w < kWindow; ++w)
      MPI_Isend(sbuf, (int)n, MPI_CHAR, peer, 10, MPI_COMM_WORLD, &reqs[kWindow + w]);
    MPI_Waitall(2 * kWindow, reqs, stats);
  } else if (rank == 0) {
    for (int w = 0; w < kWindow; ++w)
      MPI_Isend(sbuf, (int)n, MPI_CHAR, 1, 100, MPI_COMM_WORLD, &reqs[w]);
    MPI_Waitall(kWindow, reqs, stats);
    MPI_Recv(rbuf, 4, MPI_CHAR, 1, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    for (int w = 0; w < kWindow; ++w)
      MPI_Irecv(rbuf, (int)n, MPI_CHAR, 0, 100, MPI_COMM_WORLD, &reqs[w]);
    MPI_Waitall(kWindow, reqs, stats);
    MPI_Send(sbuf, 4, MPI_CHAR, 0, 101, MPI_COMM_WORLD);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* test = argc > 1 ? argv[1] : "latency";
  const size_t maxBytes = argc > 2 ? strtoul(argv[2], NULL, 0) : (4u << 20);
  const int explicitIters = argc > 3 ? atoi(argv[3]) : 0;
  const size_t minBytes = argc > 4 ? strtoul(argv[4], NULL, 0) : 1;
  const int isLatency = !strcmp(test, "latency"), isMulti = !strcmp(test, "multilat");
  const int isBw = !strcmp(test, "bw"), isBibw = !strcmp(test, "bibw");
  if (!isLatency && !isMulti && !isBw && !isBibw) {
    if (rank == 0) fprintf(stderr, "unknown test %s\n", test);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (size < 2) {
    if (rank == 0) fprintf(stderr, "p2p_bench needs at least 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  char* sbuf = malloc(maxBytes + 4);
  char* rbuf = malloc(maxBytes + 4);
  memset(sbuf, 'a', maxBytes + 4);
  memset(rbuf, 'b', maxBytes + 4);
  MPI_Request reqs[2 * kWindow];
  MPI_Status stats[2 * kWindow]; /* not IGNORE: g++ 12 misreads MPICH's MPI_STATUSES_IGNORE */
  for (size_t n = minBytes; n <= maxBytes; n = n ? n * 2 : 1) {
    int iters, warm;
    pick_iterations(isBw || isBibw, n, explicitIters, &iters, &warm);
    MPI_Barrier(MPI_COMM_WORLD);
    if (isLatency || isMulti) {
      const int half = size / 2;
      const int active = isLatency ? rank < 2 : rank < 2 * half;
      const int peer = isLatency ? 1 - rank : (rank < half ? rank + half : rank - half);
      const int sender = isLatency ? rank == 0 : rank < half;
      double lat = ping_pong(active, sender, peer, sbuf, rbuf, n, iters, warm);
      double sum = 0;
      MPI_Reduce(&lat, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
      if (rank == 0) printf("%s %zu %.2f\n", test, n, sum / (isLatency ? 2 : 2 * half));
    } else {
      double t0 = 0;
      if (rank < 2) {
        for (int i = 0; i < iters + warm; ++i) {
          if (i == warm) t0 = MPI_Wtime();
          window_round(rank, isBibw, sbuf, rbuf, n, reqs, stats);
        }
      }
      if (rank == 0) {
        const double t = MPI_Wtime() - t0;
        const double bytes = (double)n * kWindow * iters * (isBibw ? 2 : 1);
        printf("%s %zu %.2f\n", test, n, bytes / t / 1e6);
      }
    }
    fflush(stdout);
    if (n == 0 && maxBytes == 0) break;
  }
  free(sbuf);
  free(rbuf);
  MPI_Finalize();
  return 0;
}
