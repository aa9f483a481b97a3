/* Bandwidth of MPI_DOUBLE messages with realistic contents, osu_bw's method: for each
 * message size rank 0 posts a window of W (64) MPI_Isend to rank 1, which posts W
 * MPI_Irecv into W separate buffers; both wait, then rank 1 sends rank 0 a 4-byte
 * acknowledgement. Bandwidth = size * W * iterations / time, in MB/s of ORIGINAL message
 * data (10^6 bytes per second), so a transport that compresses shows its effective rate.
 * With N > 2 ranks (N even) the N/2 pairs (i, i + N/2) do the same at once (osu_mbw_mr's
 * layout) and the figure is their aggregate: all bytes / the slowest sender's time.
 *
 * Message contents: the raw little-endian doubles of --file F (e.g. a sample message such
 * as /work/shared/data/fp/msg_bt.f64), tiled to fill the message; or, with --random,
 * uniformly random 64-bit patterns that are finite doubles (do not compress).
 *
 *   bw (--file F | --random) [--sizes 1024,2048,...] [--window 64] [--seconds 2]
 *      [--iters N] [--warmup N]
 *
 * Sizes default to the powers of 2 from 1 KiB to 4 MiB (multiples of 8 bytes). Per size:
 * warm-up windows (at most 10 up to 8 KiB, else 2; fewer if they would take more than a
 * quarter of --seconds, at least 1), then timed windows: as many as fit in --seconds by
 * the last warm-up window's time, at least 1 and at most 100 up to 8 KiB, else 20
 * (osu_bw's counts). --iters/--warmup fix the counts instead. Rank 0 decides the counts
 * and broadcasts them, so all ranks run the same loop.
 *
 * Checking: every receiver clears its buffers before the first warm-up window and before
 * the last timed window (the clearing of the latter is inside the timed loop: a memset,
 * small against the window) and afterwards compares each with the expected contents bit
 * for bit, and its received count; a mismatch prints where and exits with status 3.
 *
 * Output (rank 0, stdout): comment lines starting with '#', then one line per size:
 *   <size in bytes> <MB/s> <timed windows>
 * and, with ccmpi (MPIX_Compress_get_stats of mpix_ccmpi.h), four more columns about the
 * timed windows, over all ranks: <wire ratio> = original bytes / bytes on the wire (1 when
 * nothing was coded), <coded> = share of the original bytes that were coded, <code MB/s>
 * and <decode MB/s> = coded original bytes per second of the senders' coding and the
 * receivers' decoding time ("-" when nothing was coded). */
#include <mpi.h>
#if defined(__has_include)
#if __has_include(<mpix_ccmpi.h>)
#include <mpix_ccmpi.h>
#define HAVE_COMPRESS_STATS 1
#endif
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kAckTag = 1000, kMaxWindow = 1024, kMaxSizes = 64 };

static void usage(int rank, const char* why) {
  if (rank == 0)
    fprintf(stderr,
            "bw: %s\nusage: bw (--file F | --random) [--sizes LIST] [--window W] "
            "[--seconds S] [--iters N] [--warmup N]   (an even number of ranks)\n",
            why);
  MPI_Abort(MPI_COMM_WORLD, 2);
}

static uint64_t splitmix64(uint64_t* s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Fills a[0..n) with the tiled file contents, or random finite doubles (patterns whose
 * exponent is all ones, infinities and NaNs, are drawn again). */
static void fill(double* a, long n, const double* src, long srcn) {
  if (src) {
    for (long i = 0; i < n; ++i) a[i] = src[i % srcn];
    return;
  }
  uint64_t seed = 12345;
  for (long i = 0; i < n; ++i) {
    uint64_t u;
    do u = splitmix64(&seed);
    while (((u >> 52) & 0x7FF) == 0x7FF);
    memcpy(&a[i], &u, 8);
  }
}

static double* readDoubles(const char* path, long* count) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  double* buf = NULL;
  long n = 0;
  if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f) / 8) > 0 && fseek(f, 0, SEEK_SET) == 0) {
    buf = malloc((size_t)n * 8);
    if (buf && fread(buf, 8, (size_t)n, f) != (size_t)n) {
      free(buf);
      buf = NULL;
    }
  }
  fclose(f);
  *count = n;
  return buf;
}

/* Rank 1: every receive buffer must hold `want` and have received n doubles. */
static void check(double** bufs, MPI_Status* st, int window, const double* want, long n, long bytes,
                  const char* which) {
  for (int w = 0; w < window; ++w) {
    int count = -1;
    MPI_Get_count(&st[w], MPI_DOUBLE, &count);
    if (count != n) {
      fprintf(stderr, "bw: size %ld, %s window, slot %d: received %d doubles, expected %ld\n",
              bytes, which, w, count, n);
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    if (memcmp(bufs[w], want, (size_t)n * 8) != 0) {
      long i = 0;
      while (i < n && memcmp(&bufs[w][i], &want[i], 8) == 0) ++i;
      fprintf(stderr, "bw: size %ld, %s window, slot %d: data differ from double %ld on\n", bytes,
              which, w, i);
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
  }
}

/* This process's compression counters (zeros without ccmpi's extension). */
typedef struct {
  double sentBytes, sentWire, codeSeconds, recvBytes, decodeSeconds;
} Counters;

static Counters counters(void) {
  Counters c = {0, 0, 0, 0, 0};
#ifdef HAVE_COMPRESS_STATS
  MPIX_Compress_stats s;
  if (MPIX_Compress_get_stats(&s) == MPI_SUCCESS) {
    c.sentBytes = (double)s.sent_bytes;
    c.sentWire = (double)s.sent_wire;
    c.codeSeconds = s.compress_seconds;
    c.recvBytes = (double)s.recv_bytes;
    c.decodeSeconds = s.decompress_seconds;
  }
#endif
  return c;
}

/* One window between this rank and its peer: W sends (a sender) or receives, then the
 * acknowledgement. */
static void window(int sender, int peer, double* sendbuf, double** bufs, MPI_Request* reqs,
                   MPI_Status* st, int w, long n) {
  for (int i = 0; i < w; ++i) {
    if (sender)
      MPI_Isend(sendbuf, (int)n, MPI_DOUBLE, peer, i, MPI_COMM_WORLD, &reqs[i]);
    else
      MPI_Irecv(bufs[i], (int)n, MPI_DOUBLE, peer, i, MPI_COMM_WORLD, &reqs[i]);
  }
  MPI_Waitall(w, reqs, st);
  int ack = 0;
  if (sender)
    MPI_Recv(&ack, 1, MPI_INT, peer, kAckTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  else
    MPI_Send(&ack, 1, MPI_INT, peer, kAckTag, MPI_COMM_WORLD);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);

  const char* file = NULL;
  int random = 0, win = 64, fixedIters = 0, fixedWarmup = -1;
  double seconds = 2;
  long sizes[kMaxSizes];
  int nsizes = 0;
  for (long s = 1024; s <= 4L << 20; s *= 2) sizes[nsizes++] = s;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--random")) {
      random = 1;
      continue;
    }
    if (!v) usage(rank, "missing value");
    ++i;
    if (!strcmp(a, "--file")) {
      file = v;
    } else if (!strcmp(a, "--window")) {
      win = atoi(v);
    } else if (!strcmp(a, "--seconds")) {
      seconds = atof(v);
    } else if (!strcmp(a, "--iters")) {
      fixedIters = atoi(v);
    } else if (!strcmp(a, "--warmup")) {
      fixedWarmup = atoi(v);
    } else if (!strcmp(a, "--sizes")) {
      char list[1024];
      snprintf(list, sizeof list, "%s", v);
      nsizes = 0;
      for (char* t = strtok(list, ","); t && nsizes < kMaxSizes; t = strtok(NULL, ",")) {
        const long s = atol(t);
        if (s < 8 || s % 8 || s > (1L << 30)) usage(rank, "sizes must be multiples of 8 bytes");
        sizes[nsizes++] = s;
      }
    } else {
      usage(rank, "unknown argument");
    }
  }
  if (nranks < 2 || nranks % 2) usage(rank, "needs an even number of ranks");
  const int pairs = nranks / 2, sender = rank < pairs;
  const int peer = sender ? rank + pairs : rank - pairs;
  if (!file == !random) usage(rank, "give one of --file F and --random");
  if (win < 1 || win > kMaxWindow || seconds <= 0 || fixedIters < 0 || nsizes == 0)
    usage(rank, "bad --window, --seconds, --iters or --sizes");

  double* src = NULL;
  long srcn = 0;
  if (file && !(src = readDoubles(file, &srcn))) {
    fprintf(stderr, "bw: cannot read doubles from %s\n", file);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (rank == 0) {
    printf("# bw: contents %s%s, window %d, %d pair(s), %s\n",
           file ? file : "random finite doubles", file ? " (tiled)" : "", win, pairs,
           fixedIters ? "fixed iterations" : "time-bounded");
#ifdef HAVE_COMPRESS_STATS
    printf("# Size          MB/s windows     ratio  coded  code MB/s decode MB/s\n");
#else
    printf("# Size          MB/s windows\n");
#endif
    fflush(stdout);
  }

  MPI_Request reqs[kMaxWindow];
  static MPI_Status st[kMaxWindow];
  for (int k = 0; k < nsizes; ++k) {
    const long bytes = sizes[k], n = bytes / 8;
    double* want = malloc((size_t)bytes);
    double* sendbuf = NULL;
    double** bufs = calloc((size_t)win, sizeof(double*));
    if (!want || !bufs) {
      fprintf(stderr, "bw: out of memory at size %ld\n", bytes);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    fill(want, n, src, srcn);
    if (sender) {
      sendbuf = want; /* concurrent sends may share a buffer */
    } else {
      for (int w = 0; w < win; ++w)
        if (!(bufs[w] = malloc((size_t)bytes))) {
          fprintf(stderr, "bw: out of memory at size %ld\n", bytes);
          MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    const int small = bytes <= 8192;
    const int maxWarm = small ? 10 : 2, maxIters = small ? 100 : 20;

    /* Warm-up: the first window is checked; its time decides how many more. */
    if (!sender)
      for (int w = 0; w < win; ++w) memset(bufs[w], 0, (size_t)bytes);
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    window(sender, peer, sendbuf, bufs, reqs, st, win, n);
    t = MPI_Wtime() - t;
    if (!sender) check(bufs, st, win, want, n, bytes, "first");
    int counts[2]; /* further warm-up windows, timed windows */
    if (rank == 0) {
      int more = (int)(0.25 * seconds / t);
      counts[0] = fixedWarmup >= 0 ? (fixedWarmup > 0 ? fixedWarmup - 1 : 0)
                                   : (more < maxWarm - 1 ? more : maxWarm - 1);
    }
    MPI_Bcast(counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    for (int i = 0; i < counts[0]; ++i) {
      t = MPI_Wtime();
      window(sender, peer, sendbuf, bufs, reqs, st, win, n);
      t = MPI_Wtime() - t;
    }
    if (rank == 0) {
      const double fit = seconds / t;
      counts[1] = fixedIters ? fixedIters : fit < 1 ? 1 : fit > maxIters ? maxIters : (int)fit;
    }
    MPI_Bcast(&counts[1], 1, MPI_INT, 0, MPI_COMM_WORLD);

    /* Timed windows; receivers clear their buffers before the last one, to check it. */
    const int iters = counts[1];
    const Counters before = counters();
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    for (int i = 0; i < iters; ++i) {
      if (!sender && i == iters - 1)
        for (int w = 0; w < win; ++w) memset(bufs[w], 0, (size_t)bytes);
      window(sender, peer, sendbuf, bufs, reqs, st, win, n);
    }
    const double elapsed = MPI_Wtime() - t0;
    const Counters after = counters();
    if (!sender) check(bufs, st, win, want, n, bytes, "last");
    /* Slowest time and summed counters at rank 0 (after the checks: sizes reported are
     * checked, a mismatch aborts first). */
    double mine[6] = {elapsed,
                      after.sentBytes - before.sentBytes,
                      after.sentWire - before.sentWire,
                      after.codeSeconds - before.codeSeconds,
                      after.recvBytes - before.recvBytes,
                      after.decodeSeconds - before.decodeSeconds},
           all[6];
    MPI_Reduce(mine, all, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(mine + 1, all + 1, 5, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      const double total = (double)bytes * win * iters * pairs;
      printf("%-9ld %10.2f %6d", bytes, total / all[0] / 1e6, iters);
#ifdef HAVE_COMPRESS_STATS
      const double coded = all[1], wire = all[2] + (total - coded);
      printf(" %9.4f %6.3f", total / wire, coded / total);
      if (coded > 0 && all[3] > 0)
        printf(" %9.1f", coded / all[3] / 1e6);
      else
        printf(" %9s", "-");
      if (all[4] > 0 && all[5] > 0)
        printf(" %9.1f", all[4] / all[5] / 1e6);
      else
        printf(" %9s", "-");
#endif
      printf("\n");
      fflush(stdout);
    }
    if (!sender)
      for (int w = 0; w < win; ++w) free(bufs[w]);
    free(bufs);
    free(want);
  }
  free(src);
  MPI_Finalize();
  return 0;
}
