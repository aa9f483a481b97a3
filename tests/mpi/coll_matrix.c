/* The collective correctness matrix: every algorithm of every collective table, forced in
 * turn through the communicator info hint ccmpi_<table>_algorithm, x counts 0, 1, an odd
 * count and one above the pipeline segment (the test sets CCMPI_BCAST_SEGMENT small) x a
 * basic type (MPI_INT), a gapped derived type, MPI_IN_PLACE where the standard allows it
 * and, for reductions, a non-commutative user op; blocking tables run blocking, the
 * nonblocking tables (i<coll>) run as MPI_I<coll> and as persistent MPI_<Coll>_init
 * started twice (and the neighbourhood tables, one per collective, in all three forms, on a
 * periodic ring). Every result is checked element by element, and the holes of the derived
 * type must stay untouched.
 *
 * usage: coll_matrix PATH_TO_CCMPI_INFO [TABLE]   (the algorithm list comes from
 * `ccmpi_info --algorithms`, so new algorithms are tested without touching this file) */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <mpix_ccmpi.h>

#include "coll_util.h"

static int V;    /* variant: 0 MPI_INT, 1 gapped derived, 2 in place, 3 non-commutative op */
static int M;    /* mode: 0 blocking, 1 nonblocking, 2 persistent */
static int REP;  /* persistent: which start */
static int N, R; /* communicator size and rank */
static MPI_Datatype g_gap, g_mat;
static MPI_Op g_matop;
static MPI_Request g_preq;
static char g_ctx[512];

#define CK(cond, ...)                  \
  do {                                 \
    if (!(cond)) {                     \
      fprintf(stderr, "[%s] ", g_ctx); \
      CHECK(cond, __VA_ARGS__);        \
    }                                  \
  } while (0)

/* Runs one collective call in the current mode. */
#define CALL(BLOCKING, NB, INIT)                                       \
  do {                                                                 \
    if (M == 0) {                                                      \
      CK((BLOCKING) == MPI_SUCCESS, "%s failed", #BLOCKING);           \
    } else if (M == 1) {                                               \
      MPI_Request rq_;                                                 \
      CK((NB) == MPI_SUCCESS, "%s failed", #NB);                       \
      CK(MPI_Wait(&rq_, MPI_STATUS_IGNORE) == MPI_SUCCESS, "wait");    \
    } else {                                                           \
      if (REP == 0) CK((INIT) == MPI_SUCCESS, "%s failed", #INIT);     \
      CK(MPI_Start(&g_preq) == MPI_SUCCESS, "MPI_Start");              \
      CK(MPI_Wait(&g_preq, MPI_STATUS_IGNORE) == MPI_SUCCESS, "wait"); \
    }                                                                  \
  } while (0)

static int reps(void) {
  return M == 2 ? 2 : 1;
}
static void end_persistent(void) {
  if (M == 2) CHECK_MPI(MPI_Request_free(&g_preq));
}

/* ints of data per element, ints of buffer per element, the element type */
static int ipe(void) {
  return V == 1 ? 2 : V == 3 ? 4 : 1;
}
static int bpe(void) {
  return V == 1 ? 3 : V == 3 ? 4 : 1;
}
static MPI_Datatype T(void) {
  return V == 1 ? g_gap : V == 3 ? g_mat : MPI_INT;
}
static int* balloc(long nelem) {
  return ialloc((size_t)(nelem * bpe()), SENTINEL);
}
/* Buffer index of data int j of the element sequence starting at element `at`. */
static long ix(long at, long j) {
  return at * bpe() + (V == 1 ? gapped_index(j) : j);
}
static void check_holes(const int* b, long nelem) {
  if (V != 1) return;
  for (long e = 0; e < nelem; ++e) CK(b[3 * e + 1] == SENTINEL, "hole of element %ld written", e);
}

/* Reductions: rank r's data int j, and the combination of ranks lo..hi at data int j. */
static int contrib(int r, long j) {
  if (V == 3) {
    int m[4];
    mat_of(r, j / 4, m);
    return m[j % 4];
  }
  return val(r, j);
}
static int expect_red(int lo, int hi, long j) {
  if (V == 3) {
    int m[4];
    mat_prod(lo, hi, j / 4, m);
    return m[j % 4];
  }
  int s = 0;
  for (int r = lo; r <= hi; ++r) s += val(r, j);
  return s;
}
static MPI_Op OP(void) {
  return V == 3 ? g_matop : MPI_SUM;
}

/* v-collective counts: rank p's block has cnt(p) elements; blocks are laid out with a
 * one-element hole between them. */
static int cnt(int count, int p) {
  return count == 0 ? (p % 3 == 1) : count + p % 2;
}
static void layout(int count, int* counts, int* displs, long* total) {
  long at = 0;
  for (int p = 0; p < N; ++p) {
    counts[p] = cnt(count, p);
    displs[p] = (int)at;
    at += counts[p] + 1;
  }
  *total = at;
}

/* ---- the collectives ---- */

/* Nobody may leave the barrier before rank 0 (which arrives 20 ms late) entered it: the
 * ranks share one machine, so MPI_Wtime (CLOCK_MONOTONIC) is comparable across them. */
static void t_barrier(MPI_Comm c, int count) {
  (void)count;
  for (REP = 0; REP < reps(); ++REP) {
    double entered = 0;
    if (R == 0) {
      usleep(20000);
      entered = MPI_Wtime();
    }
    CALL(MPI_Barrier(c), MPI_Ibarrier(c, &rq_), MPI_Barrier_init(c, MPI_INFO_NULL, &g_preq));
    const double left = MPI_Wtime();
    CHECK_MPI(MPI_Bcast(&entered, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    CK(left >= entered, "left the barrier %.6f s before rank 0 entered it", entered - left);
  }
  end_persistent();
}

static void t_bcast(MPI_Comm c, int count) {
  const int root = N - 1 - count % N;
  int* b = balloc(count);
  for (REP = 0; REP < reps(); ++REP) {
    for (long k = 0; k < (long)count * bpe(); ++k) b[k] = SENTINEL;
    if (R == root)
      for (long j = 0; j < (long)count * ipe(); ++j) b[ix(0, j)] = val(root, j) + REP;
    CALL(MPI_Bcast(b, count, T(), root, c), MPI_Ibcast(b, count, T(), root, c, &rq_),
         MPI_Bcast_init(b, count, T(), root, c, MPI_INFO_NULL, &g_preq));
    for (long j = 0; j < (long)count * ipe(); ++j)
      CK(b[ix(0, j)] == val(root, j) + REP, "int %ld: %d != %d", j, b[ix(0, j)],
         val(root, j) + REP);
    check_holes(b, count);
  }
  end_persistent();
  free(b);
}

static void t_reduce(MPI_Comm c, int count) {
  const int root = count % N;
  int* in = balloc(count);
  int* out = balloc(count);
  for (REP = 0; REP < reps(); ++REP) {
    for (long k = 0; k < (long)count * bpe(); ++k) out[k] = SENTINEL;
    int* src = (V == 2 && R == root) ? out : in;
    for (long j = 0; j < (long)count * ipe(); ++j) src[ix(0, j)] = contrib(R, j);
    const void* sb = (V == 2 && R == root) ? MPI_IN_PLACE : in;
    CALL(MPI_Reduce(sb, out, count, T(), OP(), root, c),
         MPI_Ireduce(sb, out, count, T(), OP(), root, c, &rq_),
         MPI_Reduce_init(sb, out, count, T(), OP(), root, c, MPI_INFO_NULL, &g_preq));
    if (R == root) {
      for (long j = 0; j < (long)count * ipe(); ++j)
        CK(out[ix(0, j)] == expect_red(0, N - 1, j), "int %ld: %d != %d", j, out[ix(0, j)],
           expect_red(0, N - 1, j));
      check_holes(out, count);
    }
  }
  end_persistent();
  free(in);
  free(out);
}

static void t_allreduce(MPI_Comm c, int count) {
  int* in = balloc(count);
  int* out = balloc(count);
  for (REP = 0; REP < reps(); ++REP) {
    for (long k = 0; k < (long)count * bpe(); ++k) out[k] = SENTINEL;
    int* src = V == 2 ? out : in;
    for (long j = 0; j < (long)count * ipe(); ++j) src[ix(0, j)] = contrib(R, j);
    const void* sb = V == 2 ? MPI_IN_PLACE : in;
    CALL(MPI_Allreduce(sb, out, count, T(), OP(), c),
         MPI_Iallreduce(sb, out, count, T(), OP(), c, &rq_),
         MPI_Allreduce_init(sb, out, count, T(), OP(), c, MPI_INFO_NULL, &g_preq));
    for (long j = 0; j < (long)count * ipe(); ++j)
      CK(out[ix(0, j)] == expect_red(0, N - 1, j), "int %ld: %d != %d", j, out[ix(0, j)],
         expect_red(0, N - 1, j));
    check_holes(out, count);
  }
  end_persistent();
  free(in);
  free(out);
}

static void t_scan(MPI_Comm c, int count, int exclusive) {
  int* in = balloc(count);
  int* out = balloc(count);
  for (REP = 0; REP < reps(); ++REP) {
    for (long k = 0; k < (long)count * bpe(); ++k) out[k] = SENTINEL;
    int* src = V == 2 ? out : in;
    for (long j = 0; j < (long)count * ipe(); ++j) src[ix(0, j)] = contrib(R, j);
    const void* sb = V == 2 ? MPI_IN_PLACE : in;
    if (exclusive)
      CALL(MPI_Exscan(sb, out, count, T(), OP(), c),
           MPI_Iexscan(sb, out, count, T(), OP(), c, &rq_),
           MPI_Exscan_init(sb, out, count, T(), OP(), c, MPI_INFO_NULL, &g_preq));
    else
      CALL(MPI_Scan(sb, out, count, T(), OP(), c), MPI_Iscan(sb, out, count, T(), OP(), c, &rq_),
           MPI_Scan_init(sb, out, count, T(), OP(), c, MPI_INFO_NULL, &g_preq));
    if (exclusive && R == 0) continue; /* undefined at rank 0 */
    const int hi = exclusive ? R - 1 : R;
    for (long j = 0; j < (long)count * ipe(); ++j)
      CK(out[ix(0, j)] == expect_red(0, hi, j), "int %ld: %d != %d", j, out[ix(0, j)],
         expect_red(0, hi, j));
    check_holes(out, count);
  }
  end_persistent();
  free(in);
  free(out);
}

static void t_reduce_scatter_block(MPI_Comm c, int count) {
  int* in = balloc((long)N * count);
  int* out = balloc((long)N * count);
  const long per = (long)count * ipe();
  for (REP = 0; REP < reps(); ++REP) {
    for (long k = 0; k < (long)N * count * bpe(); ++k) out[k] = SENTINEL;
    int* src = V == 2 ? out : in;
    for (long j = 0; j < N * per; ++j) src[ix(0, j)] = contrib(R, j);
    const void* sb = V == 2 ? MPI_IN_PLACE : in;
    CALL(MPI_Reduce_scatter_block(sb, out, count, T(), OP(), c),
         MPI_Ireduce_scatter_block(sb, out, count, T(), OP(), c, &rq_),
         MPI_Reduce_scatter_block_init(sb, out, count, T(), OP(), c, MPI_INFO_NULL, &g_preq));
    for (long j = 0; j < per; ++j)
      CK(out[ix(0, j)] == expect_red(0, N - 1, R * per + j), "int %ld: %d != %d", j, out[ix(0, j)],
         expect_red(0, N - 1, R * per + j));
    if (V != 2) check_holes(out, count);
  }
  end_persistent();
  free(in);
  free(out);
}

static void t_reduce_scatter(MPI_Comm c, int count) {
  int* rc = (int*)xmalloc(sizeof(int) * N);
  long total = 0, first = 0;
  for (int p = 0; p < N; ++p) {
    rc[p] = cnt(count, p);
    if (p < R) first += rc[p];
    total += rc[p];
  }
  int* in = balloc(total);
  int* out = balloc(total);
  for (REP = 0; REP < reps(); ++REP) {
    for (long k = 0; k < total * bpe(); ++k) out[k] = SENTINEL;
    int* src = V == 2 ? out : in;
    for (long j = 0; j < total * ipe(); ++j) src[ix(0, j)] = contrib(R, j);
    const void* sb = V == 2 ? MPI_IN_PLACE : in;
    CALL(MPI_Reduce_scatter(sb, out, rc, T(), OP(), c),
         MPI_Ireduce_scatter(sb, out, rc, T(), OP(), c, &rq_),
         MPI_Reduce_scatter_init(sb, out, rc, T(), OP(), c, MPI_INFO_NULL, &g_preq));
    for (long j = 0; j < (long)rc[R] * ipe(); ++j) {
      const long g = first * ipe() + j;
      CK(out[ix(0, j)] == expect_red(0, N - 1, g), "int %ld: %d != %d", j, out[ix(0, j)],
         expect_red(0, N - 1, g));
    }
    if (V != 2) check_holes(out, rc[R]);
  }
  end_persistent();
  free(rc);
  free(in);
  free(out);
}

static void t_gather(MPI_Comm c, int count) {
  const int root = (count + 1) % N;
  int* in = balloc(count);
  int* out = balloc((long)N * count);
  const long per = (long)count * ipe();
  for (REP = 0; REP < reps(); ++REP) {
    for (long k = 0; k < (long)N * count * bpe(); ++k) out[k] = SENTINEL;
    const int inplace = V == 2 && R == root;
    for (long j = 0; j < per; ++j) {
      if (inplace)
        out[ix((long)R * count, j)] = val(R, j) + REP;
      else
        in[ix(0, j)] = val(R, j) + REP;
    }
    const void* sb = inplace ? MPI_IN_PLACE : in;
    CALL(MPI_Gather(sb, count, T(), out, count, T(), root, c),
         MPI_Igather(sb, count, T(), out, count, T(), root, c, &rq_),
         MPI_Gather_init(sb, count, T(), out, count, T(), root, c, MPI_INFO_NULL, &g_preq));
    if (R == root) {
      for (int p = 0; p < N; ++p)
        for (long j = 0; j < per; ++j)
          CK(out[ix((long)p * count, j)] == val(p, j) + REP, "block %d int %ld", p, j);
      check_holes(out, (long)N * count);
    }
  }
  end_persistent();
  free(in);
  free(out);
}

static void t_gatherv(MPI_Comm c, int count) {
  const int root = (count + 2) % N;
  int* counts = (int*)xmalloc(sizeof(int) * N);
  int* displs = (int*)xmalloc(sizeof(int) * N);
  long total;
  layout(count, counts, displs, &total);
  int* in = balloc(counts[R]);
  int* out = balloc(total);
  for (REP = 0; REP < reps(); ++REP) {
    for (long k = 0; k < total * bpe(); ++k) out[k] = SENTINEL;
    const int inplace = V == 2 && R == root;
    for (long j = 0; j < (long)counts[R] * ipe(); ++j) {
      if (inplace)
        out[ix(displs[R], j)] = val(R, j) - REP;
      else
        in[ix(0, j)] = val(R, j) - REP;
    }
    const void* sb = inplace ? MPI_IN_PLACE : in;
    CALL(MPI_Gatherv(sb, counts[R], T(), out, counts, displs, T(), root, c),
         MPI_Igatherv(sb, counts[R], T(), out, counts, displs, T(), root, c, &rq_),
         MPI_Gatherv_init(sb, counts[R], T(), out, counts, displs, T(), root, c, MPI_INFO_NULL,
                          &g_preq));
    if (R == root) {
      for (int p = 0; p < N; ++p) {
        for (long j = 0; j < (long)counts[p] * ipe(); ++j)
          CK(out[ix(displs[p], j)] == val(p, j) - REP, "block %d int %ld", p, j);
        const long gap = (long)(displs[p] + counts[p]) * bpe();
        CK(out[gap] == SENTINEL, "the gap after block %d was written", p);
      }
      check_holes(out, total);
    }
  }
  end_persistent();
  free(counts);
  free(displs);
  free(in);
  free(out);
}

static void t_scatter(MPI_Comm c, int count) {
  const int root = (count + 3) % N;
  int* in = balloc((long)N * count);
  int* out = balloc(count);
  const long per = (long)count * ipe();
  for (REP = 0; REP < reps(); ++REP) {
    for (long k = 0; k < (long)count * bpe(); ++k) out[k] = SENTINEL;
    if (R == root)
      for (int p = 0; p < N; ++p)
        for (long j = 0; j < per; ++j) in[ix((long)p * count, j)] = val(p, j) * 3 + REP;
    void* rb = (V == 2 && R == root) ? MPI_IN_PLACE : out;
    CALL(MPI_Scatter(in, count, T(), rb, count, T(), root, c),
         MPI_Iscatter(in, count, T(), rb, count, T(), root, c, &rq_),
         MPI_Scatter_init(in, count, T(), rb, count, T(), root, c, MPI_INFO_NULL, &g_preq));
    const int* got = (V == 2 && R == root) ? in + (long)R * count * bpe() : out;
    for (long j = 0; j < per; ++j)
      CK(got[ix(0, j)] == val(R, j) * 3 + REP, "int %ld: %d", j, got[ix(0, j)]);
    check_holes(got, count);
  }
  end_persistent();
  free(in);
  free(out);
}

static void t_scatterv(MPI_Comm c, int count) {
  const int root = (count + 4) % N;
  int* counts = (int*)xmalloc(sizeof(int) * N);
  int* displs = (int*)xmalloc(sizeof(int) * N);
  long total;
  layout(count, counts, displs, &total);
  int* in = balloc(total);
  int* out = balloc(counts[R] + 1);
  for (REP = 0; REP < reps(); ++REP) {
    for (long k = 0; k < (long)(counts[R] + 1) * bpe(); ++k) out[k] = SENTINEL;
    if (R == root)
      for (int p = 0; p < N; ++p)
        for (long j = 0; j < (long)counts[p] * ipe(); ++j)
          in[ix(displs[p], j)] = val(p, j) + 5 * REP;
    void* rb = (V == 2 && R == root) ? MPI_IN_PLACE : out;
    CALL(MPI_Scatterv(in, counts, displs, T(), rb, counts[R], T(), root, c),
         MPI_Iscatterv(in, counts, displs, T(), rb, counts[R], T(), root, c, &rq_),
         MPI_Scatterv_init(in, counts, displs, T(), rb, counts[R], T(), root, c, MPI_INFO_NULL,
                           &g_preq));
    const int* got = (V == 2 && R == root) ? in + (long)displs[R] * bpe() : out;
    for (long j = 0; j < (long)counts[R] * ipe(); ++j)
      CK(got[ix(0, j)] == val(R, j) + 5 * REP, "int %ld: %d", j, got[ix(0, j)]);
    if (!(V == 2 && R == root))
      CK(out[(long)counts[R] * bpe()] == SENTINEL, "wrote past the block");
    check_holes(got, counts[R]);
  }
  end_persistent();
  free(counts);
  free(displs);
  free(in);
  free(out);
}

static void t_allgather(MPI_Comm c, int count) {
  int* in = balloc(count);
  int* out = balloc((long)N * count);
  const long per = (long)count * ipe();
  for (REP = 0; REP < reps(); ++REP) {
    for (long k = 0; k < (long)N * count * bpe(); ++k) out[k] = SENTINEL;
    for (long j = 0; j < per; ++j) {
      if (V == 2)
        out[ix((long)R * count, j)] = val(R, j) + REP;
      else
        in[ix(0, j)] = val(R, j) + REP;
    }
    const void* sb = V == 2 ? MPI_IN_PLACE : in;
    CALL(MPI_Allgather(sb, count, T(), out, count, T(), c),
         MPI_Iallgather(sb, count, T(), out, count, T(), c, &rq_),
         MPI_Allgather_init(sb, count, T(), out, count, T(), c, MPI_INFO_NULL, &g_preq));
    for (int p = 0; p < N; ++p)
      for (long j = 0; j < per; ++j)
        CK(out[ix((long)p * count, j)] == val(p, j) + REP, "block %d int %ld: %d", p, j,
           out[ix((long)p * count, j)]);
    check_holes(out, (long)N * count);
  }
  end_persistent();
  free(in);
  free(out);
}

static void t_allgatherv(MPI_Comm c, int count) {
  int* counts = (int*)xmalloc(sizeof(int) * N);
  int* displs = (int*)xmalloc(sizeof(int) * N);
  long total;
  layout(count, counts, displs, &total);
  int* in = balloc(counts[R]);
  int* out = balloc(total);
  for (REP = 0; REP < reps(); ++REP) {
    for (long k = 0; k < total * bpe(); ++k) out[k] = SENTINEL;
    for (long j = 0; j < (long)counts[R] * ipe(); ++j) {
      if (V == 2)
        out[ix(displs[R], j)] = val(R, j) - 2 * REP;
      else
        in[ix(0, j)] = val(R, j) - 2 * REP;
    }
    const void* sb = V == 2 ? MPI_IN_PLACE : in;
    CALL(MPI_Allgatherv(sb, counts[R], T(), out, counts, displs, T(), c),
         MPI_Iallgatherv(sb, counts[R], T(), out, counts, displs, T(), c, &rq_),
         MPI_Allgatherv_init(sb, counts[R], T(), out, counts, displs, T(), c, MPI_INFO_NULL,
                             &g_preq));
    for (int p = 0; p < N; ++p) {
      for (long j = 0; j < (long)counts[p] * ipe(); ++j)
        CK(out[ix(displs[p], j)] == val(p, j) - 2 * REP, "block %d int %ld: %d", p, j,
           out[ix(displs[p], j)]);
      CK(out[(long)(displs[p] + counts[p]) * bpe()] == SENTINEL, "gap after block %d written", p);
    }
    check_holes(out, total);
  }
  end_persistent();
  free(counts);
  free(displs);
  free(in);
  free(out);
}

static void t_alltoall(MPI_Comm c, int count) {
  int* in = balloc((long)N * count);
  int* out = balloc((long)N * count);
  const long per = (long)count * ipe();
  for (REP = 0; REP < reps(); ++REP) {
    for (long k = 0; k < (long)N * count * bpe(); ++k) out[k] = SENTINEL;
    int* src = V == 2 ? out : in;
    for (int p = 0; p < N; ++p)
      for (long j = 0; j < per; ++j) src[ix((long)p * count, j)] = val3(R, p, j) + REP;
    const void* sb = V == 2 ? MPI_IN_PLACE : in;
    CALL(MPI_Alltoall(sb, count, T(), out, count, T(), c),
         MPI_Ialltoall(sb, count, T(), out, count, T(), c, &rq_),
         MPI_Alltoall_init(sb, count, T(), out, count, T(), c, MPI_INFO_NULL, &g_preq));
    for (int p = 0; p < N; ++p)
      for (long j = 0; j < per; ++j)
        CK(out[ix((long)p * count, j)] == val3(p, R, j) + REP, "block %d int %ld: %d", p, j,
           out[ix((long)p * count, j)]);
    check_holes(out, (long)N * count);
  }
  end_persistent();
  free(in);
  free(out);
}

/* Alltoallv/w: rank s sends count + ((s + d) % 3 == 0) elements to d (symmetric, as
 * MPI_IN_PLACE requires), blocks laid out with a one-element hole between them. */
static int pc(int count, int s, int d) {
  return count + ((s + d) % 3 == 0);
}

static void t_alltoallvw(MPI_Comm c, int count, int w) {
  int *sc = (int*)xmalloc(sizeof(int) * N), *sd = (int*)xmalloc(sizeof(int) * N);
  int *rc = (int*)xmalloc(sizeof(int) * N), *rd = (int*)xmalloc(sizeof(int) * N);
  MPI_Datatype* ty = (MPI_Datatype*)xmalloc(sizeof(MPI_Datatype) * N);
  long st = 0, rt = 0;
  const int ext = bpe() * (int)sizeof(int);
  for (int p = 0; p < N; ++p) {
    sc[p] = pc(count, R, p);
    rc[p] = pc(count, p, R);
    sd[p] = (int)st;
    rd[p] = (int)rt;
    st += sc[p] + 1;
    rt += rc[p] + 1;
    ty[p] = T();
  }
  int* in = balloc(st);
  int* out = balloc(rt);
  int *sdb = (int*)xmalloc(sizeof(int) * N), *rdb = (int*)xmalloc(sizeof(int) * N);
  for (int p = 0; p < N; ++p) {
    sdb[p] = sd[p] * ext;
    rdb[p] = rd[p] * ext;
  }
  for (REP = 0; REP < reps(); ++REP) {
    for (long k = 0; k < rt * bpe(); ++k) out[k] = SENTINEL;
    for (int p = 0; p < N; ++p)
      for (long j = 0; j < (long)sc[p] * ipe(); ++j) {
        if (V == 2)
          out[ix(rd[p], j)] = val3(R, p, j) - REP;
        else
          in[ix(sd[p], j)] = val3(R, p, j) - REP;
      }
    const void* sb = V == 2 ? MPI_IN_PLACE : in;
    if (w)
      CALL(MPI_Alltoallw(sb, sc, sdb, ty, out, rc, rdb, ty, c),
           MPI_Ialltoallw(sb, sc, sdb, ty, out, rc, rdb, ty, c, &rq_),
           MPI_Alltoallw_init(sb, sc, sdb, ty, out, rc, rdb, ty, c, MPI_INFO_NULL, &g_preq));
    else
      CALL(MPI_Alltoallv(sb, sc, sd, T(), out, rc, rd, T(), c),
           MPI_Ialltoallv(sb, sc, sd, T(), out, rc, rd, T(), c, &rq_),
           MPI_Alltoallv_init(sb, sc, sd, T(), out, rc, rd, T(), c, MPI_INFO_NULL, &g_preq));
    for (int p = 0; p < N; ++p) {
      for (long j = 0; j < (long)rc[p] * ipe(); ++j)
        CK(out[ix(rd[p], j)] == val3(p, R, j) - REP, "block %d int %ld: %d", p, j,
           out[ix(rd[p], j)]);
      CK(out[(long)(rd[p] + rc[p]) * bpe()] == SENTINEL, "gap after block %d written", p);
    }
    check_holes(out, rt);
  }
  end_persistent();
  free(sc), free(sd), free(rc), free(rd), free(sdb), free(rdb), free(ty), free(in), free(out);
}

/* ---- the matrix ---- */

/* kEveryMode: a blocking table whose collective is also run nonblocking and persistent (the
 * neighbourhood collectives share one table for the three forms). */
enum { kBasic = 1, kDerived = 2, kInPlace = 4, kNonCommutative = 8, kEveryMode = 16 };
/* MPIX_Generate_recv (blocking only): a pattern every rank can compute, sparse and
 * changing with count and REP; the receive counts must be the pattern's column. */
static void t_generate_recv(MPI_Comm c, int count) {
  int* sc = (int*)malloc(sizeof(int) * (size_t)N);
  int* rc = (int*)malloc(sizeof(int) * (size_t)N);
  for (REP = 0; REP < reps(); ++REP) {
    /* s -> t carries (s * 7 + t * 3 + count + REP) % 5 == 0 ? 0 : s * N + t + count */
#define GR_COUNT(s, t) (((s)*7 + (t)*3 + count + REP) % 5 == 0 ? 0 : (s)*N + (t) + count)
    for (int t = 0; t < N; ++t) sc[t] = GR_COUNT(R, t), rc[t] = -1;
    CHECK_MPI(MPIX_Generate_recv(sc, rc, c));
    for (int s = 0; s < N; ++s)
      CK(rc[s] == GR_COUNT(s, R), "recvcounts[%d] = %d, expected %d", s, rc[s], GR_COUNT(s, R));
#undef GR_COUNT
  }
  free(sc);
  free(rc);
}

struct Coll {
  const char* name;
  void (*fn)(MPI_Comm, int);
  int variants;
};
static void t_exscan(MPI_Comm c, int n) {
  t_scan(c, n, 1);
}
static void t_scan_incl(MPI_Comm c, int n) {
  t_scan(c, n, 0);
}
static void t_alltoallv(MPI_Comm c, int n) {
  t_alltoallvw(c, n, 0);
}
static void t_alltoallw(MPI_Comm c, int n) {
  t_alltoallvw(c, n, 1);
}
/* Neighbourhood collectives (tables neighbor_*, run blocking, nonblocking and persistent):
 * on a periodic ring (a 1-D Cartesian communicator over c, with c's algorithm hint), whose
 * neighbour lists are [left, right] both ways; with 1 or 2 ranks both neighbours are one
 * rank, told apart only by the order of the messages. Block d of a sender goes to its
 * neighbour d; block 0 of a receiver comes from its left neighbour (that one's block 1). */
static MPI_Comm ring_of(MPI_Comm c) {
  MPI_Comm ring;
  const int periodic = 1;
  CHECK_MPI(MPI_Cart_create(c, 1, &N, &periodic, 0, &ring));
  MPI_Info info;
  CHECK_MPI(MPI_Comm_get_info(c, &info));
  CHECK_MPI(MPI_Comm_set_info(ring, info));
  CHECK_MPI(MPI_Info_free(&info));
  return ring;
}
static int left_of(int r) {
  return (r - 1 + N) % N;
}
static int right_of(int r) {
  return (r + 1) % N;
}
/* The rank block b of a receiver comes from, and that sender's block index. */
static int from_of(int b) {
  return b == 0 ? left_of(R) : right_of(R);
}
/* Elements rank s sends as its block d (v/w forms; allgatherv sends one count to all). */
static int ncnt(int count, int s, int d) {
  return count + (s + d) % 2;
}

static void t_neighbor_allgather_v(MPI_Comm c0, int count, int v) {
  MPI_Comm c = ring_of(c0);
  const int mine = v ? ncnt(count, R, 0) : count;
  int rc[2], rd[2];
  long total = 0;
  for (int b = 0; b < 2; ++b) {
    rc[b] = v ? ncnt(count, from_of(b), 0) : count;
    rd[b] = (int)total;
    total += rc[b] + (v ? 1 : 0);
  }
  int* in = balloc(mine);
  int* out = balloc(total);
  for (REP = 0; REP < reps(); ++REP) {
    for (long k = 0; k < total * bpe(); ++k) out[k] = SENTINEL;
    for (long j = 0; j < (long)mine * ipe(); ++j) in[ix(0, j)] = val(R, j) + REP;
    if (v) {
      CALL(
          MPI_Neighbor_allgatherv(in, mine, T(), out, rc, rd, T(), c),
          MPI_Ineighbor_allgatherv(in, mine, T(), out, rc, rd, T(), c, &rq_),
          MPI_Neighbor_allgatherv_init(in, mine, T(), out, rc, rd, T(), c, MPI_INFO_NULL, &g_preq));
    } else {
      CALL(MPI_Neighbor_allgather(in, mine, T(), out, count, T(), c),
           MPI_Ineighbor_allgather(in, mine, T(), out, count, T(), c, &rq_),
           MPI_Neighbor_allgather_init(in, mine, T(), out, count, T(), c, MPI_INFO_NULL, &g_preq));
    }
    for (int b = 0; b < 2; ++b)
      for (long j = 0; j < (long)rc[b] * ipe(); ++j)
        CK(out[ix(rd[b], j)] == val(from_of(b), j) + REP, "block %d int %ld: %d", b, j,
           out[ix(rd[b], j)]);
    check_holes(out, total);
  }
  end_persistent();
  free(in);
  free(out);
  CHECK_MPI(MPI_Comm_free(&c));
}
static void t_neighbor_allgather(MPI_Comm c, int n) {
  t_neighbor_allgather_v(c, n, 0);
}
static void t_neighbor_allgatherv(MPI_Comm c, int n) {
  t_neighbor_allgather_v(c, n, 1);
}

/* kind 0 alltoall, 1 alltoallv, 2 alltoallw */
static void t_neighbor_alltoall_k(MPI_Comm c0, int count, int kind) {
  MPI_Comm c = ring_of(c0);
  int sc[2], sd[2], rc[2], rd[2];
  MPI_Aint swd[2], rwd[2];
  MPI_Datatype ty[2] = {T(), T()};
  long st = 0, rt = 0;
  const int ext = bpe() * (int)sizeof(int);
  for (int b = 0; b < 2; ++b) {
    sc[b] = kind ? ncnt(count, R, b) : count;
    rc[b] = kind ? ncnt(count, from_of(b), 1 - b) : count;
    sd[b] = (int)st;
    rd[b] = (int)rt;
    swd[b] = (MPI_Aint)st * ext;
    rwd[b] = (MPI_Aint)rt * ext;
    st += sc[b] + (kind ? 1 : 0);
    rt += rc[b] + (kind ? 1 : 0);
  }
  int* in = balloc(st);
  int* out = balloc(rt);
  for (REP = 0; REP < reps(); ++REP) {
    for (long k = 0; k < rt * bpe(); ++k) out[k] = SENTINEL;
    for (int b = 0; b < 2; ++b)
      for (long j = 0; j < (long)sc[b] * ipe(); ++j) in[ix(sd[b], j)] = val3(R, b, j) + REP;
    if (kind == 0) {
      CALL(MPI_Neighbor_alltoall(in, count, T(), out, count, T(), c),
           MPI_Ineighbor_alltoall(in, count, T(), out, count, T(), c, &rq_),
           MPI_Neighbor_alltoall_init(in, count, T(), out, count, T(), c, MPI_INFO_NULL, &g_preq));
    } else if (kind == 1) {
      CALL(MPI_Neighbor_alltoallv(in, sc, sd, T(), out, rc, rd, T(), c),
           MPI_Ineighbor_alltoallv(in, sc, sd, T(), out, rc, rd, T(), c, &rq_),
           MPI_Neighbor_alltoallv_init(in, sc, sd, T(), out, rc, rd, T(), c, MPI_INFO_NULL,
                                       &g_preq));
    } else {
      CALL(MPI_Neighbor_alltoallw(in, sc, swd, ty, out, rc, rwd, ty, c),
           MPI_Ineighbor_alltoallw(in, sc, swd, ty, out, rc, rwd, ty, c, &rq_),
           MPI_Neighbor_alltoallw_init(in, sc, swd, ty, out, rc, rwd, ty, c, MPI_INFO_NULL,
                                       &g_preq));
    }
    for (int b = 0; b < 2; ++b)
      for (long j = 0; j < (long)rc[b] * ipe(); ++j)
        CK(out[ix(rd[b], j)] == val3(from_of(b), 1 - b, j) + REP, "block %d int %ld: %d", b, j,
           out[ix(rd[b], j)]);
    check_holes(out, rt);
  }
  end_persistent();
  free(in);
  free(out);
  CHECK_MPI(MPI_Comm_free(&c));
}
static void t_neighbor_alltoall(MPI_Comm c, int n) {
  t_neighbor_alltoall_k(c, n, 0);
}
static void t_neighbor_alltoallv(MPI_Comm c, int n) {
  t_neighbor_alltoall_k(c, n, 1);
}
static void t_neighbor_alltoallw(MPI_Comm c, int n) {
  t_neighbor_alltoall_k(c, n, 2);
}

#define ALLV (kBasic | kDerived | kInPlace)
#define RED (kBasic | kDerived | kInPlace | kNonCommutative)
static const struct Coll kColls[] = {
    {"barrier", t_barrier, kBasic},
    {"bcast", t_bcast, kBasic | kDerived},
    {"reduce", t_reduce, RED},
    {"allreduce", t_allreduce, RED},
    {"gather", t_gather, ALLV},
    {"gatherv", t_gatherv, ALLV},
    {"scatter", t_scatter, ALLV},
    {"scatterv", t_scatterv, ALLV},
    {"allgather", t_allgather, ALLV},
    {"allgatherv", t_allgatherv, ALLV},
    {"alltoall", t_alltoall, ALLV},
    {"alltoallv", t_alltoallv, ALLV},
    {"alltoallw", t_alltoallw, ALLV},
    {"reduce_scatter", t_reduce_scatter, RED},
    {"reduce_scatter_block", t_reduce_scatter_block, RED},
    {"scan", t_scan_incl, RED},
    {"exscan", t_exscan, RED},
    {"neighbor_allgather", t_neighbor_allgather, kBasic | kDerived | kEveryMode},
    {"neighbor_allgatherv", t_neighbor_allgatherv, kBasic | kDerived | kEveryMode},
    {"neighbor_alltoall", t_neighbor_alltoall, kBasic | kDerived | kEveryMode},
    {"neighbor_alltoallv", t_neighbor_alltoallv, kBasic | kDerived | kEveryMode},
    {"neighbor_alltoallw", t_neighbor_alltoallw, kBasic | kDerived | kEveryMode},
    {"generate_recv", t_generate_recv, kBasic},
};
#define NCOLLS ((int)(sizeof kColls / sizeof kColls[0]))

/* Rank 0 reads `ccmpi_info --algorithms`: a table header is "  <table>  [...", an
 * algorithm line "    <name>   <description>" (deeper lines and "rules" are skipped). The
 * result, "table alg\n" lines, goes to every rank. */
static char* algorithm_list(const char* info) {
  int len = 0;
  char* text = NULL;
  if (g_rank == 0) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s --algorithms", info);
    FILE* f = popen(cmd, "r");
    CHECK(f != NULL, "cannot run %s", cmd);
    size_t cap = 1 << 16, used = 0;
    text = (char*)xmalloc(cap);
    text[0] = 0;
    char line[1024], table[128] = "";
    while (fgets(line, sizeof line, f)) {
      char word[128];
      if (line[0] == ' ' && line[1] == ' ' && line[2] != ' ') {
        if (sscanf(line, "%127s", table) != 1) table[0] = 0;
      } else if (!strncmp(line, "    ", 4) && line[4] != ' ' && table[0]) {
        if (sscanf(line, "%127s", word) != 1 || !strncmp(word, "rules", 5)) continue;
        CHECK(used + strlen(table) + strlen(word) + 3 < cap, "algorithm list too long");
        used += (size_t)sprintf(text + used, "%s %s\n", table, word);
      }
    }
    CHECK(pclose(f) == 0, "%s failed", cmd);
    len = (int)used + 1;
  }
  CHECK_MPI(MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD));
  if (g_rank != 0) text = (char*)xmalloc((size_t)len);
  CHECK_MPI(MPI_Bcast(text, len, MPI_CHAR, 0, MPI_COMM_WORLD));
  return text;
}

int main(int argc, char** argv) {
  coll_init(&argc, &argv);
  CHECK(argc >= 2, "usage: coll_matrix PATH_TO_CCMPI_INFO [TABLE]");
  const char* only = argc >= 3 ? argv[2] : NULL;
  g_gap = gapped_int_type();
  g_mat = mat_type();
  CHECK_MPI(MPI_Op_create(mat_op, 0, &g_matop));
  const int counts[] = {0, 1, 37, 301}; /* 301 ints > CCMPI_BCAST_SEGMENT (set to 1k) */
  char* list = algorithm_list(argv[1]);
  int tested = 0, tables_seen = 0;
  char* save = NULL;
  for (char* line = strtok_r(list, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    char table[128], alg[128];
    if (sscanf(line, "%127s %127s", table, alg) != 2) continue;
    if (only && strcmp(only, table) != 0) continue;
    const struct Coll* coll = NULL;
    for (int k = 0; k < NCOLLS; ++k) {
      if (!strcmp(kColls[k].name, table)) coll = &kColls[k], M = 0;
      if (table[0] == 'i' && !strcmp(kColls[k].name, table + 1)) coll = &kColls[k], M = 1;
    }
    CHECK(coll != NULL, "ccmpi_info lists a table '%s' this test does not know", table);
    ++tables_seen;
    MPI_Comm c;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    MPI_Info info;
    CHECK_MPI(MPI_Info_create(&info));
    char key[160];
    snprintf(key, sizeof key, "ccmpi_%s_algorithm", table);
    CHECK_MPI(MPI_Info_set(info, key, alg));
    CHECK_MPI(MPI_Comm_set_info(c, info));
    CHECK_MPI(MPI_Info_free(&info));
    MPI_Comm_size(c, &N);
    MPI_Comm_rank(c, &R);
    const int first_mode = M, last_mode = M == 0 && !(coll->variants & kEveryMode) ? 0 : 2;
    for (M = first_mode; M <= last_mode; ++M)
      for (V = 0; V < 4; ++V) {
        if (!(coll->variants & (1 << V))) continue;
        for (int k = 0; k < 4; ++k) {
          if (coll->fn == t_barrier && k > 0) break;
          snprintf(g_ctx, sizeof g_ctx, "%s=%s mode %s variant %s count %d", key, alg,
                   M == 0   ? "blocking"
                   : M == 1 ? "nonblocking"
                            : "persistent",
                   V == 0   ? "int"
                   : V == 1 ? "derived"
                   : V == 2 ? "in-place"
                            : "non-commutative",
                   counts[k]);
          coll->fn(c, counts[k]);
          ++tested;
        }
      }
    CHECK_MPI(MPI_Comm_free(&c));
  }
  CHECK(tables_seen > 0, "no algorithm was tested (filter '%s')", only ? only : "");
  free(list);
  CHECK_MPI(MPI_Op_free(&g_matop));
  CHECK_MPI(MPI_Type_free(&g_gap));
  CHECK_MPI(MPI_Type_free(&g_mat));
  if (g_rank == 0) printf("%d cases over %d algorithms\n", tested, tables_seen);
  test_pass("coll_matrix");
  MPI_Finalize();
  return 0;
}
