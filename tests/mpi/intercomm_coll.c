/* Blocking collectives on intercommunicators of uneven groups (world ranks [0, na) and
 * [na, size)), with each group in turn as the root's group: every process checks the other
 * group's contributions it receives; then nonblocking ones outstanding together and
 * persistent ones started twice. */
#include <string.h>

#include "check.h"

#define MAXP 64

static int wrank, wsize;

/* Value contributed by the process of world rank w, element i. */
static int val(int w, int i) {
  return 1000 * w + i;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  if (wsize < 2 || wsize > MAXP) {
    test_pass("intercomm_coll");
    MPI_Finalize();
    return 0;
  }
  const int na = (wsize + 1) / 3 > 0 ? (wsize + 1) / 3 : 1;
  const int inA = wrank < na;
  MPI_Comm half, ic;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, inA, wrank, &half));
  CHECK_MPI(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, inA ? na : 0, 9, &ic));
  int rank, size, rsize;
  MPI_Comm_rank(ic, &rank);
  MPI_Comm_size(ic, &size);
  MPI_Comm_remote_size(ic, &rsize);
  const int rbase = inA ? na : 0; /* world rank of remote rank 0 */
  const int lbase = inA ? 0 : na;
  CHECK(wrank == lbase + rank, "rank %d", rank);

  CHECK_MPI(MPI_Barrier(ic));

  enum { N = 3 };
  int sbuf[MAXP * N], rbuf[MAXP * N];
  for (int rootGroupA = 1; rootGroupA >= 0; --rootGroupA) {
    const int rootLocal = size - 1; /* the root is the last rank of its group */
    const int inRootGroup = inA == rootGroupA;
    const int root = inRootGroup ? (rank == rootLocal ? MPI_ROOT : MPI_PROC_NULL) : rsize - 1;

    /* Bcast. */
    for (int i = 0; i < N; ++i) sbuf[i] = root == MPI_ROOT ? val(wrank, i) : -1;
    CHECK_MPI(MPI_Bcast(sbuf, N, MPI_INT, root, ic));
    if (!inRootGroup)
      for (int i = 0; i < N; ++i)
        CHECK(sbuf[i] == val(rbase + rsize - 1, i), "bcast [%d] = %d", i, sbuf[i]);

    /* Reduce: the root gets the sum over the remote group. */
    for (int i = 0; i < N; ++i) sbuf[i] = val(wrank, i);
    memset(rbuf, 0xff, sizeof rbuf);
    CHECK_MPI(MPI_Reduce(sbuf, rbuf, N, MPI_INT, MPI_SUM, root, ic));
    if (root == MPI_ROOT)
      for (int i = 0; i < N; ++i) {
        int e = 0;
        for (int r = 0; r < rsize; ++r) e += val(rbase + r, i);
        CHECK(rbuf[i] == e, "reduce [%d] = %d expected %d", i, rbuf[i], e);
      }

    /* Gather. */
    memset(rbuf, 0xff, sizeof rbuf);
    CHECK_MPI(MPI_Gather(sbuf, N, MPI_INT, rbuf, N, MPI_INT, root, ic));
    if (root == MPI_ROOT)
      for (int r = 0; r < rsize; ++r)
        for (int i = 0; i < N; ++i)
          CHECK(rbuf[r * N + i] == val(rbase + r, i), "gather %d/%d = %d", r, i, rbuf[r * N + i]);

    /* Gatherv: remote rank r sends r % 3 + 1 ints, placed in reverse order. */
    int counts[MAXP], displs[MAXP];
    {
      int off = 0;
      for (int r = rsize - 1; r >= 0; --r) {
        counts[r] = r % 3 + 1;
        displs[r] = off;
        off += counts[r];
      }
    }
    memset(rbuf, 0xff, sizeof rbuf);
    CHECK_MPI(MPI_Gatherv(sbuf, rank % 3 + 1, MPI_INT, rbuf, counts, displs, MPI_INT, root, ic));
    if (root == MPI_ROOT)
      for (int r = 0; r < rsize; ++r)
        for (int i = 0; i < counts[r]; ++i)
          CHECK(rbuf[displs[r] + i] == val(rbase + r, i), "gatherv %d/%d", r, i);

    /* Scatter: the root sends block r = val(root, r*N + i) to remote rank r. */
    for (int r = 0; r < MAXP * N; ++r) sbuf[r] = val(wrank, r);
    memset(rbuf, 0xff, sizeof rbuf);
    CHECK_MPI(MPI_Scatter(sbuf, N, MPI_INT, rbuf, N, MPI_INT, root, ic));
    if (!inRootGroup)
      for (int i = 0; i < N; ++i)
        CHECK(rbuf[i] == val(rbase + rsize - 1, rank * N + i), "scatter %d = %d", i, rbuf[i]);

    /* Scatterv with the counts above (as seen from the root: its remote ranks). */
    memset(rbuf, 0xff, sizeof rbuf);
    CHECK_MPI(MPI_Scatterv(sbuf, counts, displs, MPI_INT, rbuf, rank % 3 + 1, MPI_INT, root, ic));
    if (!inRootGroup) {
      /* My block starts at the root's displs[rank]: root's remote group is my group. */
      int off = 0;
      for (int r = size - 1; r > rank; --r) off += r % 3 + 1;
      for (int i = 0; i < rank % 3 + 1; ++i)
        CHECK(rbuf[i] == val(rbase + rsize - 1, off + i), "scatterv %d = %d", i, rbuf[i]);
    }
  }

  /* Allreduce: each group gets the remote group's sum; MPI_MAX too. */
  int s[N], r[N];
  for (int i = 0; i < N; ++i) s[i] = val(wrank, i);
  CHECK_MPI(MPI_Allreduce(s, r, N, MPI_INT, MPI_SUM, ic));
  for (int i = 0; i < N; ++i) {
    int e = 0;
    for (int k = 0; k < rsize; ++k) e += val(rbase + k, i);
    CHECK(r[i] == e, "allreduce [%d] = %d expected %d", i, r[i], e);
  }
  CHECK_MPI(MPI_Allreduce(s, r, N, MPI_INT, MPI_MAX, ic));
  CHECK(r[0] == val(rbase + rsize - 1, 0), "allreduce max %d", r[0]);

  /* Allgather / Alltoall. */
  memset(rbuf, 0xff, sizeof rbuf);
  CHECK_MPI(MPI_Allgather(s, N, MPI_INT, rbuf, N, MPI_INT, ic));
  for (int k = 0; k < rsize; ++k)
    for (int i = 0; i < N; ++i)
      CHECK(rbuf[k * N + i] == val(rbase + k, i), "allgather %d/%d = %d", k, i, rbuf[k * N + i]);
  for (int k = 0; k < rsize; ++k) sbuf[k] = 100000 * wrank + k;
  memset(rbuf, 0xff, sizeof rbuf);
  CHECK_MPI(MPI_Alltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, ic));
  for (int k = 0; k < rsize; ++k)
    CHECK(rbuf[k] == 100000 * (rbase + k) + rank, "alltoall %d = %d", k, rbuf[k]);
  /* Alltoallv: one int to each remote rank, received in reverse slots. */
  int sc[MAXP], sd[MAXP], rc[MAXP], rd[MAXP];
  for (int k = 0; k < rsize; ++k) {
    sc[k] = rc[k] = 1;
    sd[k] = k;
    rd[k] = rsize - 1 - k;
  }
  memset(rbuf, 0xff, sizeof rbuf);
  CHECK_MPI(MPI_Alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, ic));
  for (int k = 0; k < rsize; ++k)
    CHECK(rbuf[rsize - 1 - k] == 100000 * (rbase + k) + rank, "alltoallv %d", k);
  /* Allgatherv: remote rank k contributes (k % 2) + 1 ints. */
  int ac[MAXP], ad[MAXP], off = 0;
  for (int k = 0; k < rsize; ++k) {
    ac[k] = k % 2 + 1;
    ad[k] = off;
    off += ac[k];
  }
  memset(rbuf, 0xff, sizeof rbuf);
  CHECK_MPI(MPI_Allgatherv(s, rank % 2 + 1, MPI_INT, rbuf, ac, ad, MPI_INT, ic));
  for (int k = 0; k < rsize; ++k)
    for (int i = 0; i < ac[k]; ++i)
      CHECK(rbuf[ad[k] + i] == val(rbase + k, i), "allgatherv %d/%d", k, i);

  /* Reduce_scatter_block: each group's vectors have size * recvcount elements and the two
   * groups' vectors must be as long, so recvcount = the remote size (size * rsize both
   * sides). My rank gets elements [rank * rsize, (rank + 1) * rsize) of the reduction of
   * the other group's vectors. */
  for (int j = 0; j < size * rsize; ++j) sbuf[j] = val(wrank, j);
  int gotv[MAXP];
  CHECK_MPI(MPI_Reduce_scatter_block(sbuf, gotv, rsize, MPI_INT, MPI_SUM, ic));
  for (int i = 0; i < rsize; ++i) {
    int e = 0;
    for (int k = 0; k < rsize; ++k) e += val(rbase + k, rank * rsize + i);
    CHECK(gotv[i] == e, "reduce_scatter_block [%d] = %d expected %d", i, gotv[i], e);
  }
  /* Reduce_scatter with the same counts given as an array over my local group. */
  int lc[MAXP];
  for (int k = 0; k < size; ++k) lc[k] = rsize;
  memset(gotv, 0xff, sizeof gotv);
  CHECK_MPI(MPI_Reduce_scatter(sbuf, gotv, lc, MPI_INT, MPI_SUM, ic));
  for (int i = 0; i < rsize; ++i) {
    int e = 0;
    for (int k = 0; k < rsize; ++k) e += val(rbase + k, rank * rsize + i);
    CHECK(gotv[i] == e, "reduce_scatter [%d] = %d expected %d", i, gotv[i], e);
  }

  /* Nonblocking and persistent versions, several outstanding at once. */
  {
    MPI_Request req[6];
    int bc[N], ar[N], ag[MAXP * N], rsb[MAXP];
    const int broot = inA ? (rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    for (int i = 0; i < N; ++i) bc[i] = broot == MPI_ROOT ? val(wrank, i) : -1;
    CHECK_MPI(MPI_Ibarrier(ic, &req[0]));
    CHECK_MPI(MPI_Ibcast(bc, N, MPI_INT, broot, ic, &req[1]));
    CHECK_MPI(MPI_Iallreduce(s, ar, N, MPI_INT, MPI_SUM, ic, &req[2]));
    CHECK_MPI(MPI_Iallgather(s, N, MPI_INT, ag, N, MPI_INT, ic, &req[3]));
    CHECK_MPI(MPI_Ireduce_scatter_block(sbuf, rsb, rsize, MPI_INT, MPI_SUM, ic, &req[4]));
    int red[N];
    const int rroot = inA ? 0 : (rank == 0 ? MPI_ROOT : MPI_PROC_NULL);
    CHECK_MPI(MPI_Ireduce(s, red, N, MPI_INT, MPI_MAX, rroot, ic, &req[5]));
    CHECK_MPI(MPI_Waitall(6, req, MPI_STATUSES_IGNORE));
    if (!inA)
      for (int i = 0; i < N; ++i) CHECK(bc[i] == val(0, i), "ibcast [%d] = %d", i, bc[i]);
    for (int i = 0; i < N; ++i) {
      int e = 0;
      for (int k = 0; k < rsize; ++k) e += val(rbase + k, i);
      CHECK(ar[i] == e, "iallreduce [%d] = %d expected %d", i, ar[i], e);
    }
    for (int k = 0; k < rsize; ++k)
      for (int i = 0; i < N; ++i)
        CHECK(ag[k * N + i] == val(rbase + k, i), "iallgather %d/%d", k, i);
    for (int i = 0; i < rsize; ++i) {
      int e = 0;
      for (int k = 0; k < rsize; ++k) e += val(rbase + k, rank * rsize + i);
      CHECK(rsb[i] == e, "ireduce_scatter_block [%d] = %d expected %d", i, rsb[i], e);
    }
    if (rroot == MPI_ROOT)
      for (int i = 0; i < N; ++i)
        CHECK(red[i] == val(na - 1, i), "ireduce max [%d] = %d", i, red[i]);

    /* Persistent: Bcast_init from A's rank 0 and Alltoall_init, started twice. */
    MPI_Request p[2];
    int at[MAXP];
    CHECK_MPI(MPI_Bcast_init(bc, N, MPI_INT, broot, ic, MPI_INFO_NULL, &p[0]));
    CHECK_MPI(MPI_Alltoall_init(sbuf, 1, MPI_INT, at, 1, MPI_INT, ic, MPI_INFO_NULL, &p[1]));
    for (int it = 0; it < 2; ++it) {
      for (int i = 0; i < N; ++i) bc[i] = broot == MPI_ROOT ? val(wrank, i) + it : -1;
      for (int k = 0; k < rsize; ++k) sbuf[k] = 100000 * wrank + 10 * k + it;
      CHECK_MPI(MPI_Startall(2, p));
      CHECK_MPI(MPI_Waitall(2, p, MPI_STATUSES_IGNORE));
      if (!inA)
        for (int i = 0; i < N; ++i) CHECK(bc[i] == val(0, i) + it, "bcast_init [%d]", i);
      for (int k = 0; k < rsize; ++k)
        CHECK(at[k] == 100000 * (rbase + k) + 10 * rank + it, "alltoall_init %d = %d", k, at[k]);
    }
    CHECK_MPI(MPI_Request_free(&p[0]));
    CHECK_MPI(MPI_Request_free(&p[1]));
  }

  CHECK_MPI(MPI_Comm_free(&ic));
  CHECK_MPI(MPI_Comm_free(&half));
  test_pass("intercomm_coll");
  MPI_Finalize();
  return 0;
}
