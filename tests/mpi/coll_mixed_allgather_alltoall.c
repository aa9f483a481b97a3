/* Allgather, allgatherv and alltoall (blocking and nonblocking tables) with send and
 * receive datatypes that differ at each rank and between ranks (equal type signatures,
 * which the matrix does not cover): every rank sees the same data, triples of ints, as
 * MPI_INT x 3k, as contiguous(3, MPI_INT) x k, or as a gapped type of 3 ints in 4 x k
 * (holes must stay untouched); rank r sends with view (r+1)%3 and receives with view r%3.
 * Every algorithm named below is forced in turn through the communicator info hint. */
#include <stdio.h>

#include "coll_util.h"

static MPI_Datatype g_c3, g_gap3;
static const int kKs[] = {1, 5, 333};

/* View v of k triples: its type and count, and where int j of the data lives. */
static MPI_Datatype vtype(int v, int k, int* count) {
  *count = v == 0 ? 3 * k : k;
  return v == 0 ? MPI_INT : v == 1 ? g_c3 : g_gap3;
}
static long vidx(int v, long j) {
  return v == 2 ? (j / 3) * 4 + (j % 3 == 2 ? 3 : j % 3) : j;
}
/* ints of buffer per triple */
static long vints(int v) {
  return v == 2 ? 4 : 3;
}

static void check_holes(const int* b, long triples, int v, const char* what) {
  if (v != 2) return;
  for (long t = 0; t < triples; ++t)
    CHECK(b[4 * t + 2] == SENTINEL, "%s: hole of triple %ld written", what, t);
}

/* Triples rank p contributes to the allgatherv. */
static int blk(int k, int p) {
  return p % 3 == 1 ? 0 : k + p % 2;
}

static void run(MPI_Comm c, const char* table, int k) {
  const int n = g_size, r = g_rank, sv = (r + 1) % 3, rv = r % 3;
  const int nb = table[0] == 'i';
  const char* coll = table + nb;
  int scount, rcount;
  MPI_Datatype st = vtype(sv, k, &scount), rt = vtype(rv, k, &rcount);
  MPI_Request rq = MPI_REQUEST_NULL;
  if (!strcmp(coll, "allgather")) {
    int* in = ialloc(vints(sv) * k, SENTINEL);
    int* out = ialloc(vints(rv) * k * n, SENTINEL);
    for (long j = 0; j < 3L * k; ++j) in[vidx(sv, j)] = val(r, j);
    if (nb) {
      CHECK_MPI(MPI_Iallgather(in, scount, st, out, rcount, rt, c, &rq));
      CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    } else {
      CHECK_MPI(MPI_Allgather(in, scount, st, out, rcount, rt, c));
    }
    for (int p = 0; p < n; ++p)
      for (long j = 0; j < 3L * k; ++j)
        CHECK(out[vidx(rv, 3L * k * p + j)] == val(p, j), "%s k %d: block %d int %ld", table, k, p,
              j);
    check_holes(out, (long)k * n, rv, table);
    free(in), free(out);
  } else if (!strcmp(coll, "allgatherv")) {
    /* rank p contributes blk(k, p) triples (none when p % 3 == 1); a triple of gap between
     * blocks */
    int* counts = (int*)xmalloc(sizeof(int) * n);
    int* displs = (int*)xmalloc(sizeof(int) * n);
    long tri = 0;
    for (int p = 0; p < n; ++p) {
      const int kp = blk(k, p);
      counts[p] = rv == 0 ? 3 * kp : kp;
      displs[p] = (int)(rv == 0 ? 3 * tri : tri);
      tri += kp + 1;
    }
    const int kr = blk(k, r);
    int sc;
    MPI_Datatype stv = vtype(sv, kr, &sc);
    int* in = ialloc(vints(sv) * kr, SENTINEL);
    int* out = ialloc(vints(rv) * tri, SENTINEL);
    for (long j = 0; j < 3L * kr; ++j) in[vidx(sv, j)] = val(r, j);
    if (nb) {
      CHECK_MPI(MPI_Iallgatherv(in, sc, stv, out, counts, displs, rt, c, &rq));
      CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    } else {
      CHECK_MPI(MPI_Allgatherv(in, sc, stv, out, counts, displs, rt, c));
    }
    tri = 0;
    for (int p = 0; p < n; ++p) {
      const int kp = blk(k, p);
      for (long j = 0; j < 3L * kp; ++j)
        CHECK(out[vidx(rv, 3 * tri + j)] == val(p, j), "%s k %d: block %d int %ld", table, k, p, j);
      for (long j = 3L * kp; j < 3L * kp + 3; ++j)
        CHECK(out[vidx(rv, 3 * tri + j)] == SENTINEL, "%s k %d: gap after block %d", table, k, p);
      tri += kp + 1;
    }
    check_holes(out, tri, rv, table);
    free(counts), free(displs), free(in), free(out);
  } else {
    int* in = ialloc(vints(sv) * k * n, SENTINEL);
    int* out = ialloc(vints(rv) * k * n, SENTINEL);
    for (int p = 0; p < n; ++p)
      for (long j = 0; j < 3L * k; ++j) in[vidx(sv, 3L * k * p + j)] = val3(r, p, j);
    if (nb) {
      CHECK_MPI(MPI_Ialltoall(in, scount, st, out, rcount, rt, c, &rq));
      CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    } else {
      CHECK_MPI(MPI_Alltoall(in, scount, st, out, rcount, rt, c));
    }
    for (int p = 0; p < n; ++p)
      for (long j = 0; j < 3L * k; ++j)
        CHECK(out[vidx(rv, 3L * k * p + j)] == val3(p, r, j), "%s k %d: block %d int %ld", table, k,
              p, j);
    check_holes(out, (long)k * n, rv, table);
    free(in), free(out);
  }
}

int main(int argc, char** argv) {
  coll_init(&argc, &argv);
  CHECK_MPI(MPI_Type_contiguous(3, MPI_INT, &g_c3));
  CHECK_MPI(MPI_Type_commit(&g_c3));
  {
    int bl[2] = {2, 1}, dp[2] = {0, 3};
    MPI_Datatype t;
    CHECK_MPI(MPI_Type_indexed(2, bl, dp, MPI_INT, &t));
    CHECK_MPI(MPI_Type_create_resized(t, 0, 4 * (MPI_Aint)sizeof(int), &g_gap3));
    CHECK_MPI(MPI_Type_commit(&g_gap3));
    CHECK_MPI(MPI_Type_free(&t));
  }
  static const char* const kCases[][2] = {
      {"allgather", "ring"},
      {"allgather", "recursive_doubling"},
      {"allgather", "bruck"},
      {"iallgather", "ring"},
      {"iallgather", "recursive_doubling"},
      {"iallgather", "bruck"},
      {"allgatherv", "ring"},
      {"allgatherv", "recursive_doubling"},
      {"allgatherv", "bruck"},
      {"iallgatherv", "ring"},
      {"iallgatherv", "recursive_doubling"},
      {"iallgatherv", "bruck"},
      {"alltoall", "pairwise"},
      {"alltoall", "linear"},
      {"alltoall", "bruck"},
      {"ialltoall", "pairwise"},
      {"ialltoall", "linear"},
      {"ialltoall", "bruck"},
  };
  for (size_t i = 0; i < sizeof kCases / sizeof kCases[0]; ++i) {
    MPI_Comm c;
    MPI_Info info;
    char key[128];
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CHECK_MPI(MPI_Info_create(&info));
    snprintf(key, sizeof key, "ccmpi_%s_algorithm", kCases[i][0]);
    CHECK_MPI(MPI_Info_set(info, key, kCases[i][1]));
    CHECK_MPI(MPI_Comm_set_info(c, info));
    CHECK_MPI(MPI_Info_free(&info));
    for (size_t j = 0; j < sizeof kKs / sizeof kKs[0]; ++j) run(c, kCases[i][0], kKs[j]);
    CHECK_MPI(MPI_Comm_free(&c));
  }
  CHECK_MPI(MPI_Type_free(&g_c3));
  CHECK_MPI(MPI_Type_free(&g_gap3));
  test_pass("coll_mixed_allgather_alltoall");
  MPI_Finalize();
  return 0;
}
