/* The reliability campaign's soak (bench/reliability/run.py --soak): many point-to-point
 * messages and collectives of random sizes on random communicators, every element
 * checked. Plain C99 + MPI: builds with any MPI.
 *
 *   soak [p2p_messages (1000000)] [collectives_each (10000)] [max_bytes (16384)]
 *
 * Communicators: MPI_COMM_WORLD, a duplicate, the even and odd ranks (MPI_Comm_split), and
 * the world in reverse order in groups of three (split with a descending key). Each round
 * draws, from a generator every rank runs with the same seed, a communicator, an operation
 * and sizes: point-to-point rounds send 16 messages per rank (every rank to the one a
 * random distance ahead in the communicator, random sizes from 0 to max_bytes, some
 * received out of order by tag); collective rounds run one of Bcast, Reduce, Allreduce,
 * Gather, Scatter, Allgather, Alltoall, Alltoallv, Reduce_scatter_block, Scan and Barrier
 * (random root, random count). Rounds go on until the job has sent p2p_messages messages
 * and run every collective collectives_each times.
 *
 * Rank 0 prints one line:
 *   SOAK ranks=R p2p_messages=M collectives=C bytes_checked=B errors=E seconds=T
 * Exits 1 if any element differed. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
  OP_P2P,
  OP_BCAST,
  OP_REDUCE,
  OP_ALLREDUCE,
  OP_GATHER,
  OP_SCATTER,
  OP_ALLGATHER,
  OP_ALLTOALL,
  OP_ALLTOALLV,
  OP_REDUCE_SCATTER,
  OP_SCAN,
  OP_BARRIER,
  NOPS
};
#define NCOMMS 5
#define PER_ROUND 16

static uint64_t rng_state;
static uint32_t rnd(void) { /* splitmix64: the same sequence on every rank */
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return (uint32_t)((z ^ (z >> 31)) >> 32);
}

static uint32_t value(uint32_t round, uint32_t from, uint32_t to, uint32_t i, uint32_t op) {
  uint32_t x = round * 2654435761u ^ from * 40503u ^ to * 2246822519u ^ i * 3266489917u ^ op;
  x ^= x >> 15;
  x *= 2246822519u;
  x ^= x >> 13;
  return x;
}

/* Elements of a random size: log-uniform-ish in [0, max], so small and large both occur. */
static int rsize(int max) {
  const uint32_t r = rnd();
  int bits = 0;
  while ((1 << bits) < max) ++bits;
  const int b = (int)(r % (uint32_t)(bits + 1));
  int n = b ? (int)((1u << (b - 1)) + (rnd() % (1u << (b - 1)))) : (int)(r >> 31);
  return n > max ? max : n;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int wrank, wsize;
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  const long long want_p2p = argc > 1 ? atoll(argv[1]) : 1000000;
  const long long want_each = argc > 2 ? atoll(argv[2]) : 10000;
  const int max_elems = (argc > 3 ? atoi(argv[3]) : 16384) / 4;
  MPI_Comm comms[NCOMMS];
  comms[0] = MPI_COMM_WORLD;
  MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]);
  MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wrank, &comms[2]);
  MPI_Comm_split(MPI_COMM_WORLD, (wsize - 1 - wrank) / 3, wsize - wrank, &comms[3]);
  MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - wrank, &comms[4]);
  const size_t cap = (size_t)max_elems * (size_t)wsize + 16;
  uint32_t* a = malloc(cap * 4);
  uint32_t* b = malloc(cap * 4);
  uint32_t* msg[PER_ROUND];
  uint32_t* got[PER_ROUND];
  for (int k = 0; k < PER_ROUND; ++k) {
    msg[k] = malloc((size_t)max_elems * 4 + 4);
    got[k] = malloc((size_t)max_elems * 4 + 4);
  }
  int* counts = malloc(sizeof(int) * (size_t)wsize);
  int* displs = malloc(sizeof(int) * (size_t)wsize);
  int* rcounts = malloc(sizeof(int) * (size_t)wsize);
  int* rdispls = malloc(sizeof(int) * (size_t)wsize);
  long long errors = 0, checked = 0, p2p_sent = 0, p2p_planned = 0, done[NOPS] = {0};
  rng_state = 12345;
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (uint32_t round = 0;; ++round) {
    /* What is still to do decides (identically on every rank). */
    int left[NOPS], nleft = 0;
    if (p2p_planned < want_p2p) left[nleft++] = OP_P2P;
    for (int op = 1; op < NOPS; ++op)
      if (done[op] < want_each) left[nleft++] = op;
    if (nleft == 0) break;
    const int op = left[rnd() % (uint32_t)nleft];
    MPI_Comm c = comms[rnd() % NCOMMS];
    int rank, size;
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &size);
    const int root = (int)(rnd() % (uint32_t)size);
    const int n = rsize(max_elems);
    if (op == OP_P2P) {
      /* Every communicator's ranks take part; p2p_sent counts the whole job's messages
       * (each rank counts the messages of all ranks in the communicators drawn). */
      const uint32_t draw = rnd(); /* drawn on every rank, whatever its communicator */
      const int dist = size > 1 ? 1 + (int)(draw % (uint32_t)(size - 1)) : 0;
      int sizes[PER_ROUND];
      for (int k = 0; k < PER_ROUND; ++k) sizes[k] = rsize(max_elems);
      if (size > 1) {
        const int to = (rank + dist) % size, from = (rank - dist + size) % size;
        MPI_Request req[2 * PER_ROUND];
        for (int k = 0; k < PER_ROUND; ++k) {
          for (int i = 0; i < sizes[k]; ++i)
            msg[k][i] = value(round, (uint32_t)rank, (uint32_t)to, (uint32_t)i, (uint32_t)k);
          /* Receives posted in an order that differs from the sends for odd rounds. */
          const int kr = (round & 1) ? PER_ROUND - 1 - k : k;
          MPI_Irecv(got[kr], sizes[kr], MPI_UINT32_T, from, kr, c, &req[k]);
        }
        for (int k = 0; k < PER_ROUND; ++k)
          MPI_Isend(msg[k], sizes[k], MPI_UINT32_T, to, k, c, &req[PER_ROUND + k]);
        MPI_Waitall(2 * PER_ROUND, req, MPI_STATUSES_IGNORE);
        for (int k = 0; k < PER_ROUND; ++k) {
          for (int i = 0; i < sizes[k]; ++i)
            errors +=
                got[k][i] != value(round, (uint32_t)from, (uint32_t)rank, (uint32_t)i, (uint32_t)k);
          checked += (long long)sizes[k] * 4;
        }
      }
      /* The decision what to do next must be the same on every rank, whatever the size
       * of its part of the communicator: it counts every rank's 16 messages. What was
       * really sent is summed at the end. */
      p2p_planned += (long long)wsize * PER_ROUND;
      if (size > 1) p2p_sent += PER_ROUND;
      continue;
    }
    ++done[op];
    switch (op) {
      case OP_BCAST:
        for (int i = 0; i < n; ++i)
          a[i] = rank == root ? value(round, (uint32_t)root, 0, (uint32_t)i, 1) : 0;
        MPI_Bcast(a, n, MPI_UINT32_T, root, c);
        for (int i = 0; i < n; ++i)
          errors += a[i] != value(round, (uint32_t)root, 0, (uint32_t)i, 1);
        checked += (long long)n * 4;
        break;
      case OP_REDUCE:
      case OP_ALLREDUCE:
      case OP_SCAN: {
        for (int i = 0; i < n; ++i) a[i] = value(round, (uint32_t)rank, 0, (uint32_t)i, 2);
        if (op == OP_REDUCE)
          MPI_Reduce(a, b, n, MPI_UINT32_T, MPI_SUM, root, c);
        else if (op == OP_ALLREDUCE)
          MPI_Allreduce(a, b, n, MPI_UINT32_T, MPI_SUM, c);
        else
          MPI_Scan(a, b, n, MPI_UINT32_T, MPI_SUM, c);
        if (op != OP_REDUCE || rank == root) {
          const int upto = op == OP_SCAN ? rank + 1 : size;
          for (int i = 0; i < n; ++i) {
            uint32_t s = 0;
            for (int r = 0; r < upto; ++r) s += value(round, (uint32_t)r, 0, (uint32_t)i, 2);
            errors += b[i] != s;
          }
          checked += (long long)n * 4;
        }
        break;
      }
      case OP_GATHER:
      case OP_ALLGATHER:
        for (int i = 0; i < n; ++i) a[i] = value(round, (uint32_t)rank, 0, (uint32_t)i, 3);
        if (op == OP_GATHER)
          MPI_Gather(a, n, MPI_UINT32_T, b, n, MPI_UINT32_T, root, c);
        else
          MPI_Allgather(a, n, MPI_UINT32_T, b, n, MPI_UINT32_T, c);
        if (op == OP_ALLGATHER || rank == root) {
          for (int r = 0; r < size; ++r)
            for (int i = 0; i < n; ++i)
              errors += b[(size_t)r * (size_t)n + (size_t)i] !=
                        value(round, (uint32_t)r, 0, (uint32_t)i, 3);
          checked += (long long)n * size * 4;
        }
        break;
      case OP_SCATTER:
        if (rank == root)
          for (int r = 0; r < size; ++r)
            for (int i = 0; i < n; ++i)
              a[(size_t)r * (size_t)n + (size_t)i] =
                  value(round, (uint32_t)root, (uint32_t)r, (uint32_t)i, 4);
        MPI_Scatter(a, n, MPI_UINT32_T, b, n, MPI_UINT32_T, root, c);
        for (int i = 0; i < n; ++i)
          errors += b[i] != value(round, (uint32_t)root, (uint32_t)rank, (uint32_t)i, 4);
        checked += (long long)n * 4;
        break;
      case OP_ALLTOALL:
        for (int r = 0; r < size; ++r)
          for (int i = 0; i < n; ++i)
            a[(size_t)r * (size_t)n + (size_t)i] =
                value(round, (uint32_t)rank, (uint32_t)r, (uint32_t)i, 5);
        MPI_Alltoall(a, n, MPI_UINT32_T, b, n, MPI_UINT32_T, c);
        for (int r = 0; r < size; ++r)
          for (int i = 0; i < n; ++i)
            errors += b[(size_t)r * (size_t)n + (size_t)i] !=
                      value(round, (uint32_t)r, (uint32_t)rank, (uint32_t)i, 5);
        checked += (long long)n * size * 4;
        break;
      case OP_ALLTOALLV: {
        /* Counts from the (round, sender, receiver) hash, some zero; both ends agree. */
        int off = 0;
        for (int r = 0; r < size; ++r) {
          counts[r] = (int)(value(round, (uint32_t)rank, (uint32_t)r, 0, 6) % (uint32_t)(n + 1));
          displs[r] = off;
          for (int i = 0; i < counts[r]; ++i)
            a[off + i] = value(round, (uint32_t)rank, (uint32_t)r, (uint32_t)i, 7);
          off += counts[r];
        }
        off = 0;
        for (int r = 0; r < size; ++r) {
          rcounts[r] = (int)(value(round, (uint32_t)r, (uint32_t)rank, 0, 6) % (uint32_t)(n + 1));
          rdispls[r] = off;
          off += rcounts[r];
        }
        MPI_Alltoallv(a, counts, displs, MPI_UINT32_T, b, rcounts, rdispls, MPI_UINT32_T, c);
        for (int r = 0; r < size; ++r)
          for (int i = 0; i < rcounts[r]; ++i)
            errors +=
                b[rdispls[r] + i] != value(round, (uint32_t)r, (uint32_t)rank, (uint32_t)i, 7);
        checked += (long long)off * 4;
        break;
      }
      case OP_REDUCE_SCATTER:
        for (int r = 0; r < size; ++r)
          for (int i = 0; i < n; ++i)
            a[(size_t)r * (size_t)n + (size_t)i] =
                value(round, (uint32_t)rank, (uint32_t)r, (uint32_t)i, 8);
        MPI_Reduce_scatter_block(a, b, n, MPI_UINT32_T, MPI_SUM, c);
        for (int i = 0; i < n; ++i) {
          uint32_t s = 0;
          for (int r = 0; r < size; ++r)
            s += value(round, (uint32_t)r, (uint32_t)rank, (uint32_t)i, 8);
          errors += b[i] != s;
        }
        checked += (long long)n * 4;
        break;
      case OP_BARRIER:
        MPI_Barrier(c);
        break;
      default:
        break;
    }
  }
  const double t = MPI_Wtime() - t0;
  long long mine[3] = {errors, checked, p2p_sent}, all[3];
  MPI_Reduce(mine, all, 3, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  double tmax = 0;
  MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  long long colls = 0;
  for (int op = 1; op < NOPS; ++op) colls += done[op];
  if (wrank == 0)
    printf(
        "SOAK ranks=%d p2p_messages=%lld collectives=%lld bytes_checked=%lld errors=%lld "
        "seconds=%.3f\n",
        wsize, all[2], colls, all[1], all[0], tmax);
  for (int k = 1; k < NCOMMS; ++k) MPI_Comm_free(&comms[k]);
  for (int k = 0; k < PER_ROUND; ++k) {
    free(msg[k]);
    free(got[k]);
  }
  free(a);
  free(b);
  free(counts);
  free(displs);
  free(rcounts);
  free(rdispls);
  MPI_Finalize();
  return wrank == 0 && all[0] != 0 ? 1 : 0;
}
