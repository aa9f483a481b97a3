/* Two ranks exchange a message of each size at once, the way halo exchanges and pairwise
 * collective steps do, against the same message sent one way (bench/p2p/exchange.py).
 *
 *   exchange MODE SIZE[,SIZE...] [ITERS]
 *
 * MODE: oneway (rank 0 sends, rank 1 receives), sendrecv (MPI_Sendrecv both ways),
 * irecv_isend (each rank posts MPI_Irecv, then MPI_Isend, then MPI_Waitall: the usual
 * halo exchange), mixed (rank 1 sends a message of the size while rank 0 sends four of
 * 64 KiB, eager ones, as a pipeline's segments or separately sent fields are: rank 0's
 * clear-to-send for the large message travels behind its eager messages). Every iteration
 * starts after an MPI_Barrier and is timed on both ranks; its time is the larger of the
 * two. Prints per size:
 *   result MODE SIZE MEDIAN_US MIN_US ITERS
 * The data are checked: every byte received must be the sender's pattern for that
 * iteration. Ranks beyond the first two only take part in the barriers. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static unsigned char pattern(int rank, int iter, long i) {
  return (unsigned char)(rank * 131 + iter * 17 + i * 7);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 3 || size < 2) {
    if (rank == 0)
      fprintf(stderr, "usage: exchange oneway|sendrecv|irecv_isend|mixed SIZES [ITERS]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char* mode = argv[1];
  const int oneway = !strcmp(mode, "oneway"), sendrecv = !strcmp(mode, "sendrecv");
  const int mixed = !strcmp(mode, "mixed");
  if (!oneway && !sendrecv && !mixed && strcmp(mode, "irecv_isend")) {
    if (rank == 0) fprintf(stderr, "exchange: unknown mode %s\n", mode);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int iters = argc > 3 ? atoi(argv[3]) : 9;
  const int warmup = 2;
  char* list = strdup(argv[2]);
  for (char* tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
    const long bytes = atol(tok);
    unsigned char* out = malloc(bytes > 0 ? bytes : 1);
    unsigned char* in = malloc(bytes > 0 ? bytes : 1);
    double* t = malloc(sizeof(double) * iters);
    const int peer = rank ^ 1;
    const int active = rank < 2;
    /* mixed: rank 0 sends 4 x 64 KiB (at most the buffer each), rank 1 the size */
    const long small = bytes < 65536 ? bytes : 65536;
    const long sends = mixed && rank == 0 ? small : bytes;
    const long recvs = mixed && rank == 1 ? small : bytes;
    for (int it = -warmup; it < iters; ++it) {
      if (active)
        for (long i = 0; i < bytes; ++i) out[i] = pattern(rank, it + warmup, i);
      memset(in, 0, bytes > 0 ? bytes : 1);
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      if (active) {
        if (oneway) {
          if (rank == 0)
            MPI_Send(out, bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
          else
            MPI_Recv(in, bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (sendrecv) {
          MPI_Sendrecv(out, bytes, MPI_BYTE, peer, 0, in, bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE);
        } else {
          MPI_Request q[5];
          int m = 0;
          MPI_Irecv(in, recvs, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &q[m++]);
          /* mixed: rank 1 receives the other three into the same buffer (the same bytes) */
          for (int j = 1; mixed && rank == 1 && j < 4; ++j)
            MPI_Irecv(in, recvs, MPI_BYTE, peer, j, MPI_COMM_WORLD, &q[m++]);
          for (int j = 0; j < (mixed && rank == 0 ? 4 : 1); ++j)
            MPI_Isend(out, sends, MPI_BYTE, peer, j, MPI_COMM_WORLD, &q[m++]);
          MPI_Waitall(m, q, MPI_STATUSES_IGNORE);
        }
      }
      double mine = MPI_Wtime() - t0, most = 0;
      MPI_Allreduce(&mine, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      if (it >= 0) t[it] = most;
      if (active && (!oneway || rank == 1))
        for (long i = 0; i < recvs; ++i)
          if (in[i] != pattern(peer, it + warmup, i)) {
            fprintf(stderr, "exchange: rank %d, %s of %ld bytes: byte %ld is %d, not %d\n", rank,
                    mode, bytes, i, in[i], pattern(peer, it + warmup, i));
            MPI_Abort(MPI_COMM_WORLD, 3);
          }
    }
    qsort(t, iters, sizeof(double), cmp);
    if (rank == 0)
      printf("result %s %ld %.1f %.1f %d\n", mode, bytes, t[iters / 2] * 1e6, t[0] * 1e6, iters);
    fflush(stdout);
    free(out);
    free(in);
    free(t);
  }
  free(list);
  MPI_Finalize();
  return 0;
}
