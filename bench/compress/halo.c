/* A halo-exchange stencil benchmark whose messages carry smooth fields (the cMPI paper's
 * case for compression: scientific codes send arrays of doubles whose neighbouring values
 * are predictable).
 *
 * A 2-D diffusion (Jacobi) solver on a global grid of NX columns x (P*ROWS) rows, split
 * into horizontal bands over P ranks (a 1-D decomposition, so that halos are long rows).
 * Every iteration each rank sends its top and bottom DEPTH rows to its neighbours
 * (MPI_Isend/MPI_Irecv of MPI_DOUBLE; periodic in the vertical direction), then updates
 * its band DEPTH times with the 5-point stencil (the deep halo trades computation for
 * fewer, larger messages, as communication-avoiding codes do). The initial field is a sum
 * of sines and Gaussian bumps, so halos are smooth but not constant.
 *
 *   halo [--nx 16384] [--rows 64] [--depth 4] [--iters 20]
 *
 * Prints "ranks=P nx=NX rows=R depth=D msg_bytes=B iters=I ms_per_iter=T checksum=HEX
 * sum=S": T the slowest rank's time per iteration, HEX a hash of every value's bits
 * (identical, bit for bit, whatever the transport does to the messages), S their sum. */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long nx = 16384;
  int rows = 64, depth = 4, iters = 20;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--nx"))
      nx = atol(argv[i + 1]);
    else if (!strcmp(argv[i], "--rows"))
      rows = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--depth"))
      depth = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--iters"))
      iters = atoi(argv[i + 1]);
  }
  if (nx < 8 || rows < 1 || depth < 1 || depth > rows || iters < 1) {
    if (rank == 0) fprintf(stderr, "halo: bad arguments\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int up = (rank + size - 1) % size, down = (rank + 1) % size;
  /* rows + 2*depth rows of nx doubles: halo above, own rows, halo below. */
  const long h = rows + 2L * depth;
  double* u = malloc(sizeof(double) * (size_t)(h * nx));
  double* v = malloc(sizeof(double) * (size_t)(h * nx));
  const double pi = 3.14159265358979323846;
  const double ny = (double)rows * size;
  for (long r = 0; r < h; ++r)
    for (long c = 0; c < nx; ++c) {
      const double y = ((double)rank * rows + (double)(r - depth)) / ny, x = (double)c / (double)nx;
      double f = sin(2 * pi * x) * cos(2 * pi * y) + 0.5 * sin(6 * pi * x + 1.0);
      f += exp(-((x - 0.3) * (x - 0.3) + (y - 0.6) * (y - 0.6)) * 80.0);
      f += 0.7 * exp(-((x - 0.75) * (x - 0.75) + (y - 0.25) * (y - 0.25)) * 200.0);
      u[r * nx + c] = 300.0 + 20.0 * f;
    }
  const long msg = (long)depth * nx;
  double t = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  for (int it = 0; it < iters; ++it) {
    const double t0 = MPI_Wtime();
    MPI_Request q[4];
    /* own top rows -> up's bottom halo; own bottom rows -> down's top halo */
    MPI_Irecv(u, (int)msg, MPI_DOUBLE, up, 1, MPI_COMM_WORLD, &q[0]);
    MPI_Irecv(u + (depth + rows) * nx, (int)msg, MPI_DOUBLE, down, 0, MPI_COMM_WORLD, &q[1]);
    MPI_Isend(u + depth * nx, (int)msg, MPI_DOUBLE, up, 0, MPI_COMM_WORLD, &q[2]);
    MPI_Isend(u + rows * nx, (int)msg, MPI_DOUBLE, down, 1, MPI_COMM_WORLD, &q[3]);
    MPI_Waitall(4, q, MPI_STATUSES_IGNORE);
    /* depth sweeps; sweep s is valid on rows s+1 .. h-2-s. */
    for (int s = 0; s < depth; ++s) {
      for (long r = 1 + s; r < h - 1 - s; ++r) {
        const double* a = u + r * nx;
        double* b = v + r * nx;
        for (long c = 0; c < nx; ++c) {
          const double w = a[c == 0 ? nx - 1 : c - 1], e = a[c == nx - 1 ? 0 : c + 1];
          b[c] = 0.2 * (a[c] + w + e + a[c - nx] + a[c + nx]);
        }
      }
      for (long r = 1 + s; r < h - 1 - s; ++r)
        memcpy(u + r * nx, v + r * nx, sizeof(double) * (size_t)nx);
    }
    t += MPI_Wtime() - t0;
  }
  double tmax = 0;
  MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  /* Bitwise hash and sum of the own rows. */
  uint64_t hash = 0;
  double sum = 0;
  for (long r = depth; r < depth + rows; ++r)
    for (long c = 0; c < nx; ++c) {
      uint64_t bits;
      memcpy(&bits, &u[r * nx + c], 8);
      hash ^= (bits + 0x9E3779B97F4A7C15ull * (uint64_t)((rank * rows + r) * nx + c)) *
              0xBF58476D1CE4E5B9ull;
      sum += u[r * nx + c];
    }
  uint64_t hashAll = 0;
  double sumAll = 0;
  MPI_Reduce(&hash, &hashAll, 1, MPI_UINT64_T, MPI_BXOR, 0, MPI_COMM_WORLD);
  MPI_Reduce(&sum, &sumAll, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf(
        "ranks=%d nx=%ld rows=%d depth=%d msg_bytes=%ld iters=%d ms_per_iter=%.3f checksum=%016llx "
        "sum=%.10e\n",
        size, nx, rows, depth, msg * 8, iters, tmax / iters * 1e3, (unsigned long long)hashAll,
        sumAll);
  free(u);
  free(v);
  MPI_Finalize();
  return 0;
}
