/* Halo-exchange stencil benchmark on a smooth field: the kind of traffic the cMPI paper
 * argues compression is for (scientific codes send arrays of doubles whose neighbouring
 * values are predictable).
 *
 * A 2-D Jacobi diffusion solver: a periodic global grid of NX x NY doubles is split over
 * a 2-D Cartesian process grid (MPI_Dims_create + MPI_Cart_create, or --px/--py), each
 * rank owning a block of about NX/px columns x NY/py rows plus a one-cell halo. Every
 * iteration each rank
 *   1. packs its first and last columns into contiguous buffers,
 *   2. exchanges halos with its four neighbours by MPI_Irecv/MPI_Isend of MPI_DOUBLE:
 *      rows (NX/px doubles) north and south, packed columns (NY/py doubles) west and east,
 *   3. unpacks the columns and updates its block with the 5-point stencil
 *      v = 0.2 * (u + north + south + west + east).
 * The initial field is a sum of periodic sines and periodic Gaussian bumps: smooth, but not
 * constant. Choose a wide, flat grid (the default) to get long rows, i.e. messages of tens
 * to hundreds of KiB, while the computation stays small.
 *
 *   halo [--nx 65536] [--ny 512] [--px P] [--py P] [--iters 50] [--warmup 5]
 *
 * Output (rank 0, one line):
 *   ranks=P dims=PXxPY nx=NX ny=NY block=LXxLY row_bytes=B col_bytes=B iters=I
 *   ms_per_iter=T comm_ms_per_iter=C checksum=HEX sum=S
 * T and C are the slowest rank's time per timed iteration (C: packing, exchange and
 * unpacking only). checksum is an XOR over all grid points of a hash of (global index,
 * bits of the value): it depends only on the final field, not on the decomposition, so
 * runs with any number of ranks, and with or without compression, must print the same
 * value. sum is MPI_Allreduce(MPI_SUM) of the local sums (%.17g): identical across runs
 * with the same process grid. The iterations (warm-up included) are the same in every
 * run, so the final field is too. */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kUp, kDown, kLeft, kRight }; /* message tags: the direction a halo travels */

static uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Smooth periodic field on [0,1)^2. */
static double field(double x, double y) {
  const double tau = 6.28318530717958647692;
  double f = sin(tau * x) * cos(tau * y) + 0.5 * sin(3 * tau * x + 1.0) + 0.3 * cos(2 * tau * y);
  f += exp(8.0 * (cos(tau * (x - 0.3)) + cos(tau * (y - 0.6)) - 2.0));
  f += 0.7 * exp(20.0 * (cos(tau * (x - 0.75)) + cos(tau * (y - 0.25)) - 2.0));
  return 300.0 + 20.0 * f;
}

/* First index and count of block c of n items split into p nearly equal blocks. */
static void split(long n, int p, int c, long* first, long* count) {
  const long base = n / p, extra = n % p;
  *count = base + (c < extra);
  *first = c * base + (c < extra ? c : extra);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  long nx = 65536, ny = 512;
  int dims[2] = {0, 0}, iters = 50, warmup = 5; /* dims[0]: process rows (y), [1]: columns */
  for (int i = 1; i < argc; i += 2) {
    const char* v = i + 1 < argc ? argv[i + 1] : "";
    if (!strcmp(argv[i], "--nx"))
      nx = atol(v);
    else if (!strcmp(argv[i], "--ny"))
      ny = atol(v);
    else if (!strcmp(argv[i], "--px"))
      dims[1] = atoi(v);
    else if (!strcmp(argv[i], "--py"))
      dims[0] = atoi(v);
    else if (!strcmp(argv[i], "--iters"))
      iters = atoi(v);
    else if (!strcmp(argv[i], "--warmup"))
      warmup = atoi(v);
    else
      nx = -1;
  }
  if (nx < 1 || ny < 1 || iters < 1 || warmup < 0 || dims[0] < 0 || dims[1] < 0 ||
      MPI_Dims_create(nranks, 2, dims) != MPI_SUCCESS || dims[1] > nx || dims[0] > ny ||
      nx * ny / nranks > (1L << 28)) {
    if (rank == 0)
      fprintf(stderr,
              "usage: halo [--nx N] [--ny N] [--px P] [--py P] [--iters I] [--warmup W]\n"
              "  (px*py = ranks; px <= nx, py <= ny; at most 2^28 points per rank)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }

  const int periods[2] = {1, 1};
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  int me, coords[2], up, down, left, right;
  MPI_Comm_rank(cart, &me);
  MPI_Cart_coords(cart, me, 2, coords);
  MPI_Cart_shift(cart, 0, 1, &up, &down);
  MPI_Cart_shift(cart, 1, 1, &left, &right);
  long x0, lx, y0, ly;
  split(nx, dims[1], coords[1], &x0, &lx);
  split(ny, dims[0], coords[0], &y0, &ly);

  /* (ly+2) x (lx+2) doubles; row 0 / ly+1 and column 0 / lx+1 are the halo. */
  const long stride = lx + 2;
  const size_t cells = (size_t)(ly + 2) * (size_t)stride;
  double* u = calloc(cells, sizeof(double));
  double* v = calloc(cells, sizeof(double));
  double* cols = malloc(sizeof(double) * (size_t)(4 * ly)); /* send W, send E, recv W, recv E */
  if (!u || !v || !cols) {
    fprintf(stderr, "halo: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  for (long i = 1; i <= ly; ++i)
    for (long j = 1; j <= lx; ++j)
      u[i * stride + j] = field((double)(x0 + j - 1) / nx, (double)(y0 + i - 1) / ny);
  double *sendW = cols, *sendE = cols + ly, *recvW = cols + 2 * ly, *recvE = cols + 3 * ly;

  double tTotal = 0, tComm = 0;
  for (int it = 0; it < warmup + iters; ++it) {
    if (it == warmup) {
      MPI_Barrier(cart);
      tTotal = tComm = 0;
    }
    const double t0 = MPI_Wtime();
    for (long i = 1; i <= ly; ++i) {
      sendW[i - 1] = u[i * stride + 1];
      sendE[i - 1] = u[i * stride + lx];
    }
    MPI_Request q[8];
    MPI_Irecv(u + (ly + 1) * stride + 1, (int)lx, MPI_DOUBLE, down, kUp, cart, &q[0]);
    MPI_Irecv(u + 1, (int)lx, MPI_DOUBLE, up, kDown, cart, &q[1]);
    MPI_Irecv(recvE, (int)ly, MPI_DOUBLE, right, kLeft, cart, &q[2]);
    MPI_Irecv(recvW, (int)ly, MPI_DOUBLE, left, kRight, cart, &q[3]);
    MPI_Isend(u + stride + 1, (int)lx, MPI_DOUBLE, up, kUp, cart, &q[4]);
    MPI_Isend(u + ly * stride + 1, (int)lx, MPI_DOUBLE, down, kDown, cart, &q[5]);
    MPI_Isend(sendW, (int)ly, MPI_DOUBLE, left, kLeft, cart, &q[6]);
    MPI_Isend(sendE, (int)ly, MPI_DOUBLE, right, kRight, cart, &q[7]);
    MPI_Waitall(8, q, MPI_STATUSES_IGNORE);
    for (long i = 1; i <= ly; ++i) {
      u[i * stride] = recvW[i - 1];
      u[i * stride + lx + 1] = recvE[i - 1];
    }
    const double t1 = MPI_Wtime();
    for (long i = 1; i <= ly; ++i) {
      const double* c = u + i * stride;
      const double* n = c - stride;
      const double* s = c + stride;
      double* o = v + i * stride;
      for (long j = 1; j <= lx; ++j) o[j] = 0.2 * (c[j] + n[j] + s[j] + c[j - 1] + c[j + 1]);
    }
    double* swap = u;
    u = v;
    v = swap;
    const double t2 = MPI_Wtime();
    tComm += t1 - t0;
    tTotal += t2 - t0;
  }

  uint64_t hash = 0;
  double sum = 0;
  for (long i = 1; i <= ly; ++i)
    for (long j = 1; j <= lx; ++j) {
      uint64_t bits;
      memcpy(&bits, &u[i * stride + j], 8);
      const uint64_t g = (uint64_t)(y0 + i - 1) * (uint64_t)nx + (uint64_t)(x0 + j - 1);
      hash ^= mix(bits ^ mix(g + 0x9E3779B97F4A7C15ull));
      sum += u[i * stride + j];
    }
  double t[2] = {tTotal, tComm}, tMax[2];
  uint64_t hashAll;
  double sumAll;
  MPI_Reduce(t, tMax, 2, MPI_DOUBLE, MPI_MAX, 0, cart);
  MPI_Allreduce(&hash, &hashAll, 1, MPI_UINT64_T, MPI_BXOR, cart);
  MPI_Allreduce(&sum, &sumAll, 1, MPI_DOUBLE, MPI_SUM, cart);
  long maxLx = nx / dims[1] + (nx % dims[1] != 0), maxLy = ny / dims[0] + (ny % dims[0] != 0);
  if (me == 0)
    printf(
        "ranks=%d dims=%dx%d nx=%ld ny=%ld block=%ldx%ld row_bytes=%ld col_bytes=%ld iters=%d "
        "ms_per_iter=%.3f comm_ms_per_iter=%.3f checksum=%016llx sum=%.17g\n",
        nranks, dims[1], dims[0], nx, ny, maxLx, maxLy, maxLx * 8, maxLy * 8, iters,
        tMax[0] / iters * 1e3, tMax[1] / iters * 1e3, (unsigned long long)hashAll, sumAll);
  free(u);
  free(v);
  free(cols);
  MPI_Comm_free(&cart);
  MPI_Finalize();
  return 0;
}
