/* MPI_Bcast from several roots with every count, ints and doubles, a gapped derived
 * type (holes must stay untouched), and consecutive broadcasts from different roots. */
#include "coll_util.h"

int main(int argc, char** argv) {
  coll_init(&argc, &argv);
  const int roots[3] = {0, g_size - 1, g_size / 2};
  MPI_Datatype gap = gapped_int_type();
  for (int ri = 0; ri < 3; ++ri) {
    const int root = roots[ri];
    for (int ci = 0; ci < NCOUNTS; ++ci) {
      const int count = kCounts[ci];
      int* buf = ialloc(count, SENTINEL);
      if (g_rank == root)
        for (int i = 0; i < count; ++i) buf[i] = val(root, i);
      CHECK_MPI(MPI_Bcast(buf, count, MPI_INT, root, MPI_COMM_WORLD));
      for (int i = 0; i < count; ++i)
        CHECK(buf[i] == val(root, i), "int bcast root %d count %d: element %d is %d", root, count,
              i, buf[i]);
      free(buf);

      double* d = (double*)xmalloc(sizeof(double) * count);
      for (int i = 0; i < count; ++i) d[i] = g_rank == root ? i * 0.25 + root : -1.0;
      CHECK_MPI(MPI_Bcast(d, count, MPI_DOUBLE, root, MPI_COMM_WORLD));
      for (int i = 0; i < count; ++i)
        CHECK(d[i] == i * 0.25 + root, "double bcast root %d count %d: element %d", root, count, i);
      free(d);

      /* Derived: `count` gapped elements (2 ints each, 3 ints apart). */
      int* g = ialloc((size_t)count * 3, SENTINEL);
      if (g_rank == root)
        for (long j = 0; j < 2L * count; ++j) g[gapped_index(j)] = val(root, j);
      CHECK_MPI(MPI_Bcast(g, count, gap, root, MPI_COMM_WORLD));
      for (long j = 0; j < 2L * count; ++j)
        CHECK(g[gapped_index(j)] == val(root, j), "derived bcast root %d count %d: int %ld", root,
              count, j);
      for (long k = 0; k < count; ++k)
        CHECK(g[3 * k + 1] == SENTINEL, "derived bcast root %d count %d: hole %ld written", root,
              count, k);
      free(g);
    }
  }
  /* Back-to-back small broadcasts from rotating roots must not mix. */
  for (int it = 0; it < 50; ++it) {
    const int root = it % g_size;
    int v = g_rank == root ? it * 10 + root : -1;
    CHECK_MPI(MPI_Bcast(&v, 1, MPI_INT, root, MPI_COMM_WORLD));
    CHECK(v == it * 10 + root, "rotating bcast %d got %d", it, v);
  }
  CHECK_MPI(MPI_Type_free(&gap));
  test_pass("coll_bcast");
  MPI_Finalize();
  return 0;
}
