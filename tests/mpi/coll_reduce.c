/* MPI_Reduce and MPI_Allreduce: predefined ops on int and double for every count and
 * several roots, MPI_IN_PLACE, a gapped derived type, MINLOC/MAXLOC with ties, complex
 * sums, and a non-commutative user op (2x2 matrix product) that must come out in rank
 * order. Also MPI_Reduce_local and MPI_Op_commutative. */
#include "coll_util.h"

enum { OP_SUM, OP_MAX, OP_MIN, OP_BXOR, OP_LAND, NOPS };
static const MPI_Op kOps[NOPS] = {MPI_SUM, MPI_MAX, MPI_MIN, MPI_BXOR, MPI_LAND};
static const char* kOpNames[NOPS] = {"SUM", "MAX", "MIN", "BXOR", "LAND"};

static int expect_int(int op, long i) {
  int acc = val(0, i);
  for (int r = 1; r < g_size; ++r) {
    const int v = val(r, i);
    switch (op) {
      case OP_SUM:
        acc += v;
        break;
      case OP_MAX:
        acc = v > acc ? v : acc;
        break;
      case OP_MIN:
        acc = v < acc ? v : acc;
        break;
      case OP_BXOR:
        acc ^= v;
        break;
      case OP_LAND:
        acc = acc && v;
        break;
    }
  }
  return acc;
}

/* Value whose product over ranks is exact in double. */
static double dval(int r, long i) {
  return 1.0 + 0.5 * ((r + i) % 3);
}

static void check_int_ops(void) {
  const int roots[2] = {0, g_size - 1};
  for (int ci = 0; ci < NCOUNTS; ++ci) {
    const int count = kCounts[ci];
    int* in = ialloc(count, 0);
    for (int i = 0; i < count; ++i) in[i] = val(g_rank, i);
    int* out = ialloc(count, SENTINEL);
    for (int op = 0; op < NOPS; ++op) {
      for (int ri = 0; ri < 2; ++ri) {
        const int root = roots[ri];
        for (int i = 0; i < count; ++i) out[i] = SENTINEL;
        CHECK_MPI(MPI_Reduce(in, out, count, MPI_INT, kOps[op], root, MPI_COMM_WORLD));
        if (g_rank == root)
          for (int i = 0; i < count; ++i)
            CHECK(out[i] == expect_int(op, i),
                  "reduce %s root %d count %d: element %d is %d, want %d", kOpNames[op], root,
                  count, i, out[i], expect_int(op, i));
        /* In place at the root. */
        if (g_rank == root) {
          for (int i = 0; i < count; ++i) out[i] = in[i];
          CHECK_MPI(MPI_Reduce(MPI_IN_PLACE, out, count, MPI_INT, kOps[op], root, MPI_COMM_WORLD));
          for (int i = 0; i < count; ++i)
            CHECK(out[i] == expect_int(op, i), "in-place reduce %s root %d count %d: element %d",
                  kOpNames[op], root, count, i);
        } else {
          CHECK_MPI(MPI_Reduce(in, NULL, count, MPI_INT, kOps[op], root, MPI_COMM_WORLD));
        }
      }
      for (int i = 0; i < count; ++i) out[i] = SENTINEL;
      CHECK_MPI(MPI_Allreduce(in, out, count, MPI_INT, kOps[op], MPI_COMM_WORLD));
      for (int i = 0; i < count; ++i)
        CHECK(out[i] == expect_int(op, i), "allreduce %s count %d: element %d is %d, want %d",
              kOpNames[op], count, i, out[i], expect_int(op, i));
      for (int i = 0; i < count; ++i) out[i] = in[i];
      CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, out, count, MPI_INT, kOps[op], MPI_COMM_WORLD));
      for (int i = 0; i < count; ++i)
        CHECK(out[i] == expect_int(op, i), "in-place allreduce %s count %d: element %d",
              kOpNames[op], count, i);
    }
    free(in);
    free(out);
  }
}

static void check_double_prod(void) {
  for (int ci = 0; ci < NCOUNTS; ++ci) {
    const int count = kCounts[ci];
    double* in = (double*)xmalloc(sizeof(double) * count);
    double* out = (double*)xmalloc(sizeof(double) * count);
    for (int i = 0; i < count; ++i) in[i] = dval(g_rank, i);
    CHECK_MPI(MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_PROD, MPI_COMM_WORLD));
    for (int i = 0; i < count; ++i) {
      double e = 1;
      for (int r = 0; r < g_size; ++r) e *= dval(r, i);
      CHECK(out[i] == e, "allreduce PROD double count %d: element %d is %g, want %g", count, i,
            out[i], e);
    }
    const int root = g_size / 2;
    CHECK_MPI(MPI_Reduce(in, out, count, MPI_DOUBLE, MPI_MAX, root, MPI_COMM_WORLD));
    if (g_rank == root)
      for (int i = 0; i < count; ++i) {
        double e = dval(0, i);
        for (int r = 1; r < g_size; ++r) e = dval(r, i) > e ? dval(r, i) : e;
        CHECK(out[i] == e, "reduce MAX double count %d: element %d", count, i);
      }
    free(in);
    free(out);
  }
}

static void check_derived(void) {
  MPI_Datatype gap = gapped_int_type();
  for (int ci = 0; ci < NCOUNTS; ++ci) {
    const int count = kCounts[ci];
    int* in = ialloc((size_t)count * 3, SENTINEL);
    int* out = ialloc((size_t)count * 3, SENTINEL);
    for (long j = 0; j < 2L * count; ++j) in[gapped_index(j)] = val(g_rank, j);
    const int root = (g_size > 1) ? 1 : 0;
    CHECK_MPI(MPI_Reduce(in, out, count, gap, MPI_SUM, root, MPI_COMM_WORLD));
    if (g_rank == root) {
      for (long j = 0; j < 2L * count; ++j)
        CHECK(out[gapped_index(j)] == expect_int(OP_SUM, j), "derived reduce count %d: int %ld",
              count, j);
      for (long k = 0; k < count; ++k)
        CHECK(out[3 * k + 1] == SENTINEL, "derived reduce count %d: hole %ld written", count, k);
    }
    for (long k = 0; k < 3L * count; ++k) out[k] = SENTINEL;
    CHECK_MPI(MPI_Allreduce(in, out, count, gap, MPI_MAX, MPI_COMM_WORLD));
    for (long j = 0; j < 2L * count; ++j)
      CHECK(out[gapped_index(j)] == expect_int(OP_MAX, j), "derived allreduce count %d: int %ld",
            count, j);
    for (long k = 0; k < count; ++k)
      CHECK(out[3 * k + 1] == SENTINEL, "derived allreduce count %d: hole %ld written", count, k);
    free(in);
    free(out);
  }
  CHECK_MPI(MPI_Type_free(&gap));
}

static void check_loc(void) {
  const int count = 1001;
  struct {
    double v;
    int i;
  }* din = xmalloc(sizeof *din * count), *dout = xmalloc(sizeof *dout * count);
  int* iin = ialloc(2 * count, 0);
  int* iout = ialloc(2 * count, 0);
  for (int k = 0; k < count; ++k) {
    din[k].v = (double)((g_rank * 7 + k) % 3); /* many ties across ranks */
    din[k].i = g_rank;
    iin[2 * k] = (g_rank + k) % 4;
    iin[2 * k + 1] = g_rank;
  }
  CHECK_MPI(MPI_Allreduce(din, dout, count, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Allreduce(iin, iout, count, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD));
  for (int k = 0; k < count; ++k) {
    double mv = 1e9;
    int mi = -1, xv = -1, xi = -1;
    for (int r = 0; r < g_size; ++r) {
      const double v = (double)((r * 7 + k) % 3);
      if (v < mv) {
        mv = v;
        mi = r;
      }
      const int w = (r + k) % 4;
      if (w > xv) {
        xv = w;
        xi = r;
      }
    }
    CHECK(dout[k].v == mv && dout[k].i == mi, "MINLOC element %d: (%g,%d) want (%g,%d)", k,
          dout[k].v, dout[k].i, mv, mi);
    CHECK(iout[2 * k] == xv && iout[2 * k + 1] == xi, "MAXLOC element %d: (%d,%d) want (%d,%d)", k,
          iout[2 * k], iout[2 * k + 1], xv, xi);
  }
  free(din);
  free(dout);
  free(iin);
  free(iout);
}

static void check_complex(void) {
  const int count = 33;
  double* in = (double*)xmalloc(sizeof(double) * 2 * count);
  double* out = (double*)xmalloc(sizeof(double) * 2 * count);
  for (int k = 0; k < count; ++k) {
    in[2 * k] = g_rank + k;
    in[2 * k + 1] = -g_rank;
  }
  CHECK_MPI(MPI_Allreduce(in, out, count, MPI_C_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD));
  for (int k = 0; k < count; ++k) {
    double re = 0, im = 0;
    for (int r = 0; r < g_size; ++r) {
      re += r + k;
      im -= r;
    }
    CHECK(out[2 * k] == re && out[2 * k + 1] == im, "complex sum element %d", k);
  }
  free(in);
  free(out);
}

/* On `comm` (whose ranks need not be world ranks): reduce to several roots, allreduce,
 * in-place allreduce, all with the matrix product. */
static void check_noncommutative(MPI_Comm comm, MPI_Op op, MPI_Datatype mt) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int counts[] = {1, 7, 1000, 20000};
  for (int ci = 0; ci < 4; ++ci) {
    const int count = counts[ci];
    int* in = ialloc((size_t)count * 4, 0);
    int* out = ialloc((size_t)count * 4, SENTINEL);
    for (int k = 0; k < count; ++k) mat_of(rank, k, in + 4 * k);
    for (int root = 0; root < size; root += (size > 2 ? size / 2 : 1)) {
      CHECK_MPI(MPI_Reduce(in, out, count, mt, op, root, comm));
      if (rank == root)
        for (int k = 0; k < count; ++k) {
          int e[4];
          mat_prod(0, size - 1, k, e);
          CHECK(memcmp(e, out + 4 * k, sizeof e) == 0,
                "non-commutative reduce root %d count %d: matrix %d out of rank order", root, count,
                k);
        }
    }
    CHECK_MPI(MPI_Allreduce(in, out, count, mt, op, comm));
    for (int k = 0; k < count; ++k) {
      int e[4];
      mat_prod(0, size - 1, k, e);
      CHECK(memcmp(e, out + 4 * k, sizeof e) == 0,
            "non-commutative allreduce count %d: matrix %d out of rank order", count, k);
    }
    memcpy(out, in, sizeof(int) * 4 * count);
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, out, count, mt, op, comm));
    for (int k = 0; k < count; ++k) {
      int e[4];
      mat_prod(0, size - 1, k, e);
      CHECK(memcmp(e, out + 4 * k, sizeof e) == 0,
            "non-commutative in-place allreduce count %d: matrix %d", count, k);
    }
    free(in);
    free(out);
  }
}

static void check_user_ops(void) {
  MPI_Op op;
  CHECK_MPI(MPI_Op_create(mat_op, 0, &op));
  int commute = -1;
  CHECK_MPI(MPI_Op_commutative(op, &commute));
  CHECK(commute == 0, "MPI_Op_commutative says %d for a non-commutative op", commute);
  CHECK_MPI(MPI_Op_commutative(MPI_SUM, &commute));
  CHECK(commute == 1, "MPI_SUM not commutative");
  MPI_Datatype mt = mat_type();
  check_noncommutative(MPI_COMM_WORLD, op, mt);
  /* Ranks reversed: rank order of the new communicator is not world order. */
  MPI_Comm rev;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, g_size - g_rank, &rev));
  check_noncommutative(rev, op, mt);
  CHECK_MPI(MPI_Comm_free(&rev));
  /* MPI_Reduce_local applies inout = in op inout. */
  int a[4], b[4], e[4];
  mat_of(1, 0, a);
  mat_of(2, 0, b);
  mat_mul(a, b, e);
  CHECK_MPI(MPI_Reduce_local(a, b, 1, mt, op));
  CHECK(memcmp(b, e, sizeof e) == 0, "MPI_Reduce_local order");
  int x[3] = {1, 2, 3}, y[3] = {10, 20, 30};
  CHECK_MPI(MPI_Reduce_local(x, y, 3, MPI_INT, MPI_SUM));
  CHECK(y[0] == 11 && y[1] == 22 && y[2] == 33, "MPI_Reduce_local SUM");
  CHECK_MPI(MPI_Type_free(&mt));
  CHECK_MPI(MPI_Op_free(&op));
  CHECK(op == MPI_OP_NULL, "MPI_Op_free did not reset the handle");
}

int main(int argc, char** argv) {
  coll_init(&argc, &argv);
  check_int_ops();
  check_double_prod();
#ifndef CCMPI_TEST_SKIP_DERIVED_OPS /* MPICH rejects predefined ops on derived types */
  check_derived();
#endif
  check_loc();
  check_complex();
  check_user_ops();
  test_pass("coll_reduce");
  MPI_Finalize();
  return 0;
}
