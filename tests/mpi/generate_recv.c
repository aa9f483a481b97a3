/* MPIX_Generate_recv: every rank learns its column of a pattern it knows only by rows.
 * Random sparse patterns (d destinations, some ranks sending nothing), a new one per
 * call, many calls back to back (a fast rank's messages reach a slow rank before it
 * enters), on MPI_COMM_WORLD and on a split communicator at once, then the counts used in
 * an MPI_Alltoallv; errors under MPI_ERRORS_RETURN. The method comes from the environment
 * (CCMPI_GENERATE_RECV_ALGORITHM=am|concat). */
#include <mpi.h>
#include <mpix_ccmpi.h>
#include <stdio.h>
#include <stdlib.h>

static int g_errors, g_rank;
#define CHECK(c, ...)                                     \
  do {                                                    \
    if (!(c) && g_errors++ < 10) {                        \
      fprintf(stderr, "rank %d: CHECK failed: ", g_rank); \
      fprintf(stderr, __VA_ARGS__);                       \
      fprintf(stderr, "\n");                              \
    }                                                     \
  } while (0)

static unsigned next(unsigned* x) {
  *x ^= *x << 13, *x ^= *x >> 17, *x ^= *x << 5;
  return *x;
}

/* The pattern of call `k` on a communicator of n ranks: counts[s * n + t]. */
static void pattern(int k, int n, int* counts) {
  unsigned x = 88172645u + 104729u * (unsigned)k;
  int d = 1 + (int)(next(&x) % (unsigned)(n > 1 ? n : 1));
  for (int i = 0; i < n * n; ++i) counts[i] = 0;
  for (int s = 0; s < n; ++s) {
    if (next(&x) % 5 == 0) continue; /* this rank sends nothing */
    for (int j = 0; j < d; ++j)
      counts[s * n + (int)(next(&x) % (unsigned)n)] = 1 + (int)(next(&x) % 1000);
  }
}

static void check(MPI_Comm comm, int k) {
  int n, r;
  MPI_Comm_size(comm, &n);
  MPI_Comm_rank(comm, &r);
  int* counts = malloc(sizeof(int) * n * n);
  int* recv = malloc(sizeof(int) * n);
  pattern(k, n, counts);
  for (int p = 0; p < n; ++p) recv[p] = -7;
  int rc = MPIX_Generate_recv(counts + r * n, recv, comm);
  CHECK(rc == MPI_SUCCESS, "call %d returned %d", k, rc);
  for (int p = 0; p < n; ++p)
    CHECK(recv[p] == counts[p * n + r], "call %d (size %d): recvcounts[%d] = %d, want %d", k, n, p,
          recv[p], counts[p * n + r]);
  free(counts);
  free(recv);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int n;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, g_rank % 2, -g_rank, &half);
  for (int k = 0; k < 200; ++k) {
    check(MPI_COMM_WORLD, k);
    if (k % 3 == 0) check(half, 1000 + k);
    if (k % 50 == 0) MPI_Barrier(MPI_COMM_WORLD);
  }
  /* Use the counts: an Alltoallv whose receivers learned theirs. */
  int* counts = malloc(sizeof(int) * n * n);
  pattern(7, n, counts);
  int *sc = counts + g_rank * n, *rc = malloc(sizeof(int) * n), *sd = malloc(sizeof(int) * n),
      *rd = malloc(sizeof(int) * n);
  MPIX_Generate_recv(sc, rc, MPI_COMM_WORLD);
  int st = 0, rt = 0;
  for (int p = 0; p < n; ++p) sd[p] = st, st += sc[p], rd[p] = rt, rt += rc[p];
  int* sb = malloc(sizeof(int) * (st + 1));
  int* rb = malloc(sizeof(int) * (rt + 1));
  for (int p = 0; p < n; ++p)
    for (int i = 0; i < sc[p]; ++i) sb[sd[p] + i] = g_rank * 100000 + p * 1000 + i;
  MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, MPI_COMM_WORLD);
  for (int p = 0; p < n; ++p)
    for (int i = 0; i < rc[p]; ++i)
      CHECK(rb[rd[p] + i] == p * 100000 + g_rank * 1000 + i, "alltoallv data from %d", p);
  /* Errors. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  sc[0] = -1;
  int e = MPIX_Generate_recv(sc, rc, MPI_COMM_WORLD), cls = 0;
  MPI_Error_class(e, &cls);
  CHECK(cls == MPI_ERR_COUNT, "negative count: class %d", cls);
  e = MPIX_Generate_recv(NULL, rc, MPI_COMM_WORLD);
  MPI_Error_class(e, &cls);
  CHECK(cls == MPI_ERR_ARG, "NULL sendcounts: class %d", cls);
  e = MPIX_Generate_recv(rc, rc, MPI_COMM_NULL);
  MPI_Error_class(e, &cls);
  CHECK(cls == MPI_ERR_COMM, "MPI_COMM_NULL: class %d", cls);
  int total = 0;
  MPI_Allreduce(&g_errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0) printf(total ? "FAIL generate_recv\n" : "PASS generate_recv\n");
  free(counts), free(rc), free(sd), free(rd), free(sb), free(rb);
  MPI_Comm_free(&half);
  MPI_Finalize();
  return total != 0;
}
