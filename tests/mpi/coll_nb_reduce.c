/* Nonblocking reductions, checked element by element: MPI_Ireduce, MPI_Iallreduce,
 * MPI_Ireduce_scatter_block, MPI_Ireduce_scatter, MPI_Iscan and MPI_Iexscan with MPI_SUM
 * on ints for counts 0, 1, odd and large, MPI_IN_PLACE, a gapped derived type (holes must
 * stay untouched) and a non-commutative user op (2x2 matrix product) whose result must
 * come out in rank order. Completion rotates through Wait, Test, Waitall and Testany. */
#include "coll_nb_util.h"

static int g_k = 0;
#define DONE(req, what) complete_req(&(req), g_k++, what)
#define FOR_ROOTS(root)                                          \
  for (int ri_ = 0, root = 0; ri_ < 2; ++ri_, root = g_size - 1) \
    if (ri_ == 0 || g_size > 1)

static MPI_Datatype g_gap, g_mat;
static MPI_Op g_matop;

/* Sum of val(p, i) over p in [lo, hi]. */
static int sum_val(int lo, int hi, long i) {
  int s = 0;
  for (int p = lo; p <= hi; ++p) s += val(p, i);
  return s;
}

static void mat_fill(int* m, int rank, int count) {
  for (int i = 0; i < count; ++i) mat_of(rank, i, m + 4 * i);
}
static void mat_expect(const int* got, int lo, int hi, int count, const char* what) {
  for (int i = 0; i < count; ++i) {
    int e[4];
    mat_prod(lo, hi, i, e);
    CHECK(memcmp(got + 4 * i, e, sizeof e) == 0, "%s: matrix %d is not M_%d..M_%d", what, i, lo,
          hi);
  }
}

static const int kMatCounts[] = {1, 3, 50};
#define NMAT 3

static void check_reduce(void) {
  MPI_Request req;
  for (int ci = 0; ci < NCOUNTS; ++ci) {
    const int count = kCounts[ci];
    int* in = ialloc(count, 0);
    for (int i = 0; i < count; ++i) in[i] = val(g_rank, i);
    int* out = ialloc(count, SENTINEL);
    FOR_ROOTS(root) {
      fill_int(out, count, SENTINEL);
      CHECK_MPI(MPI_Ireduce(in, out, count, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, &req));
      DONE(req, "ireduce");
      if (g_rank == root)
        for (int i = 0; i < count; ++i)
          CHECK(out[i] == sum_val(0, g_size - 1, i), "ireduce root %d count %d: element %d", root,
                count, i);
      if (g_rank == root) {
        memcpy(out, in, sizeof(int) * count);
        CHECK_MPI(
            MPI_Ireduce(MPI_IN_PLACE, out, count, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, &req));
      } else {
        CHECK_MPI(MPI_Ireduce(in, NULL, count, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, &req));
      }
      DONE(req, "ireduce in place");
      if (g_rank == root)
        for (int i = 0; i < count; ++i)
          CHECK(out[i] == sum_val(0, g_size - 1, i), "in-place ireduce root %d count %d: elem %d",
                root, count, i);
    }
    free(in);
    free(out);
  }
  for (int mi = 0; mi < NMAT; ++mi) {
    const int count = kMatCounts[mi];
    int* in = ialloc(4 * count, 0);
    int* out = ialloc(4 * count, 0);
    mat_fill(in, g_rank, count);
    FOR_ROOTS(root) {
      CHECK_MPI(MPI_Ireduce(in, out, count, g_mat, g_matop, root, MPI_COMM_WORLD, &req));
      DONE(req, "ireduce matrix");
      if (g_rank == root) mat_expect(out, 0, g_size - 1, count, "ireduce matrix");
      if (g_rank == root) memcpy(out, in, sizeof(int) * 4 * count);
      CHECK_MPI(MPI_Ireduce(g_rank == root ? MPI_IN_PLACE : in, out, count, g_mat, g_matop, root,
                            MPI_COMM_WORLD, &req));
      DONE(req, "ireduce matrix in place");
      if (g_rank == root) mat_expect(out, 0, g_size - 1, count, "in-place ireduce matrix");
    }
    free(in);
    free(out);
  }
  /* SUM over a gapped type: only the data ints combine, the holes stay. */
  const int k = 333;
  int* in = ialloc(3 * k, SENTINEL);
  for (int j = 0; j < 2 * k; ++j) in[gapped_index(j)] = val(g_rank, j);
  int* out = ialloc(3 * k, SENTINEL);
  FOR_ROOTS(root) {
    fill_int(out, 3 * k, SENTINEL);
    CHECK_MPI(MPI_Ireduce(in, out, k, g_gap, MPI_SUM, root, MPI_COMM_WORLD, &req));
    DONE(req, "ireduce gapped");
    if (g_rank == root) {
      for (int j = 0; j < 2 * k; ++j)
        CHECK(out[gapped_index(j)] == sum_val(0, g_size - 1, j), "gapped ireduce int %d", j);
      for (int e = 0; e < k; ++e) CHECK(out[3 * e + 1] == SENTINEL, "gapped ireduce wrote a hole");
    }
  }
  free(in);
  free(out);
}

static void check_allreduce(void) {
  MPI_Request req;
  for (int ci = 0; ci < NCOUNTS; ++ci) {
    const int count = kCounts[ci];
    int* in = ialloc(count, 0);
    for (int i = 0; i < count; ++i) in[i] = val(g_rank, i);
    int* out = ialloc(count, SENTINEL);
    for (int inplace = 0; inplace < 2; ++inplace) {
      if (inplace) {
        memcpy(out, in, sizeof(int) * count);
        CHECK_MPI(MPI_Iallreduce(MPI_IN_PLACE, out, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req));
      } else {
        fill_int(out, count, SENTINEL);
        CHECK_MPI(MPI_Iallreduce(in, out, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req));
      }
      DONE(req, "iallreduce");
      for (int i = 0; i < count; ++i)
        CHECK(out[i] == sum_val(0, g_size - 1, i), "iallreduce count %d in place %d: element %d",
              count, inplace, i);
    }
    free(in);
    free(out);
  }
  for (int mi = 0; mi < NMAT; ++mi) {
    const int count = kMatCounts[mi];
    int* in = ialloc(4 * count, 0);
    int* out = ialloc(4 * count, 0);
    mat_fill(in, g_rank, count);
    CHECK_MPI(MPI_Iallreduce(in, out, count, g_mat, g_matop, MPI_COMM_WORLD, &req));
    DONE(req, "iallreduce matrix");
    mat_expect(out, 0, g_size - 1, count, "iallreduce matrix");
    memcpy(out, in, sizeof(int) * 4 * count);
    CHECK_MPI(MPI_Iallreduce(MPI_IN_PLACE, out, count, g_mat, g_matop, MPI_COMM_WORLD, &req));
    DONE(req, "iallreduce matrix in place");
    mat_expect(out, 0, g_size - 1, count, "in-place iallreduce matrix");
    free(in);
    free(out);
  }
  const int k = 333;
  int* in = ialloc(3 * k, SENTINEL);
  for (int j = 0; j < 2 * k; ++j) in[gapped_index(j)] = val(g_rank, j);
  int* out = ialloc(3 * k, SENTINEL);
  CHECK_MPI(MPI_Iallreduce(in, out, k, g_gap, MPI_SUM, MPI_COMM_WORLD, &req));
  DONE(req, "iallreduce gapped");
  for (int j = 0; j < 2 * k; ++j)
    CHECK(out[gapped_index(j)] == sum_val(0, g_size - 1, j), "gapped iallreduce int %d", j);
  for (int e = 0; e < k; ++e) CHECK(out[3 * e + 1] == SENTINEL, "gapped iallreduce wrote a hole");
  free(in);
  free(out);
}

static void check_reduce_scatter_block(void) {
  MPI_Request req;
  for (int ci = 0; ci < NCOUNTS; ++ci) {
    const int count = kCounts[ci] > 20000 ? 20000 : kCounts[ci];
    const long total = (long)count * g_size;
    int* in = ialloc(total, 0);
    for (long i = 0; i < total; ++i) in[i] = val(g_rank, i);
    int* out = ialloc(total, SENTINEL);
    for (int inplace = 0; inplace < 2; ++inplace) {
      if (inplace) {
        memcpy(out, in, sizeof(int) * total);
        CHECK_MPI(MPI_Ireduce_scatter_block(MPI_IN_PLACE, out, count, MPI_INT, MPI_SUM,
                                            MPI_COMM_WORLD, &req));
      } else {
        fill_int(out, count, SENTINEL);
        CHECK_MPI(
            MPI_Ireduce_scatter_block(in, out, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req));
      }
      DONE(req, "ireduce_scatter_block");
      for (int i = 0; i < count; ++i)
        CHECK(out[i] == sum_val(0, g_size - 1, (long)g_rank * count + i),
              "ireduce_scatter_block count %d in place %d: element %d", count, inplace, i);
    }
    free(in);
    free(out);
  }
  for (int mi = 0; mi < NMAT; ++mi) {
    const int count = kMatCounts[mi];
    int* in = ialloc(4L * count * g_size, 0);
    /* Matrix element (p*count + i) of every rank's input is mat_of(rank, i): rank r's block
     * then reduces to M_0 ... M_{n-1} at element i. */
    for (int p = 0; p < g_size; ++p) mat_fill(in + 4L * count * p, g_rank, count);
    int* out = ialloc(4 * count, 0);
    CHECK_MPI(MPI_Ireduce_scatter_block(in, out, count, g_mat, g_matop, MPI_COMM_WORLD, &req));
    DONE(req, "ireduce_scatter_block matrix");
    mat_expect(out, 0, g_size - 1, count, "ireduce_scatter_block matrix");
    free(in);
    free(out);
  }
}

static void check_reduce_scatter(void) {
  MPI_Request req;
  int* counts = ialloc(g_size, 0);
  for (int ci = 0; ci < NCOUNTS - 1; ++ci) {
    const int base = kCounts[ci];
    long total = 0, before = 0;
    for (int p = 0; p < g_size; ++p) {
      counts[p] = vcount(base, p);
      if (p < g_rank) before += counts[p];
      total += counts[p];
    }
    const int mine = counts[g_rank];
    int* in = ialloc(total, 0);
    for (long i = 0; i < total; ++i) in[i] = val(g_rank, i);
    int* out = ialloc(total + 1, SENTINEL);
    for (int inplace = 0; inplace < 2; ++inplace) {
      if (inplace) {
        memcpy(out, in, sizeof(int) * total);
        CHECK_MPI(
            MPI_Ireduce_scatter(MPI_IN_PLACE, out, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req));
      } else {
        fill_int(out, total + 1, SENTINEL);
        CHECK_MPI(MPI_Ireduce_scatter(in, out, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req));
      }
      DONE(req, "ireduce_scatter");
      for (int i = 0; i < mine; ++i)
        CHECK(out[i] == sum_val(0, g_size - 1, before + i),
              "ireduce_scatter base %d in place %d: element %d", base, inplace, i);
      if (!inplace) CHECK(out[mine] == SENTINEL, "ireduce_scatter wrote past its block");
    }
    free(in);
    free(out);
  }
  /* Non-commutative: counts 2, 0, 1, 2, 0, 1, ... matrices. */
  long total = 0;
  for (int p = 0; p < g_size; ++p) {
    counts[p] = (p + 2) % 3;
    total += counts[p];
  }
  int* in = ialloc(4 * total + 4, 0);
  long at = 0;
  for (int p = 0; p < g_size; ++p) {
    mat_fill(in + 4 * at, g_rank, counts[p]);
    at += counts[p];
  }
  int* out = ialloc(4 * counts[g_rank] + 4, 0);
  CHECK_MPI(MPI_Ireduce_scatter(in, out, counts, g_mat, g_matop, MPI_COMM_WORLD, &req));
  DONE(req, "ireduce_scatter matrix");
  mat_expect(out, 0, g_size - 1, counts[g_rank], "ireduce_scatter matrix");
  free(in);
  free(out);
  free(counts);
}

static void check_scans(void) {
  MPI_Request req;
  for (int ci = 0; ci < NCOUNTS; ++ci) {
    const int count = kCounts[ci];
    int* in = ialloc(count, 0);
    for (int i = 0; i < count; ++i) in[i] = val(g_rank, i);
    int* out = ialloc(count, SENTINEL);
    for (int inplace = 0; inplace < 2; ++inplace) {
      if (inplace)
        memcpy(out, in, sizeof(int) * count);
      else
        fill_int(out, count, SENTINEL);
      CHECK_MPI(MPI_Iscan(inplace ? MPI_IN_PLACE : in, out, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                          &req));
      DONE(req, "iscan");
      for (int i = 0; i < count; ++i)
        CHECK(out[i] == sum_val(0, g_rank, i), "iscan count %d in place %d: element %d", count,
              inplace, i);
      if (inplace)
        memcpy(out, in, sizeof(int) * count);
      else
        fill_int(out, count, SENTINEL);
      CHECK_MPI(MPI_Iexscan(inplace ? MPI_IN_PLACE : in, out, count, MPI_INT, MPI_SUM,
                            MPI_COMM_WORLD, &req));
      DONE(req, "iexscan");
      if (g_rank > 0)
        for (int i = 0; i < count; ++i)
          CHECK(out[i] == sum_val(0, g_rank - 1, i), "iexscan count %d in place %d: element %d",
                count, inplace, i);
    }
    free(in);
    free(out);
  }
  for (int mi = 0; mi < NMAT; ++mi) {
    const int count = kMatCounts[mi];
    int* in = ialloc(4 * count, 0);
    int* out = ialloc(4 * count, 0);
    mat_fill(in, g_rank, count);
    for (int inplace = 0; inplace < 2; ++inplace) {
      if (inplace) memcpy(out, in, sizeof(int) * 4 * count);
      CHECK_MPI(
          MPI_Iscan(inplace ? MPI_IN_PLACE : in, out, count, g_mat, g_matop, MPI_COMM_WORLD, &req));
      DONE(req, "iscan matrix");
      mat_expect(out, 0, g_rank, count, "iscan matrix");
      if (inplace) memcpy(out, in, sizeof(int) * 4 * count);
      CHECK_MPI(MPI_Iexscan(inplace ? MPI_IN_PLACE : in, out, count, g_mat, g_matop, MPI_COMM_WORLD,
                            &req));
      DONE(req, "iexscan matrix");
      if (g_rank > 0) mat_expect(out, 0, g_rank - 1, count, "iexscan matrix");
    }
    free(in);
    free(out);
  }
  const int k = 333;
  int* in = ialloc(3 * k, SENTINEL);
  for (int j = 0; j < 2 * k; ++j) in[gapped_index(j)] = val(g_rank, j);
  int* out = ialloc(3 * k, SENTINEL);
  CHECK_MPI(MPI_Iscan(in, out, k, g_gap, MPI_SUM, MPI_COMM_WORLD, &req));
  DONE(req, "iscan gapped");
  for (int j = 0; j < 2 * k; ++j)
    CHECK(out[gapped_index(j)] == sum_val(0, g_rank, j), "gapped iscan int %d", j);
  for (int e = 0; e < k; ++e) CHECK(out[3 * e + 1] == SENTINEL, "gapped iscan wrote a hole");
  free(in);
  free(out);
}

int main(int argc, char** argv) {
  coll_init(&argc, &argv);
  g_gap = gapped_int_type();
  g_mat = mat_type();
  CHECK_MPI(MPI_Op_create(mat_op, 0, &g_matop));
  check_reduce();
  check_allreduce();
  check_reduce_scatter_block();
  check_reduce_scatter();
  check_scans();
  CHECK_MPI(MPI_Op_free(&g_matop));
  CHECK_MPI(MPI_Type_free(&g_mat));
  CHECK_MPI(MPI_Type_free(&g_gap));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  test_pass("coll_nb_reduce");
  MPI_Finalize();
  return 0;
}
