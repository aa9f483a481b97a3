/* Point-to-point microbenchmarks with the OSU methodology, so the same source can be
 * built with ccmpi's mpicc and with Open MPI's or MPICH's and run side by side:
 *   latency  ranks 0 and 1 ping-pong; one-way latency = round trip / 2 (osu_latency)
 *   bw       rank 0 posts a window of 64 Isends, rank 1 a window of Irecvs, then a
 *            1-byte ack; bandwidth = bytes / time (osu_bw)
 *   multilat ranks paired (i, i + n/2) ping-pong at once; mean latency (osu_multi_lat)
 * Output: one line per size, "<test> <bytes> <value>" (us or MB/s).
 * Usage: p2p_bench latency|bw|multilat [max_bytes] [iterations] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int iters_for(size_t n, int base) {
  if (n >= (1 << 20)) return base / 10 > 10 ? base / 10 : 10;
  if (n >= (64 << 10)) return base / 4 > 20 ? base / 4 : 20;
  return base;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* test = argc > 1 ? argv[1] : "latency";
  size_t maxBytes = argc > 2 ? strtoul(argv[2], NULL, 0) : (4u << 20);
  int baseIters = argc > 3 ? atoi(argv[3]) : 1000;
  const int window = 64;
  char* sbuf = malloc(maxBytes * (strcmp(test, "bw") == 0 ? 1 : 1) + 1);
  char* rbuf = malloc(maxBytes + 1);
  memset(sbuf, 'a', maxBytes);
  memset(rbuf, 'b', maxBytes);
  MPI_Request reqs[64];
  for (size_t n = (strcmp(test, "bw") == 0 ? 1 : 0); n <= maxBytes; n = n ? n * 2 : 1) {
    const int iters = iters_for(n, baseIters), warm = iters / 10 + 1;
    double t0 = 0;
    if (!strcmp(test, "latency") || !strcmp(test, "multilat")) {
      const int half = size / 2;
      const int active = !strcmp(test, "latency") ? (rank < 2) : (rank < 2 * half);
      const int peer = !strcmp(test, "latency") ? 1 - rank : (rank < half ? rank + half : rank - half);
      const int sender = !strcmp(test, "latency") ? rank == 0 : rank < half;
      MPI_Barrier(MPI_COMM_WORLD);
      if (active) {
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
      }
      double lat = active ? (MPI_Wtime() - t0) * 1e6 / (2.0 * iters) : 0;
      double sum = 0;
      MPI_Reduce(&lat, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
      const int nactive = !strcmp(test, "latency") ? 2 : 2 * half;
      if (rank == 0) printf("%s %zu %.2f\n", test, n, sum / nactive);
    } else if (!strcmp(test, "bw")) {
      MPI_Barrier(MPI_COMM_WORLD);
      for (int i = 0; i < iters + warm; ++i) {
        if (i == warm) t0 = MPI_Wtime();
        if (rank == 0) {
          for (int w = 0; w < window; ++w) MPI_Isend(sbuf, (int)n, MPI_CHAR, 1, 100, MPI_COMM_WORLD, &reqs[w]);
          MPI_Waitall(window, reqs, MPI_STATUSES_IGNORE);
          MPI_Recv(rbuf, 1, MPI_CHAR, 1, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
          for (int w = 0; w < window; ++w) MPI_Irecv(rbuf, (int)n, MPI_CHAR, 0, 100, MPI_COMM_WORLD, &reqs[w]);
          MPI_Waitall(window, reqs, MPI_STATUSES_IGNORE);
          MPI_Send(sbuf, 1, MPI_CHAR, 0, 101, MPI_COMM_WORLD);
        }
      }
      if (rank == 0) {
        const double t = MPI_Wtime() - t0;
        printf("bw %zu %.2f\n", n, (double)n * window * iters / t / 1e6);
      }
    } else {
      if (rank == 0) fprintf(stderr, "unknown test %s\n", test);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    fflush(stdout);
    if (n == 0 && maxBytes == 0) break;
  }
  free(sbuf);
  free(rbuf);
  MPI_Finalize();
  return 0;
}
