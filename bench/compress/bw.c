/* Bandwidth of MPI_DOUBLE messages whose contents come from a file of raw little-endian
 * doubles (tiled to the message size), or random 64-bit patterns that do not compress:
 * osu_bw's method. Rank 0 sends a window of W MPI_Isend to rank 1, which posts W
 * MPI_Irecv; then a 4-byte acknowledgement; repeated. Rank 1 checks every byte of the
 * first and the last window against the expected contents.
 *
 *   bw (--file F | --random) [--sizes 1024,4096,...] [--window 64] [--seconds 2]
 *
 * Prints per size: "size=BYTES mbps=MB_PER_S iterations=N" (10^6 bytes of message data
 * per second). Each size runs for about --seconds (at least 3 windows), after a warm-up
 * window. Exits non-zero on a mismatch. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fill(double* a, long n, const double* src, long srcn, int random) {
  if (random) {
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (long i = 0; i < n; ++i) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      /* finite doubles with random sign, exponent and mantissa bits */
      uint64_t u = (x & 0x800FFFFFFFFFFFFFull) | ((uint64_t)(1 + (x >> 12) % 2046) << 52);
      memcpy(&a[i], &u, 8);
    }
  } else {
    for (long i = 0; i < n; ++i) a[i] = src[i % srcn];
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* file = NULL;
  const char* sizes = "1024,4096,16384,65536,262144,1048576,4194304";
  int random = 0, window = 64;
  double seconds = 2;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--file") && i + 1 < argc)
      file = argv[++i];
    else if (!strcmp(argv[i], "--random"))
      random = 1;
    else if (!strcmp(argv[i], "--sizes") && i + 1 < argc)
      sizes = argv[++i];
    else if (!strcmp(argv[i], "--window") && i + 1 < argc)
      window = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
      seconds = atof(argv[++i]);
    else {
      if (rank == 0) fprintf(stderr, "bw: unknown argument %s\n", argv[i]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  if (size != 2 || (!file && !random) || window < 1 || window > 1024) {
    if (rank == 0)
      fprintf(
          stderr,
          "usage: bw (--file F | --random) [--sizes LIST] [--window W] [--seconds S], 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  double* src = NULL;
  long srcn = 0;
  if (file) {
    FILE* f = fopen(file, "rb");
    if (!f) {
      fprintf(stderr, "bw: cannot open %s\n", file);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    fseek(f, 0, SEEK_END);
    srcn = ftell(f) / 8;
    fseek(f, 0, SEEK_SET);
    src = malloc((size_t)srcn * 8);
    if (srcn < 1 || fread(src, 8, (size_t)srcn, f) != (size_t)srcn) {
      fprintf(stderr, "bw: cannot read %s\n", file);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    fclose(f);
  }
  MPI_Request* reqs = malloc(sizeof(MPI_Request) * (size_t)window);
  char list[4096];
  snprintf(list, sizeof list, "%s", sizes);
  for (char* tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
    const long bytes = atol(tok);
    const long n = bytes / 8;
    if (n < 1) continue;
    double* want = malloc((size_t)n * 8);
    fill(want, n, src, srcn, random);
    /* One buffer per window slot: the receiver checks each. */
    double** bufs = malloc(sizeof(double*) * (size_t)window);
    for (int w = 0; w < window; ++w) {
      bufs[w] = malloc((size_t)n * 8);
      if (rank == 0) memcpy(bufs[w], want, (size_t)n * 8);
    }
    long iters = 0;
    double t = 0;
    int stop = 0;
    for (int round = -1; !stop; ++round) {
      const int check = rank == 1 && (round <= 0);
      if (check)
        for (int w = 0; w < window; ++w) memset(bufs[w], 0, (size_t)n * 8);
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      for (int w = 0; w < window; ++w) {
        if (rank == 0)
          MPI_Isend(bufs[w], (int)n, MPI_DOUBLE, 1, w, MPI_COMM_WORLD, &reqs[w]);
        else
          MPI_Irecv(bufs[w], (int)n, MPI_DOUBLE, 0, w, MPI_COMM_WORLD, &reqs[w]);
      }
      MPI_Waitall(window, reqs, MPI_STATUSES_IGNORE);
      int ack = 0;
      if (rank == 0)
        MPI_Recv(&ack, 1, MPI_INT, 1, 999, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      else
        MPI_Send(&ack, 1, MPI_INT, 0, 999, MPI_COMM_WORLD);
      const double dt = MPI_Wtime() - t0;
      if (check)
        for (int w = 0; w < window; ++w)
          if (memcmp(bufs[w], want, (size_t)n * 8) != 0) {
            fprintf(stderr, "bw: data mismatch at size %ld, window slot %d\n", bytes, w);
            MPI_Abort(MPI_COMM_WORLD, 3);
          }
      if (round >= 0) { /* round -1 is the warm-up */
        t += dt;
        ++iters;
      }
      stop = (iters >= 3 && t >= seconds) || iters >= 100000;
      MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    /* The last window is checked too. */
    if (rank == 1)
      for (int w = 0; w < window; ++w)
        if (memcmp(bufs[w], want, (size_t)n * 8) != 0) {
          fprintf(stderr, "bw: data mismatch at size %ld (last window), slot %d\n", bytes, w);
          MPI_Abort(MPI_COMM_WORLD, 3);
        }
    if (rank == 0)
      printf("size=%ld mbps=%.3f iterations=%ld\n", n * 8, (double)n * 8 * window * iters / t / 1e6,
             iters);
    fflush(stdout);
    for (int w = 0; w < window; ++w) free(bufs[w]);
    free(bufs);
    free(want);
  }
  free(reqs);
  free(src);
  MPI_Finalize();
  return 0;
}
