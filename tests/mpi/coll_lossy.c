/* Collectives whose ranks choose alone on a lossy network (transport::lossSeen()): odd
 * ranks act as if they had seen loss (CCMPI_ASSUME_LOSS=1, set before MPI_Init from
 * PMI_RANK), even ranks do not. Run with CCMPI_ALLTOALL_ALGORITHM=pairwise (odd ranks post
 * every exchange at once, even ranks go step by step) and CCMPI_ALLTOALLV_ALGORITHM=phased
 * with blocks of 4-8 KiB (after the first call the trailer path: odd ranks in one round,
 * even ranks in n-1 rounds). Every byte is checked over calls of changing sizes; with
 * CCMPI_VERBOSE=3 the odd ranks say which way they went (the tests check those lines). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int32_t value(int it, int from, int to, int i) {
  return (int32_t)(((uint32_t)it * 2654435761u) ^ ((uint32_t)from * 40503u) ^
                   ((uint32_t)to * 2246822519u) ^ ((uint32_t)i * 3266489917u));
}

int main(int argc, char** argv) {
  const char* pr = getenv("PMI_RANK");
  if (pr && atoi(pr) % 2 == 1) setenv("CCMPI_ASSUME_LOSS", "1", 1);
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int maxn = 2048; /* ints per pair: 8 KiB */
  int32_t* a = malloc(sizeof(int32_t) * (size_t)maxn * (size_t)size);
  int32_t* b = malloc(sizeof(int32_t) * (size_t)maxn * (size_t)size);
  int* sc = malloc(sizeof(int) * (size_t)size);
  int* sd = malloc(sizeof(int) * (size_t)size);
  int* rc = malloc(sizeof(int) * (size_t)size);
  int* rd = malloc(sizeof(int) * (size_t)size);
  long errors = 0;
  for (int it = 0; it < 12; ++it) {
    /* Alltoall: 8 KiB, 1 KiB or 4 B per pair. */
    const int n = it % 3 == 0 ? maxn : it % 3 == 1 ? 256 : 1;
    for (int d = 0; d < size; ++d)
      for (int i = 0; i < n; ++i) a[d * n + i] = value(it, rank, d, i);
    MPI_Alltoall(a, n, MPI_INT32_T, b, n, MPI_INT32_T, MPI_COMM_WORLD);
    for (int s = 0; s < size; ++s)
      for (int i = 0; i < n; ++i) errors += b[s * n + i] != value(it, s, rank, i);
    /* Alltoallv: from s to d, 1100 + 100 * ((s + d + it) % 5) ints (4.4-6 KiB). */
    int off = 0;
    for (int d = 0; d < size; ++d) {
      sc[d] = 1100 + 100 * ((rank + d + it) % 5);
      sd[d] = off;
      off += sc[d];
    }
    off = 0;
    for (int s = 0; s < size; ++s) {
      rc[s] = 1100 + 100 * ((s + rank + it) % 5);
      rd[s] = off;
      off += rc[s];
    }
    for (int d = 0; d < size; ++d)
      for (int i = 0; i < sc[d]; ++i) a[sd[d] + i] = value(it + 100, rank, d, i);
    MPI_Alltoallv(a, sc, sd, MPI_INT32_T, b, rc, rd, MPI_INT32_T, MPI_COMM_WORLD);
    for (int s = 0; s < size; ++s)
      for (int i = 0; i < rc[s]; ++i) errors += b[rd[s] + i] != value(it + 100, s, rank, i);
  }
  long all = 0;
  MPI_Allreduce(&errors, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    if (all == 0)
      printf("PASS coll_lossy\n");
    else
      printf("FAIL coll_lossy: %ld elements differed\n", all);
  }
  free(a);
  free(b);
  free(sc);
  free(sd);
  free(rc);
  free(rd);
  MPI_Finalize();
  return all == 0 ? 0 : 1;
}
