/* Unstructured Alltoallv (the CM-5 seed's test sets in small): every rank sends to d
 * random others, sizes uniform or far from it (a few blocks of 64 KiB among blocks of a
 * few bytes), a new pattern at every call, with
 *   - contiguous blocks of ints,
 *   - receive blocks of a strided vector type (non-contiguous: packed pieces),
 *   - MPI_IN_PLACE,
 *   - a persistent request (MPI_Alltoallv_init) started 4 times over new data.
 * Whatever algorithm the environment forces (CCMPI_ALLTOALLV_ALGORITHM,
 * CCMPI_IALLTOALLV_ALGORITHM), every received element must be the one sent. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_rank, g_size, g_errors;

#define CHECK(c, ...)                                       \
  do {                                                      \
    if (!(c)) {                                             \
      if (g_errors++ < 10) {                                \
        fprintf(stderr, "rank %d: CHECK failed: ", g_rank); \
        fprintf(stderr, __VA_ARGS__);                       \
        fprintf(stderr, "\n");                              \
      }                                                     \
    }                                                       \
  } while (0)

/* The same pseudo-random pattern on every rank: counts[s * n + t] ints from s to t. */
static void pattern(int call, int d, int skewed, int* counts) {
  unsigned x = 2463534242u + 7919u * (unsigned)call;
  for (int i = 0; i < g_size * g_size; ++i) counts[i] = 0;
  for (int s = 0; s < g_size; ++s)
    for (int k = 0; k < d && k < g_size - 1; ++k) {
      x ^= x << 13, x ^= x >> 17, x ^= x << 5;
      int t = (int)(x % (unsigned)g_size);
      if (t == s) t = (t + 1) % g_size;
      x ^= x << 13, x ^= x >> 17, x ^= x << 5;
      int c = skewed ? ((x % 5 == 0) ? 16384 : 1 + (int)(x % 7)) : 1 + (int)(x % 3000);
      counts[s * g_size + t] = c; /* repeated destinations keep the last size */
    }
  for (int s = 0; s < g_size; ++s) counts[s * g_size + s] = 3; /* the own block */
}

static int value(int call, int src, int dst, int i) {
  return call * 1000003 + src * 10007 + dst * 101 + i;
}

static void run(int call, int d, int skewed, int mode) {
  const int n = g_size, r = g_rank;
  int* counts = malloc(sizeof(int) * n * n);
  pattern(call, d, skewed, counts);
  int *sc = malloc(sizeof(int) * n), *sd = malloc(sizeof(int) * n);
  int *rc = malloc(sizeof(int) * n), *rd = malloc(sizeof(int) * n);
  int stot = 0, rtot = 0;
  for (int p = 0; p < n; ++p) {
    sc[p] = counts[r * n + p];
    sd[p] = stot;
    stot += sc[p];
    rc[p] = counts[p * n + r];
    rd[p] = rtot;
    rtot += rc[p];
  }
  /* mode 0: ints; 1: receive as a vector (every other int); 2: in place. */
  int* sbuf = malloc(sizeof(int) * (stot + 1));
  for (int p = 0; p < n; ++p)
    for (int i = 0; i < sc[p]; ++i) sbuf[sd[p] + i] = value(call, r, p, i);
  MPI_Datatype rtype = MPI_INT, vec;
  int stride = 1;
  if (mode == 1) {
    MPI_Type_vector(1, 1, 2, MPI_INT, &vec);
    MPI_Type_create_resized(vec, 0, 2 * sizeof(int), &rtype);
    MPI_Type_commit(&rtype);
    MPI_Type_free(&vec);
    stride = 2;
  }
  if (mode == 2) {
    /* In place: send and receive counts must be equal per pair; use the symmetric part. */
    for (int p = 0; p < n; ++p) {
      int c = counts[r * n + p] > counts[p * n + r] ? counts[r * n + p] : counts[p * n + r];
      sc[p] = rc[p] = c;
    }
    rtot = 0;
    for (int p = 0; p < n; ++p) rd[p] = rtot, rtot += rc[p];
  }
  int* rbuf = malloc(sizeof(int) * (stride * rtot + 1));
  for (int i = 0; i < stride * rtot; ++i) rbuf[i] = -1;
  if (mode == 2) {
    for (int p = 0; p < n; ++p)
      for (int i = 0; i < rc[p]; ++i) rbuf[rd[p] + i] = value(call, r, p, i);
    int rcode = MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, rbuf, rc, rd, MPI_INT,
                              MPI_COMM_WORLD);
    CHECK(rcode == MPI_SUCCESS, "in-place alltoallv returned %d", rcode);
  } else {
    int rcode = MPI_Alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, rtype, MPI_COMM_WORLD);
    CHECK(rcode == MPI_SUCCESS, "alltoallv returned %d", rcode);
  }
  for (int p = 0; p < n; ++p)
    for (int i = 0; i < rc[p]; ++i) {
      int got = rbuf[stride * (rd[p] + i)];
      CHECK(got == value(call, p, r, i),
            "call %d mode %d d %d skewed %d: block from %d element %d: %d, want %d", call, mode, d,
            skewed, p, i, got, value(call, p, r, i));
      if (stride == 2) CHECK(rbuf[2 * (rd[p] + i) + 1] == -1, "gap overwritten");
    }
  if (mode == 1) MPI_Type_free(&rtype);
  free(rbuf), free(sbuf), free(counts), free(sc), free(sd), free(rc), free(rd);
}

static void persistent(int d) {
  const int n = g_size, r = g_rank;
  int* counts = malloc(sizeof(int) * n * n);
  pattern(99, d, 1, counts);
  int *sc = malloc(sizeof(int) * n), *sd = malloc(sizeof(int) * n);
  int *rc = malloc(sizeof(int) * n), *rd = malloc(sizeof(int) * n);
  int stot = 0, rtot = 0;
  for (int p = 0; p < n; ++p) {
    sc[p] = counts[r * n + p], sd[p] = stot, stot += sc[p];
    rc[p] = counts[p * n + r], rd[p] = rtot, rtot += rc[p];
  }
  int* sbuf = malloc(sizeof(int) * (stot + 1));
  int* rbuf = malloc(sizeof(int) * (rtot + 1));
  MPI_Request req;
  int rcode = MPI_Alltoallv_init(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, MPI_COMM_WORLD,
                                 MPI_INFO_NULL, &req);
  CHECK(rcode == MPI_SUCCESS, "Alltoallv_init returned %d", rcode);
  for (int start = 0; start < 4; ++start) {
    for (int p = 0; p < n; ++p)
      for (int i = 0; i < sc[p]; ++i) sbuf[sd[p] + i] = value(start, r, p, i);
    for (int i = 0; i < rtot; ++i) rbuf[i] = -1;
    MPI_Start(&req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int p = 0; p < n; ++p)
      for (int i = 0; i < rc[p]; ++i)
        CHECK(rbuf[rd[p] + i] == value(start, p, r, i),
              "persistent start %d: block from %d element %d: %d", start, p, i, rbuf[rd[p] + i]);
  }
  MPI_Request_free(&req);
  free(rbuf), free(sbuf), free(counts), free(sc), free(sd), free(rc), free(rd);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  int call = 0;
  for (int d = 1; d <= 8; d *= 2)
    for (int skewed = 0; skewed < 2; ++skewed)
      for (int mode = 0; mode < 3; ++mode) run(call++, d, skewed, mode);
  for (int d = 1; d <= 4; d *= 4) persistent(d);
  int total = 0;
  MPI_Allreduce(&g_errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0)
    printf(total == 0 ? "PASS alltoallv_sched (%d calls)\n" : "FAIL alltoallv_sched\n", call);
  MPI_Finalize();
  return total != 0;
}
