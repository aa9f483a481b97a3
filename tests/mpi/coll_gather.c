/* Gather, Gatherv, Scatter, Scatterv, Allgather, Allgatherv: every count, two roots,
 * MPI_IN_PLACE, a gapped derived receive type (holes must stay untouched), and the v
 * forms with uneven counts (zeros included) and gaps between blocks. */
#include "coll_util.h"

/* Rank i's block size in the v tests: uneven, with zeros. */
static int vcount(int i, int base) {
  return (i % 3 == 1) ? 0 : base + i;
}

static void check_gather_scatter(int root, int count) {
  const int n = g_size;
  MPI_Datatype gap = gapped_int_type();
  int* mine = ialloc(count, 0);
  for (int i = 0; i < count; ++i) mine[i] = val(g_rank, i);
  int* all = ialloc((size_t)n * count, SENTINEL);

  /* Gather into a plain int buffer. */
  CHECK_MPI(MPI_Gather(mine, count, MPI_INT, all, count, MPI_INT, root, MPI_COMM_WORLD));
  if (g_rank == root)
    for (int r = 0; r < n; ++r)
      for (int i = 0; i < count; ++i)
        CHECK(all[(long)r * count + i] == val(r, i), "gather root %d count %d: rank %d element %d",
              root, count, r, i);
  /* In place at the root. */
  for (long k = 0; k < (long)n * count; ++k) all[k] = SENTINEL;
  if (g_rank == root) {
    for (int i = 0; i < count; ++i) all[(long)root * count + i] = mine[i];
    CHECK_MPI(MPI_Gather(MPI_IN_PLACE, count, MPI_INT, all, count, MPI_INT, root, MPI_COMM_WORLD));
    for (int r = 0; r < n; ++r)
      for (int i = 0; i < count; ++i)
        CHECK(all[(long)r * count + i] == val(r, i),
              "in-place gather root %d count %d: rank %d el %d", root, count, r, i);
  } else {
    CHECK_MPI(MPI_Gather(mine, count, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, root, MPI_COMM_WORLD));
  }
  /* Gather into a gapped type: count ints from each rank = count/2 gapped elements. */
  if (count % 2 == 0) {
    const int half = count / 2;
    int* g = ialloc((size_t)n * half * 3, SENTINEL);
    CHECK_MPI(MPI_Gather(mine, count, MPI_INT, g, half, gap, root, MPI_COMM_WORLD));
    if (g_rank == root)
      for (int r = 0; r < n; ++r) {
        const int* blk = g + (long)r * half * 3;
        for (int j = 0; j < count; ++j)
          CHECK(blk[gapped_index(j)] == val(r, j), "gapped gather root %d count %d: rank %d int %d",
                root, count, r, j);
        for (int k = 0; k < half; ++k)
          CHECK(blk[3 * k + 1] == SENTINEL, "gapped gather: hole written");
      }
    free(g);
  }

  /* Scatter: the root's block r goes to rank r. */
  int* src = ialloc((size_t)n * count, 0);
  if (g_rank == root)
    for (int r = 0; r < n; ++r)
      for (int i = 0; i < count; ++i) src[(long)r * count + i] = val(r + 100, i);
  int* got = ialloc(count, SENTINEL);
  CHECK_MPI(MPI_Scatter(src, count, MPI_INT, got, count, MPI_INT, root, MPI_COMM_WORLD));
  for (int i = 0; i < count; ++i)
    CHECK(got[i] == val(g_rank + 100, i), "scatter root %d count %d: element %d", root, count, i);
  if (g_rank == root) {
    CHECK_MPI(MPI_Scatter(src, count, MPI_INT, MPI_IN_PLACE, count, MPI_INT, root, MPI_COMM_WORLD));
    for (int i = 0; i < count; ++i)
      CHECK(src[(long)root * count + i] == val(root + 100, i),
            "in-place scatter: root block changed");
  } else {
    for (int i = 0; i < count; ++i) got[i] = SENTINEL;
    CHECK_MPI(MPI_Scatter(NULL, 0, MPI_DATATYPE_NULL, got, count, MPI_INT, root, MPI_COMM_WORLD));
    for (int i = 0; i < count; ++i)
      CHECK(got[i] == val(g_rank + 100, i), "in-place scatter (non-root) count %d: element %d",
            count, i);
  }
  /* Scatter from a gapped send type into plain ints. */
  if (count % 2 == 0) {
    const int half = count / 2;
    int* g = ialloc((size_t)n * half * 3, SENTINEL);
    if (g_rank == root)
      for (int r = 0; r < n; ++r)
        for (int j = 0; j < count; ++j) g[(long)r * half * 3 + gapped_index(j)] = val(r + 200, j);
    for (int i = 0; i < count; ++i) got[i] = SENTINEL;
    CHECK_MPI(MPI_Scatter(g, half, gap, got, count, MPI_INT, root, MPI_COMM_WORLD));
    for (int i = 0; i < count; ++i)
      CHECK(got[i] == val(g_rank + 200, i), "gapped scatter root %d count %d: element %d", root,
            count, i);
    free(g);
  }

  /* Allgather: plain, in place, gapped receive. */
  for (long k = 0; k < (long)n * count; ++k) all[k] = SENTINEL;
  CHECK_MPI(MPI_Allgather(mine, count, MPI_INT, all, count, MPI_INT, MPI_COMM_WORLD));
  for (int r = 0; r < n; ++r)
    for (int i = 0; i < count; ++i)
      CHECK(all[(long)r * count + i] == val(r, i), "allgather count %d: rank %d element %d", count,
            r, i);
  for (long k = 0; k < (long)n * count; ++k) all[k] = SENTINEL;
  for (int i = 0; i < count; ++i) all[(long)g_rank * count + i] = mine[i];
  CHECK_MPI(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, count, MPI_INT, MPI_COMM_WORLD));
  for (int r = 0; r < n; ++r)
    for (int i = 0; i < count; ++i)
      CHECK(all[(long)r * count + i] == val(r, i), "in-place allgather count %d: rank %d el %d",
            count, r, i);
  if (count % 2 == 0) {
    const int half = count / 2;
    int* g = ialloc((size_t)n * half * 3, SENTINEL);
    CHECK_MPI(MPI_Allgather(mine, count, MPI_INT, g, half, gap, MPI_COMM_WORLD));
    for (int r = 0; r < n; ++r) {
      const int* blk = g + (long)r * half * 3;
      for (int j = 0; j < count; ++j)
        CHECK(blk[gapped_index(j)] == val(r, j), "gapped allgather count %d: rank %d int %d", count,
              r, j);
      for (int k = 0; k < half; ++k) CHECK(blk[3 * k + 1] == SENTINEL, "gapped allgather: hole");
    }
    free(g);
  }
  free(src);
  free(got);
  free(mine);
  free(all);
  CHECK_MPI(MPI_Type_free(&gap));
}

static void check_v(int root, int base) {
  const int n = g_size;
  int* counts = ialloc(n, 0);
  int* displs = ialloc(n, 0);
  long total = 0;
  for (int r = 0; r < n; ++r) {
    counts[r] = vcount(r, base);
    displs[r] = (int)total + 1; /* one-int gap before each block */
    total += counts[r] + 1;
  }
  const int mycount = counts[g_rank];
  int* mine = ialloc(mycount, 0);
  for (int i = 0; i < mycount; ++i) mine[i] = val(g_rank, i);
  int* all = ialloc(total, SENTINEL);

  CHECK_MPI(
      MPI_Gatherv(mine, mycount, MPI_INT, all, counts, displs, MPI_INT, root, MPI_COMM_WORLD));
  if (g_rank == root)
    for (int r = 0; r < n; ++r) {
      CHECK(all[displs[r] - 1] == SENTINEL, "gatherv base %d: gap before block %d written", base,
            r);
      for (int i = 0; i < counts[r]; ++i)
        CHECK(all[displs[r] + i] == val(r, i), "gatherv root %d base %d: rank %d element %d", root,
              base, r, i);
    }
  if (g_rank == root) {
    for (long k = 0; k < total; ++k) all[k] = SENTINEL;
    for (int i = 0; i < mycount; ++i) all[displs[root] + i] = mine[i];
    CHECK_MPI(
        MPI_Gatherv(MPI_IN_PLACE, 0, MPI_INT, all, counts, displs, MPI_INT, root, MPI_COMM_WORLD));
    for (int r = 0; r < n; ++r)
      for (int i = 0; i < counts[r]; ++i)
        CHECK(all[displs[r] + i] == val(r, i), "in-place gatherv base %d: rank %d element %d", base,
              r, i);
  } else {
    CHECK_MPI(MPI_Gatherv(mine, mycount, MPI_INT, NULL, NULL, NULL, MPI_INT, root, MPI_COMM_WORLD));
  }

  /* Scatterv: the inverse. */
  if (g_rank == root)
    for (int r = 0; r < n; ++r)
      for (int i = 0; i < counts[r]; ++i) all[displs[r] + i] = val(r + 300, i);
  int* got = ialloc(mycount, SENTINEL);
  CHECK_MPI(
      MPI_Scatterv(all, counts, displs, MPI_INT, got, mycount, MPI_INT, root, MPI_COMM_WORLD));
  for (int i = 0; i < mycount; ++i)
    CHECK(got[i] == val(g_rank + 300, i), "scatterv root %d base %d: element %d", root, base, i);
  if (g_rank == root)
    CHECK_MPI(MPI_Scatterv(all, counts, displs, MPI_INT, MPI_IN_PLACE, mycount, MPI_INT, root,
                           MPI_COMM_WORLD));
  else
    CHECK_MPI(MPI_Scatterv(NULL, NULL, NULL, MPI_INT, got, mycount, MPI_INT, root, MPI_COMM_WORLD));

  /* Allgatherv, plain and in place. */
  for (long k = 0; k < total; ++k) all[k] = SENTINEL;
  CHECK_MPI(MPI_Allgatherv(mine, mycount, MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD));
  for (int r = 0; r < n; ++r) {
    CHECK(all[displs[r] - 1] == SENTINEL, "allgatherv: gap before block %d written", r);
    for (int i = 0; i < counts[r]; ++i)
      CHECK(all[displs[r] + i] == val(r, i), "allgatherv base %d: rank %d element %d", base, r, i);
  }
  for (long k = 0; k < total; ++k) all[k] = SENTINEL;
  for (int i = 0; i < mycount; ++i) all[displs[g_rank] + i] = mine[i];
  CHECK_MPI(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD));
  for (int r = 0; r < n; ++r)
    for (int i = 0; i < counts[r]; ++i)
      CHECK(all[displs[r] + i] == val(r, i), "in-place allgatherv base %d: rank %d element %d",
            base, r, i);
  free(counts);
  free(displs);
  free(mine);
  free(all);
  free(got);
}

int main(int argc, char** argv) {
  coll_init(&argc, &argv);
  const int roots[2] = {0, g_size - 1};
  for (int ri = 0; ri < 2; ++ri) {
    for (int ci = 0; ci < NCOUNTS; ++ci) {
      /* Keep the gathered total near the large count. */
      const int count = kCounts[ci] >= 100000 ? kCounts[ci] / g_size / 2 * 2 : kCounts[ci];
      check_gather_scatter(roots[ri], count);
      check_v(roots[ri], count);
    }
  }
  test_pass("coll_gather");
  MPI_Finalize();
  return 0;
}
