/* Alltoallv with a sparse small pattern (every rank sends to its next rank only), then a
 * dense small one, 5 calls each, data checked. Under CCMPI_PHASED_STATS the phased
 * algorithm's choices are checked by the test's expression: a small call after a sparse
 * one agrees again (trailers would go to every peer), one after a dense small call skips
 * the agreement. */
#include "coll_util.h"

static void exchange(int dense, int count) {
  const int n = g_size;
  int* sc = ialloc((size_t)n, 0);
  int* sd = ialloc((size_t)n, 0);
  int* rc = ialloc((size_t)n, 0);
  int* rd = ialloc((size_t)n, 0);
  for (int p = 0; p < n; ++p) {
    const int to = dense ? p != g_rank : p == (g_rank + 1) % n;
    const int from = dense ? p != g_rank : p == (g_rank - 1 + n) % n;
    sc[p] = to ? count : 0;
    rc[p] = from ? count : 0;
    sd[p] = p * count;
    rd[p] = p * count;
  }
  int* s = ialloc((size_t)n * count, 0);
  int* d = ialloc((size_t)n * count, SENTINEL);
  for (int p = 0; p < n; ++p)
    for (int i = 0; i < sc[p]; ++i) s[(long)p * count + i] = val3(g_rank, p, i);
  CHECK_MPI(MPI_Alltoallv(s, sc, sd, MPI_INT, d, rc, rd, MPI_INT, MPI_COMM_WORLD));
  for (int p = 0; p < n; ++p)
    for (int i = 0; i < count; ++i) {
      const int want = rc[p] ? val3(p, g_rank, i) : SENTINEL;
      CHECK(d[(long)p * count + i] == want, "%s: from %d element %d is %d, expected %d",
            dense ? "dense" : "sparse", p, i, d[(long)p * count + i], want);
    }
  free(sc);
  free(sd);
  free(rc);
  free(rd);
  free(s);
  free(d);
}

int main(int argc, char** argv) {
  coll_init(&argc, &argv);
  for (int k = 0; k < 5; ++k) exchange(0, 16 + k);
  for (int k = 0; k < 5; ++k) exchange(1, 16 + k);
  test_pass("alltoallv_sparse");
  MPI_Finalize();
  return 0;
}
