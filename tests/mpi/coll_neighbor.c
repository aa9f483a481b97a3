/* Neighbourhood collectives on Cartesian, graph and distributed-graph communicators:
 * blocking, nonblocking, persistent and large-count forms, every block checked.
 *  - Cartesian, periodic (also with dimensions of 1 and 2 processes, where both neighbours of
 *    a dimension are one rank and only the order of the messages tells the blocks apart),
 *    and non-periodic (MPI_PROC_NULL neighbours leave their receive blocks alone);
 *  - a distributed graph with repeated edges and different in- and out-degrees;
 *  - a graph (MPI_Graph_create) ring;
 *  - errors: no topology (MPI_ERR_TOPOLOGY), MPI_IN_PLACE (MPI_ERR_BUFFER), a negative
 *    count (MPI_ERR_COUNT), with MPI_ERRORS_RETURN. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

enum { kSentinel = -7 };

static int rank_, size_;

/* The value rank `from` puts in the block it sends to its `index`-th destination, item k. */
static int value(int from, int index, int k) {
  return from * 10000 + index * 100 + k;
}

/* Sources and destinations of comm, as MPI_Neighbor_* use them. */
static void neighbors(MPI_Comm comm, int* indeg, int* outdeg, int** src, int** dst) {
  int kind = 0;
  CHECK_MPI(MPI_Topo_test(comm, &kind));
  if (kind == MPI_CART) {
    int nd = 0;
    CHECK_MPI(MPI_Cartdim_get(comm, &nd));
    *indeg = *outdeg = 2 * nd;
    *src = malloc(sizeof(int) * (size_t)(2 * nd + 1));
    *dst = malloc(sizeof(int) * (size_t)(2 * nd + 1));
    for (int d = 0; d < nd; ++d) {
      int lo, hi;
      CHECK_MPI(MPI_Cart_shift(comm, d, 1, &lo, &hi));
      (*src)[2 * d] = (*dst)[2 * d] = lo;
      (*src)[2 * d + 1] = (*dst)[2 * d + 1] = hi;
    }
  } else if (kind == MPI_GRAPH) {
    int me, n = 0;
    MPI_Comm_rank(comm, &me);
    CHECK_MPI(MPI_Graph_neighbors_count(comm, me, &n));
    *indeg = *outdeg = n;
    *src = malloc(sizeof(int) * (size_t)(n + 1));
    *dst = malloc(sizeof(int) * (size_t)(n + 1));
    CHECK_MPI(MPI_Graph_neighbors(comm, me, n, *src));
    memcpy(*dst, *src, sizeof(int) * (size_t)n);
  } else {
    int weighted;
    CHECK(kind == MPI_DIST_GRAPH, "topology %d", kind);
    CHECK_MPI(MPI_Dist_graph_neighbors_count(comm, indeg, outdeg, &weighted));
    *src = malloc(sizeof(int) * (size_t)(*indeg + 1));
    *dst = malloc(sizeof(int) * (size_t)(*outdeg + 1));
    CHECK_MPI(MPI_Dist_graph_neighbors(comm, *indeg, *src, MPI_UNWEIGHTED, *outdeg, *dst,
                                       MPI_UNWEIGHTED));
  }
}

/* For receive block i (from source s = src[i]): the index of the destination list at s under
 * which s sent it. Cartesian: the block from below (2d) was sent up (2d + 1) and vice versa.
 * Graphs: the occurrence number of me among s's destinations matches the occurrence number
 * of s among my sources. */
static int sender_index(MPI_Comm comm, const int* src, int i) {
  int kind = 0;
  MPI_Topo_test(comm, &kind);
  if (kind == MPI_CART) return i ^ 1;
  int me;
  MPI_Comm_rank(comm, &me);
  int occurrence = 0;
  for (int j = 0; j < i; ++j) occurrence += src[j] == src[i];
  /* s's destinations: known to the test through the graph's construction (callers pass
   * graphs where every rank's destination list is computable by dest_list below). */
  extern int dest_of(MPI_Comm comm, int who, int index);
  extern int outdeg_of(MPI_Comm comm, int who);
  const int n = outdeg_of(comm, src[i]);
  for (int j = 0; j < n; ++j)
    if (dest_of(comm, src[i], j) == me && occurrence-- == 0) return j;
  CHECK(0, "rank %d is not a destination of %d", me, src[i]);
  return -1;
}

/* The distributed graph of this test: rank r sends to r+1 twice, to r+3 once (mod n); it
 * receives from r-1 twice and r-3 once. The graph communicator (MPI_Graph_create) is a ring:
 * r's neighbours are r-1 and r+1, each direction one edge. */
static int g_graph_kind;
int outdeg_of(MPI_Comm comm, int who) {
  (void)comm;
  (void)who;
  return g_graph_kind == MPI_GRAPH ? (size_ > 2 ? 2 : (size_ == 2 ? 2 : 0)) : 3;
}
int dest_of(MPI_Comm comm, int who, int index) {
  if (g_graph_kind == MPI_GRAPH) {
    int nb[2];
    int n = 0;
    CHECK_MPI(MPI_Graph_neighbors_count(comm, who, &n));
    CHECK(n == outdeg_of(comm, who), "graph degree %d", n);
    CHECK_MPI(MPI_Graph_neighbors(comm, who, 2, nb));
    return nb[index];
  }
  const int d[3] = {1, 1, 3};
  return (who + d[index]) % size_;
}

static void check_alltoall(MPI_Comm comm, const char* what, int count, int form) {
  int indeg, outdeg, *src, *dst;
  neighbors(comm, &indeg, &outdeg, &src, &dst);
  int* sbuf = malloc(sizeof(int) * (size_t)(count * outdeg + 1));
  int* rbuf = malloc(sizeof(int) * (size_t)(count * indeg + 1));
  int me;
  MPI_Comm_rank(comm, &me);
  for (int i = 0; i < outdeg; ++i)
    for (int k = 0; k < count; ++k) sbuf[i * count + k] = value(me, i, k);
  for (int i = 0; i < count * indeg; ++i) rbuf[i] = kSentinel;
  MPI_Request req;
  if (form == 0) {
    CHECK_MPI(MPI_Neighbor_alltoall(sbuf, count, MPI_INT, rbuf, count, MPI_INT, comm));
  } else if (form == 1) {
    CHECK_MPI(MPI_Ineighbor_alltoall(sbuf, count, MPI_INT, rbuf, count, MPI_INT, comm, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  } else {
    CHECK_MPI(MPI_Neighbor_alltoall_c(sbuf, count, MPI_INT, rbuf, count, MPI_INT, comm));
  }
  for (int i = 0; i < indeg; ++i)
    for (int k = 0; k < count; ++k) {
      const int got = rbuf[i * count + k];
      const int want =
          src[i] == MPI_PROC_NULL ? kSentinel : value(src[i], sender_index(comm, src, i), k);
      CHECK(got == want, "%s alltoall (form %d): block %d item %d from %d is %d, want %d", what,
            form, i, k, src[i], got, want);
    }
  free(sbuf);
  free(rbuf);
  free(src);
  free(dst);
}

static void check_allgather(MPI_Comm comm, const char* what) {
  int indeg, outdeg, *src, *dst;
  neighbors(comm, &indeg, &outdeg, &src, &dst);
  int me;
  MPI_Comm_rank(comm, &me);
  int mine[2] = {me * 3, me * 3 + 1};
  int* rbuf = malloc(sizeof(int) * (size_t)(2 * indeg + 1));
  for (int form = 0; form < 3; ++form) {
    for (int i = 0; i < 2 * indeg; ++i) rbuf[i] = kSentinel;
    MPI_Request req;
    if (form == 0) {
      CHECK_MPI(MPI_Neighbor_allgather(mine, 2, MPI_INT, rbuf, 2, MPI_INT, comm));
    } else if (form == 1) {
      CHECK_MPI(MPI_Ineighbor_allgather(mine, 2, MPI_INT, rbuf, 2, MPI_INT, comm, &req));
      CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    } else {
      CHECK_MPI(MPI_Ineighbor_allgather_c(mine, 2, MPI_INT, rbuf, 2, MPI_INT, comm, &req));
      CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    }
    for (int i = 0; i < indeg; ++i)
      for (int k = 0; k < 2; ++k) {
        const int want = src[i] == MPI_PROC_NULL ? kSentinel : src[i] * 3 + k;
        CHECK(rbuf[2 * i + k] == want, "%s allgather (form %d): block %d item %d is %d, want %d",
              what, form, i, k, rbuf[2 * i + k], want);
      }
  }
  /* allgatherv: block i holds i + 1 items at displacement 10 * i, in reverse order. */
  int* counts = malloc(sizeof(int) * (size_t)(indeg + 1));
  int* displs = malloc(sizeof(int) * (size_t)(indeg + 1));
  int* vbuf = malloc(sizeof(int) * (size_t)(10 * indeg + 10));
  for (int i = 0; i < indeg; ++i) {
    counts[i] = 2;
    displs[i] = 10 * (indeg - 1 - i) + 3;
  }
  for (int i = 0; i < 10 * indeg + 10; ++i) vbuf[i] = kSentinel;
  CHECK_MPI(MPI_Neighbor_allgatherv(mine, 2, MPI_INT, vbuf, counts, displs, MPI_INT, comm));
  for (int i = 0; i < indeg; ++i)
    for (int k = 0; k < 2; ++k) {
      const int want = src[i] == MPI_PROC_NULL ? kSentinel : src[i] * 3 + k;
      CHECK(vbuf[displs[i] + k] == want, "%s allgatherv: block %d item %d is %d, want %d", what, i,
            k, vbuf[displs[i] + k], want);
    }
  CHECK(vbuf[0] == kSentinel && vbuf[1] == kSentinel, "%s allgatherv wrote outside its blocks",
        what);
  free(counts);
  free(displs);
  free(vbuf);
  free(rbuf);
  free(src);
  free(dst);
}

/* alltoallv with block i of i + 1 items; alltoallw with alternating MPI_INT and a vector of
 * stride 2; persistent forms started three times with new data each time. */
static void check_v_w(MPI_Comm comm, const char* what) {
  int indeg, outdeg, *src, *dst;
  neighbors(comm, &indeg, &outdeg, &src, &dst);
  int me;
  MPI_Comm_rank(comm, &me);
  const int maxn = 8;
  int* scounts = malloc(sizeof(int) * (size_t)(outdeg + 1));
  int* sdispls = malloc(sizeof(int) * (size_t)(outdeg + 1));
  int* rcounts = malloc(sizeof(int) * (size_t)(indeg + 1));
  int* rdispls = malloc(sizeof(int) * (size_t)(indeg + 1));
  int* sbuf = malloc(sizeof(int) * (size_t)(maxn * outdeg + 1));
  int* rbuf = malloc(sizeof(int) * (size_t)(maxn * indeg + 1));
  /* Items per block: what the sender's index says (the receiver computes it the same way). */
#define ITEMS(index) ((index) % 4 + 1)
  for (int i = 0; i < outdeg; ++i) {
    scounts[i] = ITEMS(i);
    sdispls[i] = maxn * i;
  }
  for (int i = 0; i < indeg; ++i) {
    rcounts[i] = src[i] == MPI_PROC_NULL ? 0 : ITEMS(sender_index(comm, src, i));
    rdispls[i] = maxn * i;
  }
  MPI_Request req;
  CHECK_MPI(MPI_Neighbor_alltoallv_init(sbuf, scounts, sdispls, MPI_INT, rbuf, rcounts, rdispls,
                                        MPI_INT, comm, MPI_INFO_NULL, &req));
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < outdeg; ++i)
      for (int k = 0; k < maxn; ++k) sbuf[maxn * i + k] = value(me, i, k) + round * 7;
    for (int i = 0; i < maxn * indeg; ++i) rbuf[i] = kSentinel;
    CHECK_MPI(MPI_Start(&req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int i = 0; i < indeg; ++i)
      for (int k = 0; k < maxn; ++k) {
        int want = kSentinel;
        if (src[i] != MPI_PROC_NULL && k < rcounts[i])
          want = value(src[i], sender_index(comm, src, i), k) + round * 7;
        CHECK(rbuf[maxn * i + k] == want,
              "%s alltoallv_init start %d: block %d item %d is %d, want %d", what, round, i, k,
              rbuf[maxn * i + k], want);
      }
  }
  CHECK_MPI(MPI_Request_free(&req));

  /* alltoallw: even destinations get ITEMS ints, odd ones ITEMS elements of a vector type
   * (every other int); the receiver unpacks into plain ints either way. */
  MPI_Datatype strided;
  CHECK_MPI(MPI_Type_vector(1, 1, 2, MPI_INT, &strided));
  MPI_Datatype strided2;
  CHECK_MPI(MPI_Type_create_resized(strided, 0, 2 * sizeof(int), &strided2));
  CHECK_MPI(MPI_Type_commit(&strided2));
  CHECK_MPI(MPI_Type_free(&strided));
  int* wsbuf = malloc(sizeof(int) * (size_t)(2 * maxn * outdeg + 1));
  MPI_Aint* wsd = malloc(sizeof(MPI_Aint) * (size_t)(outdeg + 1));
  MPI_Aint* wrd = malloc(sizeof(MPI_Aint) * (size_t)(indeg + 1));
  MPI_Datatype* wst = malloc(sizeof(MPI_Datatype) * (size_t)(outdeg + 1));
  MPI_Datatype* wrt = malloc(sizeof(MPI_Datatype) * (size_t)(indeg + 1));
  for (int i = 0; i < outdeg; ++i) {
    wsd[i] = (MPI_Aint)sizeof(int) * 2 * maxn * i;
    wst[i] = i % 2 ? strided2 : MPI_INT;
    for (int k = 0; k < maxn; ++k) {
      if (i % 2) {
        wsbuf[2 * maxn * i + 2 * k] = value(me, i, k);
        wsbuf[2 * maxn * i + 2 * k + 1] = -1;
      } else {
        wsbuf[2 * maxn * i + k] = value(me, i, k);
      }
    }
  }
  for (int i = 0; i < indeg; ++i) {
    wrd[i] = (MPI_Aint)sizeof(int) * maxn * i;
    wrt[i] = MPI_INT;
  }
  for (int i = 0; i < maxn * indeg; ++i) rbuf[i] = kSentinel;
  CHECK_MPI(MPI_Ineighbor_alltoallw(wsbuf, scounts, wsd, wst, rbuf, rcounts, wrd, wrt, comm, &req));
  /* The type may be freed while the operation is pending. */
  CHECK_MPI(MPI_Type_free(&strided2));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  for (int i = 0; i < indeg; ++i)
    for (int k = 0; k < maxn; ++k) {
      int want = kSentinel;
      if (src[i] != MPI_PROC_NULL && k < rcounts[i])
        want = value(src[i], sender_index(comm, src, i), k);
      CHECK(rbuf[maxn * i + k] == want, "%s alltoallw: block %d item %d is %d, want %d", what, i, k,
            rbuf[maxn * i + k], want);
    }
  free(wsbuf);
  free(wsd);
  free(wrd);
  free(wst);
  free(wrt);
  free(scounts);
  free(sdispls);
  free(rcounts);
  free(rdispls);
  free(sbuf);
  free(rbuf);
  free(src);
  free(dst);
#undef ITEMS
}

static void check_all(MPI_Comm comm, const char* what) {
  for (int form = 0; form < 3; ++form) check_alltoall(comm, what, 3, form);
  check_alltoall(comm, what, 0, 0);
  check_allgather(comm, what);
  check_v_w(comm, what);
}

static void check_errors(MPI_Comm cart) {
  int x = 0, y[64];
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN);
  int cls = 0;
  int rc = MPI_Neighbor_allgather(&x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_TOPOLOGY, "no topology: class %d", cls);
  rc = MPI_Neighbor_alltoall(MPI_IN_PLACE, 1, MPI_INT, y, 1, MPI_INT, cart);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_BUFFER, "MPI_IN_PLACE: class %d", cls);
  rc = MPI_Neighbor_alltoall(&x, -1, MPI_INT, y, 1, MPI_INT, cart);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_COUNT, "negative count: class %d", cls);
  MPI_Request req;
  rc = MPI_Ineighbor_allgather(&x, 1, MPI_DATATYPE_NULL, y, 1, MPI_INT, cart, &req);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_TYPE, "null type: class %d", cls);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);

  /* Cartesian: periodic over every dimension MPI_Dims_create gives, then non-periodic. */
  int dims[2] = {0, 0}, periods[2] = {1, 1};
  MPI_Dims_create(size_, 2, dims);
  MPI_Comm cart;
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
  check_all(cart, "cart periodic");
  check_errors(cart);
  MPI_Comm_free(&cart);
  periods[0] = periods[1] = 0;
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
  check_all(cart, "cart open");
  MPI_Comm_free(&cart);
  /* Dimensions of 1 and 2 processes, periodic: both neighbours of a dimension are one rank
   * (or this one). */
  if (size_ % 2 == 0) {
    int d3[3] = {2, 1, size_ / 2}, p3[3] = {1, 1, 1};
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 3, d3, p3, 0, &cart));
    check_all(cart, "cart 2x1xn periodic");
    MPI_Comm_free(&cart);
  }
  int one = 1, per = 1;
  CHECK_MPI(MPI_Cart_create(MPI_COMM_SELF, 1, &one, &per, 0, &cart));
  check_all(cart, "cart self");
  MPI_Comm_free(&cart);

  /* Distributed graph with repeated edges. */
  g_graph_kind = MPI_DIST_GRAPH;
  int sources[3] = {(rank_ - 1 + size_) % size_, (rank_ - 1 + size_) % size_,
                    ((rank_ - 3) % size_ + size_) % size_};
  int dests[3] = {(rank_ + 1) % size_, (rank_ + 1) % size_, (rank_ + 3) % size_};
  /* r receives from r-1 twice, from r-3 once; but the receive order must be the order in
   * which each sender lists r among its destinations: r-1 lists r at 0 and 1. */
  MPI_Comm dg;
  CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 3, sources, MPI_UNWEIGHTED, 3, dests,
                                           MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg));
  check_all(dg, "dist graph");
  MPI_Comm_free(&dg);

  /* Graph ring (MPI_Graph_create). */
  if (size_ >= 3) {
    g_graph_kind = MPI_GRAPH;
    int* index = malloc(sizeof(int) * (size_t)size_);
    int* edges = malloc(sizeof(int) * (size_t)(2 * size_));
    for (int r = 0; r < size_; ++r) {
      index[r] = 2 * (r + 1);
      edges[2 * r] = (r - 1 + size_) % size_;
      edges[2 * r + 1] = (r + 1) % size_;
    }
    MPI_Comm g;
    CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, size_, index, edges, 0, &g));
    check_all(g, "graph ring");
    MPI_Comm_free(&g);
    free(index);
    free(edges);
  }

  test_pass("coll_neighbor");
  MPI_Finalize();
  return 0;
}
