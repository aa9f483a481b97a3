/* Scan, Exscan, Reduce_scatter_block, Reduce_scatter: MPI_SUM and MPI_MAX on ints for
 * every count, MPI_IN_PLACE, a gapped derived type, and the non-commutative matrix
 * product (prefixes and blocks must come out in rank order). */
#include "coll_util.h"

static int prefix_sum(int lo, int hi, long i) {
  int s = 0;
  for (int r = lo; r <= hi; ++r) s += val(r, i);
  return s;
}

static void check_scans(int count) {
  int* in = ialloc(count, 0);
  int* out = ialloc(count, SENTINEL);
  for (int i = 0; i < count; ++i) in[i] = val(g_rank, i);
  CHECK_MPI(MPI_Scan(in, out, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  for (int i = 0; i < count; ++i)
    CHECK(out[i] == prefix_sum(0, g_rank, i), "scan count %d: element %d", count, i);
  memcpy(out, in, sizeof(int) * count);
  CHECK_MPI(MPI_Scan(MPI_IN_PLACE, out, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  for (int i = 0; i < count; ++i)
    CHECK(out[i] == prefix_sum(0, g_rank, i), "in-place scan count %d: element %d", count, i);
  for (int i = 0; i < count; ++i) out[i] = SENTINEL;
  CHECK_MPI(MPI_Exscan(in, out, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  if (g_rank > 0)
    for (int i = 0; i < count; ++i)
      CHECK(out[i] == prefix_sum(0, g_rank - 1, i), "exscan count %d: element %d", count, i);
  memcpy(out, in, sizeof(int) * count);
  CHECK_MPI(MPI_Exscan(MPI_IN_PLACE, out, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  if (g_rank > 0)
    for (int i = 0; i < count; ++i)
      CHECK(out[i] == prefix_sum(0, g_rank - 1, i), "in-place exscan count %d: element %d", count,
            i);
#ifndef CCMPI_TEST_SKIP_DERIVED_OPS
  MPI_Datatype gap = gapped_int_type();
  int* gin = ialloc((size_t)count * 3, SENTINEL);
  int* gout = ialloc((size_t)count * 3, SENTINEL);
  for (long j = 0; j < 2L * count; ++j) gin[gapped_index(j)] = val(g_rank, j);
  CHECK_MPI(MPI_Scan(gin, gout, count, gap, MPI_SUM, MPI_COMM_WORLD));
  for (long j = 0; j < 2L * count; ++j)
    CHECK(gout[gapped_index(j)] == prefix_sum(0, g_rank, j), "derived scan count %d: int %ld",
          count, j);
  for (long k = 0; k < count; ++k) CHECK(gout[3 * k + 1] == SENTINEL, "derived scan: hole");
  free(gin);
  free(gout);
  CHECK_MPI(MPI_Type_free(&gap));
#endif
  free(in);
  free(out);
}

static void check_reduce_scatter(int count) {
  const int n = g_size;
  /* Block version: count elements per rank. */
  int* in = ialloc((size_t)n * count, 0);
  for (long k = 0; k < (long)n * count; ++k) in[k] = val(g_rank, k);
  int* out = ialloc(count, SENTINEL);
  CHECK_MPI(MPI_Reduce_scatter_block(in, out, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  for (int i = 0; i < count; ++i)
    CHECK(out[i] == prefix_sum(0, n - 1, (long)g_rank * count + i),
          "reduce_scatter_block count %d: element %d", count, i);
  int* buf = ialloc((size_t)n * count, 0);
  memcpy(buf, in, sizeof(int) * n * count);
  CHECK_MPI(MPI_Reduce_scatter_block(MPI_IN_PLACE, buf, count, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  for (int i = 0; i < count; ++i) {
    int m = val(0, (long)g_rank * count + i);
    for (int r = 1; r < n; ++r)
      if (val(r, (long)g_rank * count + i) > m) m = val(r, (long)g_rank * count + i);
    CHECK(buf[i] == m, "in-place reduce_scatter_block MAX count %d: element %d", count, i);
  }
  /* Uneven version: rank r gets (r % 3) * count / 2 elements (zeros included). */
  int* rc = ialloc(n, 0);
  long total = 0, mystart = 0;
  for (int r = 0; r < n; ++r) {
    rc[r] = (r % 3) * count / 2;
    if (r == g_rank) mystart = total;
    total += rc[r];
  }
  int* vin = ialloc(total, 0);
  for (long k = 0; k < total; ++k) vin[k] = val(g_rank, k);
  int* vout = ialloc(rc[g_rank], SENTINEL);
  CHECK_MPI(MPI_Reduce_scatter(vin, vout, rc, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  for (int i = 0; i < rc[g_rank]; ++i)
    CHECK(vout[i] == prefix_sum(0, n - 1, mystart + i), "reduce_scatter count %d: element %d",
          count, i);
  CHECK_MPI(MPI_Reduce_scatter(MPI_IN_PLACE, vin, rc, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  for (int i = 0; i < rc[g_rank]; ++i)
    CHECK(vin[i] == prefix_sum(0, n - 1, mystart + i), "in-place reduce_scatter count %d: el %d",
          count, i);
  free(in);
  free(out);
  free(buf);
  free(rc);
  free(vin);
  free(vout);
}

static void check_noncommutative(void) {
  MPI_Op op;
  CHECK_MPI(MPI_Op_create(mat_op, 0, &op));
  MPI_Datatype mt = mat_type();
  const int n = g_size;
  const int counts[] = {1, 7, 2000};
  for (int ci = 0; ci < 3; ++ci) {
    const int count = counts[ci];
    int* in = ialloc((size_t)count * 4 * n, 0);
    int* out = ialloc((size_t)count * 4 * n, SENTINEL);
    for (long k = 0; k < (long)count * n; ++k) mat_of(g_rank, k, in + 4 * k);
    int e[4];
    CHECK_MPI(MPI_Scan(in, out, count, mt, op, MPI_COMM_WORLD));
    for (int k = 0; k < count; ++k) {
      mat_prod(0, g_rank, k, e);
      CHECK(memcmp(e, out + 4 * k, sizeof e) == 0, "non-commutative scan count %d: matrix %d",
            count, k);
    }
    CHECK_MPI(MPI_Exscan(in, out, count, mt, op, MPI_COMM_WORLD));
    if (g_rank > 0)
      for (int k = 0; k < count; ++k) {
        mat_prod(0, g_rank - 1, k, e);
        CHECK(memcmp(e, out + 4 * k, sizeof e) == 0, "non-commutative exscan count %d: matrix %d",
              count, k);
      }
    CHECK_MPI(MPI_Reduce_scatter_block(in, out, count, mt, op, MPI_COMM_WORLD));
    for (int k = 0; k < count; ++k) {
      mat_prod(0, n - 1, (long)g_rank * count + k, e);
      CHECK(memcmp(e, out + 4 * k, sizeof e) == 0,
            "non-commutative reduce_scatter_block count %d: matrix %d", count, k);
    }
    int* rc = ialloc(n, count);
    CHECK_MPI(MPI_Reduce_scatter(in, out, rc, mt, op, MPI_COMM_WORLD));
    for (int k = 0; k < count; ++k) {
      mat_prod(0, n - 1, (long)g_rank * count + k, e);
      CHECK(memcmp(e, out + 4 * k, sizeof e) == 0,
            "non-commutative reduce_scatter count %d: matrix %d", count, k);
    }
    free(rc);
    free(in);
    free(out);
  }
  CHECK_MPI(MPI_Type_free(&mt));
  CHECK_MPI(MPI_Op_free(&op));
}

int main(int argc, char** argv) {
  coll_init(&argc, &argv);
  for (int ci = 0; ci < NCOUNTS; ++ci) {
    check_scans(kCounts[ci]);
    const int count = kCounts[ci] >= 100000 ? kCounts[ci] / g_size : kCounts[ci];
    check_reduce_scatter(count);
  }
  check_noncommutative();
  test_pass("coll_scan");
  MPI_Finalize();
  return 0;
}
