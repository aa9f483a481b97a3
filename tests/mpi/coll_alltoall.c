/* Alltoall, Alltoallv, Alltoallw: every count, MPI_IN_PLACE, a gapped derived receive
 * type, uneven (zero included) counts with gaps between blocks, and per-peer datatypes
 * with byte displacements. */
#include "coll_util.h"

/* Elements rank r sends to rank p in the v/w tests (asymmetric, zeros included). */
static int vc(int r, int p, int base) {
  return ((2 * r + p) % 4 == 3) ? 0 : base + (2 * r + p) % 4;
}
/* Symmetric version for in-place (what r sends p must equal what p sends r). */
static int vs(int r, int p, int base) {
  return ((r + p) % 4 == 3) ? 0 : base + (r + p) % 4;
}

static void check_alltoall(int count) {
  const int n = g_size;
  int* s = ialloc((size_t)n * count, 0);
  int* d = ialloc((size_t)n * count, SENTINEL);
  for (int p = 0; p < n; ++p)
    for (int i = 0; i < count; ++i) s[(long)p * count + i] = val3(g_rank, p, i);
  CHECK_MPI(MPI_Alltoall(s, count, MPI_INT, d, count, MPI_INT, MPI_COMM_WORLD));
  for (int p = 0; p < n; ++p)
    for (int i = 0; i < count; ++i)
      CHECK(d[(long)p * count + i] == val3(p, g_rank, i),
            "alltoall count %d: from %d element %d is %d", count, p, i, d[(long)p * count + i]);
  /* In place. */
  for (int p = 0; p < n; ++p)
    for (int i = 0; i < count; ++i) d[(long)p * count + i] = val3(g_rank, p, i);
  CHECK_MPI(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, d, count, MPI_INT, MPI_COMM_WORLD));
  for (int p = 0; p < n; ++p)
    for (int i = 0; i < count; ++i)
      CHECK(d[(long)p * count + i] == val3(p, g_rank, i),
            "in-place alltoall count %d: from %d el %d", count, p, i);
  /* Gapped receive type: count ints = count/2 gapped elements per peer. */
  if (count % 2 == 0) {
    MPI_Datatype gap = gapped_int_type();
    const int half = count / 2;
    int* g = ialloc((size_t)n * half * 3, SENTINEL);
    CHECK_MPI(MPI_Alltoall(s, count, MPI_INT, g, half, gap, MPI_COMM_WORLD));
    for (int p = 0; p < n; ++p) {
      const int* blk = g + (long)p * half * 3;
      for (int j = 0; j < count; ++j)
        CHECK(blk[gapped_index(j)] == val3(p, g_rank, j),
              "gapped alltoall count %d: from %d int %d", count, p, j);
      for (int k = 0; k < half; ++k) CHECK(blk[3 * k + 1] == SENTINEL, "gapped alltoall: hole");
    }
    free(g);
    CHECK_MPI(MPI_Type_free(&gap));
  }
  free(s);
  free(d);
}

static void check_alltoallv(int base) {
  const int n = g_size;
  int *sc = ialloc(n, 0), *sd = ialloc(n, 0), *rc = ialloc(n, 0), *rd = ialloc(n, 0);
  long stot = 0, rtot = 0;
  for (int p = 0; p < n; ++p) {
    sc[p] = vc(g_rank, p, base);
    rc[p] = vc(p, g_rank, base);
    sd[p] = (int)stot + 2;
    stot += sc[p] + 2;
    rd[p] = (int)rtot + 1; /* one-int gap before each block */
    rtot += rc[p] + 1;
  }
  int* s = ialloc(stot, 0);
  int* d = ialloc(rtot, SENTINEL);
  for (int p = 0; p < n; ++p)
    for (int i = 0; i < sc[p]; ++i) s[sd[p] + i] = val3(g_rank, p, i);
  CHECK_MPI(MPI_Alltoallv(s, sc, sd, MPI_INT, d, rc, rd, MPI_INT, MPI_COMM_WORLD));
  for (int p = 0; p < n; ++p) {
    CHECK(d[rd[p] - 1] == SENTINEL, "alltoallv base %d: gap before block %d written", base, p);
    for (int i = 0; i < rc[p]; ++i)
      CHECK(d[rd[p] + i] == val3(p, g_rank, i), "alltoallv base %d: from %d element %d", base, p,
            i);
  }
  /* In place (symmetric counts). */
  long tot = 0;
  for (int p = 0; p < n; ++p) {
    rc[p] = vs(g_rank, p, base);
    rd[p] = (int)tot + 1;
    tot += rc[p] + 1;
  }
  int* b = ialloc(tot, SENTINEL);
  for (int p = 0; p < n; ++p)
    for (int i = 0; i < rc[p]; ++i) b[rd[p] + i] = val3(g_rank, p, i);
  CHECK_MPI(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, b, rc, rd, MPI_INT,
                          MPI_COMM_WORLD));
  for (int p = 0; p < n; ++p) {
    CHECK(b[rd[p] - 1] == SENTINEL, "in-place alltoallv: gap before block %d written", p);
    for (int i = 0; i < rc[p]; ++i)
      CHECK(b[rd[p] + i] == val3(p, g_rank, i), "in-place alltoallv base %d: from %d element %d",
            base, p, i);
  }
  free(sc);
  free(sd);
  free(rc);
  free(rd);
  free(s);
  free(d);
  free(b);
}

/* Alltoallw: to even peers plain ints, to odd peers gapped elements (2 ints each);
 * receives mirror that by the sender's parity. Byte displacements. */
static void check_alltoallw(int base) {
  const int n = g_size;
  MPI_Datatype gap = gapped_int_type();
  int *sc = ialloc(n, 0), *sd = ialloc(n, 0), *rc = ialloc(n, 0), *rd = ialloc(n, 0);
  MPI_Datatype* st = (MPI_Datatype*)xmalloc(sizeof(MPI_Datatype) * n);
  MPI_Datatype* rt = (MPI_Datatype*)xmalloc(sizeof(MPI_Datatype) * n);
  long soff = 0, roff = 0; /* in ints */
  for (int p = 0; p < n; ++p) {
    const int sints = 2 * vc(g_rank, p, base), rints = 2 * vc(p, g_rank, base);
    /* to odd peers: gapped elements; from odd senders: gapped elements */
    st[p] = (p % 2) ? gap : MPI_INT;
    sc[p] = (p % 2) ? sints / 2 : sints;
    sd[p] = (int)(soff * sizeof(int));
    soff += (p % 2) ? (sints / 2) * 3 : sints;
    rt[p] = (p % 2) ? gap : MPI_INT;
    rc[p] = (p % 2) ? rints / 2 : rints;
    rd[p] = (int)((roff + 1) * sizeof(int));
    roff += 1 + ((p % 2) ? (rints / 2) * 3 : rints);
  }
  int* s = ialloc(soff, SENTINEL);
  int* d = ialloc(roff, SENTINEL);
  for (int p = 0; p < n; ++p) {
    int* blk = s + sd[p] / (int)sizeof(int);
    const int sints = 2 * vc(g_rank, p, base);
    for (int j = 0; j < sints; ++j) blk[(p % 2) ? gapped_index(j) : j] = val3(g_rank, p, j);
  }
  CHECK_MPI(MPI_Alltoallw(s, sc, sd, st, d, rc, rd, rt, MPI_COMM_WORLD));
  for (int p = 0; p < n; ++p) {
    const int* blk = d + rd[p] / (int)sizeof(int);
    const int rints = 2 * vc(p, g_rank, base);
    CHECK(blk[-1] == SENTINEL, "alltoallw: gap before block %d written", p);
    for (int j = 0; j < rints; ++j)
      CHECK(blk[(p % 2) ? gapped_index(j) : j] == val3(p, g_rank, j),
            "alltoallw base %d: from %d int %d", base, p, j);
    if (p % 2)
      for (int k = 0; k < rints / 2; ++k) CHECK(blk[3 * k + 1] == SENTINEL, "alltoallw: hole");
  }
  /* In place: symmetric counts; slot p holds gapped elements when p is odd (signatures
   * match either way: both sides carry the same number of ints). */
  long off = 0;
  for (int p = 0; p < n; ++p) {
    const int ints = 2 * vs(g_rank, p, base);
    rt[p] = (p % 2) ? gap : MPI_INT;
    rc[p] = (p % 2) ? ints / 2 : ints;
    rd[p] = (int)((off + 1) * sizeof(int));
    off += 1 + ((p % 2) ? (ints / 2) * 3 : ints);
  }
  int* b = ialloc(off, SENTINEL);
  for (int p = 0; p < n; ++p) {
    int* blk = b + rd[p] / (int)sizeof(int);
    const int ints = 2 * vs(g_rank, p, base);
    for (int j = 0; j < ints; ++j) blk[(p % 2) ? gapped_index(j) : j] = val3(g_rank, p, j);
  }
  CHECK_MPI(MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, b, rc, rd, rt, MPI_COMM_WORLD));
  for (int p = 0; p < n; ++p) {
    const int* blk = b + rd[p] / (int)sizeof(int);
    const int ints = 2 * vs(g_rank, p, base);
    CHECK(blk[-1] == SENTINEL, "in-place alltoallw: gap before block %d written", p);
    for (int j = 0; j < ints; ++j)
      CHECK(blk[(p % 2) ? gapped_index(j) : j] == val3(p, g_rank, j),
            "in-place alltoallw base %d: from %d int %d", base, p, j);
    if (p % 2)
      for (int k = 0; k < ints / 2; ++k)
        CHECK(blk[3 * k + 1] == SENTINEL, "in-place alltoallw: hole");
  }
  CHECK_MPI(MPI_Type_free(&gap));
  free(sc);
  free(sd);
  free(rc);
  free(rd);
  free(st);
  free(rt);
  free(s);
  free(d);
  free(b);
}

int main(int argc, char** argv) {
  coll_init(&argc, &argv);
  for (int ci = 0; ci < NCOUNTS; ++ci) {
    /* Per-peer blocks: keep the whole buffer near the large count. */
    const int count = kCounts[ci] >= 100000 ? kCounts[ci] / g_size / 2 * 2 : kCounts[ci];
    check_alltoall(count);
    check_alltoallv(count);
    check_alltoallw(count);
  }
  test_pass("coll_alltoall");
  MPI_Finalize();
  return 0;
}
