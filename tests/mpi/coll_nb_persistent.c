/* MPI-4 persistent collectives: every MPI_<Coll>_init request is created once and started
 * six times (MPI_Start, then MPI_Startall over all of them, in an order that differs
 * between even and odd ranks, which MPI-4 allows), with new buffer contents before each
 * start, every result checked element by element. Also: Wait/Test on an inactive
 * persistent collective return at once with an empty status and keep the handle; a
 * completed one stays valid for the next start; MPI_Request_free releases it; count 0,
 * MPI_IN_PLACE, a gapped derived type and a non-commutative user op (the types and the op
 * are freed right after the init calls). */
#include "coll_nb_util.h"

#define C 257
#define ITERS 6

static MPI_Datatype g_gap, g_mat;
static MPI_Op g_matop;
static int g_it; /* the current iteration: every value depends on it */

static int v(int r, long i) {
  return val(r + 3 * g_it, i);
}
static int v3(int r, int p, long i) {
  return val3(r, p, i) + g_it;
}
static int sum_v(int lo, int hi, long i) {
  int s = 0;
  for (int p = lo; p <= hi; ++p) s += v(p, i);
  return s;
}

/* Buffers of all cases (allocated once: the requests keep pointing at them). */
static int *bc, *bc_gap, *g_in, *g_out, *gv_out, *sc_in, *sc_out, *scv_in, *scv_out, *ag_out,
    *agv_out, *a2a_in, *a2a_out, *a2av_in, *a2av_out, *a2aw_out, *red_in, *red_out, *ar_buf,
    *mat_in, *mat_out, *rsb_in, *rsb_out, *rs_buf, *scan_out, *exscan_out, *empty;
static int *vcounts, *vdispls, *pcounts, *pdispls, *wdispls;
static MPI_Datatype* wtypes;
static int vtot, ptot;

enum {
  BARRIER,
  BCAST,
  BCAST_GAP,
  GATHER,
  GATHERV,
  SCATTER,
  SCATTERV,
  ALLGATHER,
  ALLGATHERV,
  ALLTOALL,
  ALLTOALLV,
  ALLTOALLW,
  REDUCE,
  ALLREDUCE_INPLACE,
  ALLREDUCE_MAT,
  RSB,
  RS_INPLACE,
  SCAN,
  EXSCAN,
  BCAST_EMPTY,
  NCASES
};
static const char* kNames[NCASES] = {"barrier",
                                     "bcast",
                                     "bcast gapped",
                                     "gather",
                                     "gatherv",
                                     "scatter",
                                     "scatterv",
                                     "allgather",
                                     "allgatherv",
                                     "alltoall",
                                     "alltoallv",
                                     "alltoallw",
                                     "reduce",
                                     "allreduce in place",
                                     "allreduce matrix",
                                     "reduce_scatter_block",
                                     "reduce_scatter in place",
                                     "scan",
                                     "exscan",
                                     "bcast count 0"};
static const int kRoot[NCASES] = {[BCAST] = 1, [GATHER] = 2, [SCATTER] = 1, [REDUCE] = 2};

static int root_of(int c) {
  return kRoot[c] % g_size;
}

static void init_all(MPI_Request* req) {
  const int n = g_size;
  MPI_Comm w = MPI_COMM_WORLD;
  MPI_Info info;
  CHECK_MPI(MPI_Info_create(&info));
  bc = ialloc(C, 0);
  bc_gap = ialloc(3 * C, SENTINEL);
  g_in = ialloc(C + 3, 0);
  g_out = ialloc((long)C * n, 0);
  vcounts = ialloc(n, 0);
  vdispls = ialloc(n, 0);
  for (int p = 0; p < n; ++p) {
    vcounts[p] = vcount(C, p);
    vdispls[p] = vdispl(C, p, n);
  }
  vtot = vtotal(C, n);
  gv_out = ialloc(vtot, 0);
  sc_in = ialloc((long)C * n, 0);
  sc_out = ialloc(C, 0);
  scv_out = ialloc(C + 3, 0);
  scv_in = ialloc(vtot, 0);
  ag_out = ialloc((long)C * n, 0);
  agv_out = ialloc(vtot, 0);
  a2a_in = ialloc((long)C * n, 0);
  a2a_out = ialloc((long)C * n, 0);
  pcounts = ialloc(n, 0);
  pdispls = ialloc(n, 0);
  wdispls = ialloc(n, 0);
  wtypes = (MPI_Datatype*)xmalloc(sizeof(MPI_Datatype) * n);
  ptot = 0;
  for (int p = 0; p < n; ++p) {
    pcounts[p] = (g_rank + p) % 4; /* symmetric: rank p sends me as many as I send it */
    pdispls[p] = ptot;
    wdispls[p] = ptot * (int)sizeof(int);
    wtypes[p] = MPI_INT;
    ptot += pcounts[p];
  }
  a2av_in = ialloc(ptot + 1, 0);
  a2av_out = ialloc(ptot + 1, 0);
  a2aw_out = ialloc(ptot + 1, 0);
  red_in = ialloc(C, 0);
  red_out = ialloc(C, 0);
  ar_buf = ialloc(C, 0);
  mat_in = ialloc(4 * 5, 0);
  mat_out = ialloc(4 * 5, 0);
  rsb_in = ialloc((long)C * n, 0);
  rsb_out = ialloc(C, 0);
  rs_buf = ialloc(vtot, 0);
  scan_out = ialloc(C, 0);
  exscan_out = ialloc(C, 0);
  empty = ialloc(1, SENTINEL);
  for (int c = 0; c < NCASES; ++c) req[c] = MPI_REQUEST_NULL;

  CHECK_MPI(MPI_Barrier_init(w, info, &req[BARRIER]));
  CHECK_MPI(MPI_Bcast_init(bc, C, MPI_INT, root_of(BCAST), w, MPI_INFO_NULL, &req[BCAST]));
  CHECK_MPI(MPI_Bcast_init(bc_gap, C, g_gap, 0, w, info, &req[BCAST_GAP]));
  CHECK_MPI(
      MPI_Gather_init(g_in, C, MPI_INT, g_out, C, MPI_INT, root_of(GATHER), w, info, &req[GATHER]));
  CHECK_MPI(MPI_Gatherv_init(g_in, vcounts[g_rank], MPI_INT, gv_out, vcounts, vdispls, MPI_INT, 0,
                             w, info, &req[GATHERV]));
  CHECK_MPI(MPI_Scatter_init(sc_in, C, MPI_INT, sc_out, C, MPI_INT, root_of(SCATTER), w, info,
                             &req[SCATTER]));
  CHECK_MPI(MPI_Scatterv_init(scv_in, vcounts, vdispls, MPI_INT, scv_out, vcounts[g_rank], MPI_INT,
                              0, w, info, &req[SCATTERV]));
  CHECK_MPI(
      MPI_Allgather_init(MPI_IN_PLACE, 0, MPI_INT, ag_out, C, MPI_INT, w, info, &req[ALLGATHER]));
  CHECK_MPI(MPI_Allgatherv_init(g_in, vcounts[g_rank], MPI_INT, agv_out, vcounts, vdispls, MPI_INT,
                                w, info, &req[ALLGATHERV]));
  CHECK_MPI(MPI_Alltoall_init(a2a_in, C, MPI_INT, a2a_out, C, MPI_INT, w, info, &req[ALLTOALL]));
  CHECK_MPI(MPI_Alltoallv_init(a2av_in, pcounts, pdispls, MPI_INT, a2av_out, pcounts, pdispls,
                               MPI_INT, w, info, &req[ALLTOALLV]));
  CHECK_MPI(MPI_Alltoallw_init(a2av_in, pcounts, wdispls, wtypes, a2aw_out, pcounts, wdispls,
                               wtypes, w, info, &req[ALLTOALLW]));
  CHECK_MPI(MPI_Reduce_init(red_in, red_out, C, MPI_INT, MPI_SUM, root_of(REDUCE), w, info,
                            &req[REDUCE]));
  CHECK_MPI(MPI_Allreduce_init(MPI_IN_PLACE, ar_buf, C, MPI_INT, MPI_SUM, w, info,
                               &req[ALLREDUCE_INPLACE]));
  CHECK_MPI(MPI_Allreduce_init(mat_in, mat_out, 5, g_mat, g_matop, w, info, &req[ALLREDUCE_MAT]));
  CHECK_MPI(
      MPI_Reduce_scatter_block_init(rsb_in, rsb_out, C, MPI_INT, MPI_SUM, w, info, &req[RSB]));
  CHECK_MPI(MPI_Reduce_scatter_init(MPI_IN_PLACE, rs_buf, vcounts, MPI_INT, MPI_SUM, w, info,
                                    &req[RS_INPLACE]));
  CHECK_MPI(MPI_Scan_init(red_in, scan_out, C, MPI_INT, MPI_SUM, w, info, &req[SCAN]));
  CHECK_MPI(MPI_Exscan_init(red_in, exscan_out, C, MPI_INT, MPI_SUM, w, info, &req[EXSCAN]));
  CHECK_MPI(MPI_Bcast_init(empty, 0, MPI_INT, 0, w, info, &req[BCAST_EMPTY]));
  CHECK_MPI(MPI_Info_free(&info));
  for (int c = 0; c < NCASES; ++c)
    CHECK(req[c] != MPI_REQUEST_NULL, "%s: init gave MPI_REQUEST_NULL", kNames[c]);
}

/* New inputs for iteration g_it (and sentinels in the outputs). */
static void fill_all(void) {
  const int n = g_size, r = g_rank;
  for (int i = 0; i < C; ++i) bc[i] = r == root_of(BCAST) ? v(r, i) : SENTINEL;
  fill_int(bc_gap, 3 * C, SENTINEL);
  if (r == 0)
    for (int j = 0; j < 2 * C; ++j) bc_gap[gapped_index(j)] = v(0, j);
  for (int i = 0; i < C + 3; ++i) g_in[i] = v(r, i);
  fill_int(g_out, (long)C * n, SENTINEL);
  fill_int(gv_out, vtot, SENTINEL);
  for (int p = 0; p < n; ++p)
    for (int i = 0; i < C; ++i) sc_in[(long)p * C + i] = v(p + 1, i);
  fill_int(sc_out, C, SENTINEL);
  fill_int(scv_out, C + 3, SENTINEL);
  fill_int(scv_in, vtot, SENTINEL);
  for (int p = 0; p < n; ++p)
    for (int i = 0; i < vcounts[p]; ++i) scv_in[vdispls[p] + i] = v(p + 2, i);
  fill_int(ag_out, (long)C * n, SENTINEL);
  for (int i = 0; i < C; ++i) ag_out[(long)r * C + i] = v(r, i);
  fill_int(agv_out, vtot, SENTINEL);
  for (int p = 0; p < n; ++p)
    for (int i = 0; i < C; ++i) a2a_in[(long)p * C + i] = v3(r, p, i);
  fill_int(a2a_out, (long)C * n, SENTINEL);
  for (int p = 0; p < n; ++p)
    for (int i = 0; i < pcounts[p]; ++i) a2av_in[pdispls[p] + i] = v3(r, p, i);
  fill_int(a2av_out, ptot + 1, SENTINEL);
  fill_int(a2aw_out, ptot + 1, SENTINEL);
  for (int i = 0; i < C; ++i) red_in[i] = v(r, i);
  fill_int(red_out, C, SENTINEL);
  for (int i = 0; i < C; ++i) ar_buf[i] = v(r, i);
  for (int i = 0; i < 5; ++i) mat_of(r, i + g_it, mat_in + 4 * i);
  fill_int(mat_out, 20, SENTINEL);
  for (long i = 0; i < (long)C * n; ++i) rsb_in[i] = v(r, i);
  fill_int(rsb_out, C, SENTINEL);
  for (int i = 0; i < vtot; ++i) rs_buf[i] = v(r, i);
  fill_int(scan_out, C, SENTINEL);
  fill_int(exscan_out, C, SENTINEL);
}

static void check_case(int c) {
  const int n = g_size, r = g_rank;
  const char* what = kNames[c];
  switch (c) {
    case BCAST:
      for (int i = 0; i < C; ++i)
        CHECK(bc[i] == v(root_of(BCAST), i), "%s iter %d: element %d", what, g_it, i);
      break;
    case BCAST_GAP:
      for (int j = 0; j < 2 * C; ++j)
        CHECK(bc_gap[gapped_index(j)] == v(0, j), "%s iter %d: int %d", what, g_it, j);
      for (int e = 0; e < C; ++e) CHECK(bc_gap[3 * e + 1] == SENTINEL, "%s wrote a hole", what);
      break;
    case GATHER:
      if (r == root_of(GATHER))
        for (int p = 0; p < n; ++p)
          for (int i = 0; i < C; ++i)
            CHECK(g_out[(long)p * C + i] == v(p, i), "%s iter %d: block %d elem %d", what, g_it, p,
                  i);
      break;
    case GATHERV:
      if (r == 0)
        for (int p = 0; p < n; ++p) {
          for (int i = 0; i < vcounts[p]; ++i)
            CHECK(gv_out[vdispls[p] + i] == v(p, i), "%s iter %d: block %d elem %d", what, g_it, p,
                  i);
          CHECK(gv_out[vdispls[p] + vcounts[p]] == SENTINEL, "%s wrote a gap", what);
        }
      break;
    case SCATTER:
      for (int i = 0; i < C; ++i)
        CHECK(sc_out[i] == v(r + 1, i), "%s iter %d: element %d", what, g_it, i);
      break;
    case SCATTERV:
      for (int i = 0; i < vcounts[r]; ++i)
        CHECK(scv_out[i] == v(r + 2, i), "%s iter %d: element %d", what, g_it, i);
      CHECK(scv_out[vcounts[r]] == SENTINEL, "%s wrote past its block", what);
      break;
    case ALLGATHER:
      for (int p = 0; p < n; ++p)
        for (int i = 0; i < C; ++i)
          CHECK(ag_out[(long)p * C + i] == v(p, i), "%s iter %d: block %d elem %d", what, g_it, p,
                i);
      break;
    case ALLGATHERV:
      for (int p = 0; p < n; ++p) {
        for (int i = 0; i < vcounts[p]; ++i)
          CHECK(agv_out[vdispls[p] + i] == v(p, i), "%s iter %d: block %d elem %d", what, g_it, p,
                i);
        CHECK(agv_out[vdispls[p] + vcounts[p]] == SENTINEL, "%s wrote a gap", what);
      }
      break;
    case ALLTOALL:
      for (int p = 0; p < n; ++p)
        for (int i = 0; i < C; ++i)
          CHECK(a2a_out[(long)p * C + i] == v3(p, r, i), "%s iter %d: block %d elem %d", what, g_it,
                p, i);
      break;
    case ALLTOALLV:
    case ALLTOALLW: {
      const int* out = c == ALLTOALLV ? a2av_out : a2aw_out;
      for (int p = 0; p < n; ++p)
        for (int i = 0; i < pcounts[p]; ++i)
          CHECK(out[pdispls[p] + i] == v3(p, r, i), "%s iter %d: block %d elem %d", what, g_it, p,
                i);
      CHECK(out[ptot] == SENTINEL, "%s wrote past the end", what);
      break;
    }
    case REDUCE:
      if (r == root_of(REDUCE))
        for (int i = 0; i < C; ++i)
          CHECK(red_out[i] == sum_v(0, n - 1, i), "%s iter %d: element %d", what, g_it, i);
      break;
    case ALLREDUCE_INPLACE:
      for (int i = 0; i < C; ++i)
        CHECK(ar_buf[i] == sum_v(0, n - 1, i), "%s iter %d: element %d", what, g_it, i);
      break;
    case ALLREDUCE_MAT:
      for (int i = 0; i < 5; ++i) {
        int e[4];
        mat_prod(0, n - 1, i + g_it, e);
        CHECK(memcmp(mat_out + 4 * i, e, sizeof e) == 0, "%s iter %d: matrix %d", what, g_it, i);
      }
      break;
    case RSB:
      for (int i = 0; i < C; ++i)
        CHECK(rsb_out[i] == sum_v(0, n - 1, (long)r * C + i), "%s iter %d: element %d", what, g_it,
              i);
      break;
    case RS_INPLACE: {
      /* Blocks of vcounts[p] elements in rank order, from element 0. */
      long before = 0;
      for (int p = 0; p < r; ++p) before += vcounts[p];
      for (int i = 0; i < vcounts[r]; ++i)
        CHECK(rs_buf[i] == sum_v(0, n - 1, before + i), "%s iter %d: element %d", what, g_it, i);
      break;
    }
    case SCAN:
      for (int i = 0; i < C; ++i)
        CHECK(scan_out[i] == sum_v(0, r, i), "%s iter %d: element %d", what, g_it, i);
      break;
    case EXSCAN:
      if (r > 0)
        for (int i = 0; i < C; ++i)
          CHECK(exscan_out[i] == sum_v(0, r - 1, i), "%s iter %d: element %d", what, g_it, i);
      break;
    case BCAST_EMPTY:
      CHECK(empty[0] == SENTINEL, "%s wrote its buffer", what);
      break;
    default:
      break;
  }
}

static void check_inactive(MPI_Request* req) {
  for (int c = 0; c < NCASES; ++c) {
    MPI_Status st;
    st.MPI_SOURCE = 12345;
    st.MPI_TAG = 12345;
    MPI_Request keep = req[c];
    CHECK_MPI(MPI_Wait(&req[c], &st));
    CHECK(req[c] == keep, "%s: Wait on an inactive request changed the handle", kNames[c]);
    CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG,
          "%s: inactive Wait status source %d tag %d", kNames[c], st.MPI_SOURCE, st.MPI_TAG);
    int flag = 0;
    CHECK_MPI(MPI_Test(&req[c], &flag, MPI_STATUS_IGNORE));
    CHECK(flag == 1 && req[c] == keep, "%s: Test on an inactive request: flag %d", kNames[c], flag);
    CHECK_MPI(MPI_Request_get_status(req[c], &flag, MPI_STATUS_IGNORE));
    CHECK(flag == 1, "%s: Request_get_status on an inactive request", kNames[c]);
  }
  int idx = 0, flag = 0;
  CHECK_MPI(MPI_Testany(NCASES, req, &idx, &flag, MPI_STATUS_IGNORE));
  CHECK(flag == 1 && idx == MPI_UNDEFINED, "Testany over inactive requests: flag %d idx %d", flag,
        idx);
  CHECK_MPI(MPI_Waitany(NCASES, req, &idx, MPI_STATUS_IGNORE));
  CHECK(idx == MPI_UNDEFINED, "Waitany over inactive requests: idx %d", idx);
}

int main(int argc, char** argv) {
  coll_init(&argc, &argv);
  g_gap = gapped_int_type();
  g_mat = mat_type();
  CHECK_MPI(MPI_Op_create(mat_op, 0, &g_matop));
  MPI_Request req[NCASES];
  init_all(req);
  check_inactive(req);
  /* The types and the op may be freed once the requests exist: the plans keep them. */
  CHECK_MPI(MPI_Op_free(&g_matop));
  CHECK_MPI(MPI_Type_free(&g_mat));
  CHECK_MPI(MPI_Type_free(&g_gap));

  for (g_it = 0; g_it < ITERS; ++g_it) {
    fill_all();
    if (g_it < 2) {
      /* One at a time, completed by rotating methods; the handle stays valid. */
      for (int c = 0; c < NCASES; ++c) {
        const MPI_Request keep = req[c];
        CHECK_MPI(MPI_Start(&req[c]));
        int flag = 0, idx = -1;
        switch ((c + g_it) % 4) {
          case 0:
            CHECK_MPI(MPI_Wait(&req[c], MPI_STATUS_IGNORE));
            break;
          case 1:
            while (!flag) CHECK_MPI(MPI_Test(&req[c], &flag, MPI_STATUS_IGNORE));
            break;
          case 2:
            CHECK_MPI(MPI_Waitall(1, &req[c], MPI_STATUSES_IGNORE));
            break;
          default:
            while (!flag) CHECK_MPI(MPI_Testany(1, &req[c], &idx, &flag, MPI_STATUS_IGNORE));
            break;
        }
        CHECK(req[c] == keep, "%s: completion changed the persistent handle", kNames[c]);
        check_case(c);
      }
    } else {
      /* All at once; even and odd ranks start them in opposite orders. */
      MPI_Request order[NCASES];
      for (int c = 0; c < NCASES; ++c) order[c] = req[g_rank % 2 ? NCASES - 1 - c : c];
      CHECK_MPI(MPI_Startall(NCASES, order));
      if (g_it % 2) {
        CHECK_MPI(MPI_Waitall(NCASES, order, MPI_STATUSES_IGNORE));
      } else {
        int left = NCASES;
        while (left > 0) {
          int idx = -1, flag = 0;
          CHECK_MPI(MPI_Testany(NCASES, order, &idx, &flag, MPI_STATUS_IGNORE));
          if (!flag) continue;
          CHECK(idx != MPI_UNDEFINED, "Testany found no active request with %d left", left);
          --left;
        }
      }
      for (int c = 0; c < NCASES; ++c) check_case(c);
    }
  }
  check_inactive(req);
  for (int c = 0; c < NCASES; ++c) {
    CHECK_MPI(MPI_Request_free(&req[c]));
    CHECK(req[c] == MPI_REQUEST_NULL, "%s: Request_free left the handle", kNames[c]);
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  test_pass("coll_nb_persistent");
  MPI_Finalize();
  return 0;
}
