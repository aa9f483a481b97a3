/* The reliability campaign's program (bench/reliability/run.py): mixed collectives and
 * point-to-point on MPI_COMM_WORLD with every byte checked. Each iteration runs MPI_Bcast
 * (rotating root), MPI_Allreduce (MPI_SUM of int32), MPI_Alltoall and MPI_Alltoallv
 * (uneven counts, some zero) of up to `max_bytes` per buffer, the size varying with the
 * iteration, then point-to-point: every rank sends a message of twice that size (eager
 * and rendezvous sizes) to the rank a rotating distance ahead and receives one from the
 * rank as far behind, plus four small messages with tags 0-3 that the receiver takes in
 * the opposite order (unexpected messages, matching by tag); every element received is
 * compared with what its sender must have sent (a function of iteration, sender,
 * receiver and position). Plain C99 + MPI: builds with any MPI.
 *
 *   mixed [iterations (200)] [max_bytes (65536)] [pause_seconds (0)]
 *
 * (pause_seconds: every rank waits that long after MPI_Init, before the timed part; the
 * campaign's hostile peers set up their attack meanwhile)
 *
 * Rank 0 prints one line:
 *   RESULT ranks=R iterations=I operations=O bytes_checked=B errors=E seconds=T
 *          bcast=.. allreduce=.. alltoall=.. alltoallv=.. p2p=.. first_iteration=..
 * (operations and bytes summed over all ranks; errors = elements that differed; the
 * seconds spent in each collective and in the first iteration, which opens the
 * connections: the largest over the ranks). Exits 1
 * if any element differed. */
#define _POSIX_C_SOURCE 200809L /* sleep() */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint32_t value(uint32_t it, uint32_t from, uint32_t to, uint32_t i, uint32_t op) {
  uint32_t x = it * 2654435761u ^ from * 40503u ^ to * 2246822519u ^ i * 3266489917u ^ op;
  x ^= x >> 15;
  x *= 2246822519u;
  x ^= x >> 13;
  return x;
}

/* Bytes per buffer in iteration `it`: cycles through 1/64 .. 1 of max, never below 4. */
static size_t bytes_for(int it, size_t max) {
  static const int eighths[] = {1, 64, 8, 32, 2, 16, 4, 48, 24, 40, 56, 12};
  size_t b = max * (size_t)eighths[it % 12] / 64;
  return b < 4 ? 4 : b;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iters = argc > 1 ? atoi(argv[1]) : 200;
  const size_t maxb = argc > 2 ? (size_t)atol(argv[2]) : 65536;
  const int pause_s = argc > 3 ? atoi(argv[3]) : 0;
  if (pause_s > 0) sleep((unsigned)pause_s);
  const size_t maxn = maxb / 4;
  uint32_t* a = malloc(maxn * 4 * (size_t)size + 64);
  uint32_t* b = malloc(maxn * 4 * (size_t)size + 64);
  int* sc = malloc(sizeof(int) * (size_t)size);
  int* sd = malloc(sizeof(int) * (size_t)size);
  int* rcnt = malloc(sizeof(int) * (size_t)size);
  int* rd = malloc(sizeof(int) * (size_t)size);
  long long errors = 0, checked = 0, ops = 0;
  double spent[5] = {0, 0, 0, 0, 0}, first = 0, tick;
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int it = 0; it < iters; ++it) {
    const size_t n = bytes_for(it, maxb) / 4;
    const uint32_t u = (uint32_t)it;
    /* Bcast of n elements from a rotating root. */
    const int root = it % size;
    for (size_t i = 0; i < n; ++i)
      a[i] = rank == root ? value(u, (uint32_t)root, 0, (uint32_t)i, 1) : 0;
    tick = MPI_Wtime();
    MPI_Bcast(a, (int)n, MPI_UINT32_T, root, MPI_COMM_WORLD);
    spent[0] += MPI_Wtime() - tick;
    for (size_t i = 0; i < n; ++i) errors += a[i] != value(u, (uint32_t)root, 0, (uint32_t)i, 1);
    checked += (long long)n * 4;
    /* Allreduce: element i sums value(it, r, 0, i) over the ranks (mod 2^32). */
    for (size_t i = 0; i < n; ++i) a[i] = value(u, (uint32_t)rank, 0, (uint32_t)i, 2);
    tick = MPI_Wtime();
    MPI_Allreduce(a, b, (int)n, MPI_UINT32_T, MPI_SUM, MPI_COMM_WORLD);
    spent[1] += MPI_Wtime() - tick;
    for (size_t i = 0; i < n; ++i) {
      uint32_t s = 0;
      for (int r = 0; r < size; ++r) s += value(u, (uint32_t)r, 0, (uint32_t)i, 2);
      errors += b[i] != s;
    }
    checked += (long long)n * 4;
    /* Alltoall: n/size elements per pair (at least 1). */
    const size_t per = n / (size_t)size ? n / (size_t)size : 1;
    for (int d = 0; d < size; ++d)
      for (size_t i = 0; i < per; ++i)
        a[(size_t)d * per + i] = value(u, (uint32_t)rank, (uint32_t)d, (uint32_t)i, 3);
    tick = MPI_Wtime();
    MPI_Alltoall(a, (int)per, MPI_UINT32_T, b, (int)per, MPI_UINT32_T, MPI_COMM_WORLD);
    spent[2] += MPI_Wtime() - tick;
    for (int s = 0; s < size; ++s)
      for (size_t i = 0; i < per; ++i)
        errors += b[(size_t)s * per + i] != value(u, (uint32_t)s, (uint32_t)rank, (uint32_t)i, 3);
    checked += (long long)(per * (size_t)size) * 4;
    /* Alltoallv: from s to d, (s + d + it) % 4 quarters of `per` elements (0 to 3/4). */
    int off = 0;
    for (int d = 0; d < size; ++d) {
      sc[d] = (int)(per * (size_t)((rank + d + it) % 4) / 4);
      sd[d] = off;
      off += sc[d];
    }
    off = 0;
    for (int s = 0; s < size; ++s) {
      rcnt[s] = (int)(per * (size_t)((s + rank + it) % 4) / 4);
      rd[s] = off;
      off += rcnt[s];
    }
    for (int d = 0; d < size; ++d)
      for (int i = 0; i < sc[d]; ++i)
        a[sd[d] + i] = value(u, (uint32_t)rank, (uint32_t)d, (uint32_t)i, 4);
    tick = MPI_Wtime();
    MPI_Alltoallv(a, sc, sd, MPI_UINT32_T, b, rcnt, rd, MPI_UINT32_T, MPI_COMM_WORLD);
    spent[3] += MPI_Wtime() - tick;
    for (int s = 0; s < size; ++s)
      for (int i = 0; i < rcnt[s]; ++i)
        errors += b[rd[s] + i] != value(u, (uint32_t)s, (uint32_t)rank, (uint32_t)i, 4);
    checked += (long long)off * 4;
    ops += 4;

    /* Point-to-point: 2n elements to the rank `dist` ahead, from the rank `dist` behind;
     * then four one-element messages each way, received by descending tag. */
    if (size > 1) {
      const int dist = 1 + it % (size - 1);
      const int to = (rank + dist) % size, from = (rank - dist + size) % size;
      const size_t m = 2 * n;
      for (size_t i = 0; i < m; ++i) a[i] = value(u, (uint32_t)rank, (uint32_t)to, (uint32_t)i, 5);
      uint32_t small_out[4], small_in[4];
      for (int k = 0; k < 4; ++k)
        small_out[k] = value(u, (uint32_t)rank, (uint32_t)to, (uint32_t)k, 6);
      MPI_Request req[10];
      tick = MPI_Wtime();
      MPI_Irecv(b, (int)m, MPI_UINT32_T, from, 100, MPI_COMM_WORLD, &req[0]);
      MPI_Isend(a, (int)m, MPI_UINT32_T, to, 100, MPI_COMM_WORLD, &req[1]);
      for (int k = 0; k < 4; ++k)
        MPI_Isend(&small_out[k], 1, MPI_UINT32_T, to, k, MPI_COMM_WORLD, &req[2 + k]);
      for (int k = 3; k >= 0; --k)
        MPI_Irecv(&small_in[k], 1, MPI_UINT32_T, from, k, MPI_COMM_WORLD, &req[6 + (3 - k)]);
      MPI_Waitall(10, req, MPI_STATUSES_IGNORE);
      spent[4] += MPI_Wtime() - tick;
      for (size_t i = 0; i < m; ++i)
        errors += b[i] != value(u, (uint32_t)from, (uint32_t)rank, (uint32_t)i, 5);
      for (int k = 0; k < 4; ++k)
        errors += small_in[k] != value(u, (uint32_t)from, (uint32_t)rank, (uint32_t)k, 6);
      checked += (long long)(m + 4) * 4;
      ops += 5;
    }
    if (it == 0) first = MPI_Wtime() - t0;
  }
  const double t = MPI_Wtime() - t0;
  long long mine[3] = {errors, checked, ops}, all[3];
  MPI_Reduce(mine, all, 3, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  double tmax = 0, mine_t[6] = {spent[0], spent[1], spent[2], spent[3], spent[4], first}, max_t[6];
  MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(mine_t, max_t, 6, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf(
        "RESULT ranks=%d iterations=%d operations=%lld bytes_checked=%lld errors=%lld "
        "seconds=%.3f bcast=%.3f allreduce=%.3f alltoall=%.3f alltoallv=%.3f p2p=%.3f "
        "first_iteration=%.3f\n",
        size, iters, all[2], all[1], all[0], tmax, max_t[0], max_t[1], max_t[2], max_t[3], max_t[4],
        max_t[5]);
  free(a);
  free(b);
  free(sc);
  free(sd);
  free(rcnt);
  free(rd);
  MPI_Finalize();
  return rank == 0 && all[0] != 0 ? 1 : 0;
}
