/* Process topologies: Dims_create, Cart_create/get/rank/coords/shift/sub/map, Topo_test,
 * Graph_create and its queries, Dist_graph_create_adjacent and Dist_graph_create, with
 * messages exchanged along the computed neighbours. */
#include "check.h"

static void exchange_check(MPI_Comm comm, int src, int dst, const char* what) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  int out = rank, in = -5;
  CHECK_MPI(
      MPI_Sendrecv(&out, 1, MPI_INT, dst, 3, &in, 1, MPI_INT, src, 3, comm, MPI_STATUS_IGNORE));
  CHECK(src == MPI_PROC_NULL ? in == -5 : in == src, "%s: got %d from %d", what, in, src);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  /* The weight sentinels: distinct, and passed below straight for array parameters (gcc 12
   * warned about that while they were small integers cast to pointers). */
  CHECK(MPI_UNWEIGHTED != NULL && MPI_WEIGHTS_EMPTY != NULL && MPI_UNWEIGHTED != MPI_WEIGHTS_EMPTY,
        "weight sentinels");

  /* Dims_create. */
  int d2[2] = {0, 0};
  CHECK_MPI(MPI_Dims_create(12, 2, d2));
  CHECK(d2[0] == 4 && d2[1] == 3, "Dims_create(12, 2) = %d x %d", d2[0], d2[1]);
  int d3[3] = {0, 2, 0};
  CHECK_MPI(MPI_Dims_create(12, 3, d3));
  CHECK(d3[0] == 3 && d3[1] == 2 && d3[2] == 2, "Dims_create(12, {0,2,0})");
  int topo;
  CHECK_MPI(MPI_Topo_test(MPI_COMM_WORLD, &topo));
  CHECK(topo == MPI_UNDEFINED, "world has no topology");

  /* A 2-D grid over all processes, periodic in dimension 0 only. */
  int dims[2] = {0, 0}, periods[2] = {1, 0};
  CHECK_MPI(MPI_Dims_create(size, 2, dims));
  MPI_Comm cart;
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart));
  CHECK_MPI(MPI_Topo_test(cart, &topo));
  CHECK(topo == MPI_CART, "Topo_test = %d", topo);
  int nd, gd[2], gp[2], gc[2], cr;
  CHECK_MPI(MPI_Cartdim_get(cart, &nd));
  CHECK(nd == 2, "Cartdim_get");
  CHECK_MPI(MPI_Comm_rank(cart, &cr));
  CHECK(cr == rank, "reorder is ignored: rank kept");
  CHECK_MPI(MPI_Cart_get(cart, 2, gd, gp, gc));
  CHECK(gd[0] == dims[0] && gd[1] == dims[1] && gp[0] == 1 && gp[1] == 0, "Cart_get");
  CHECK(gc[0] == rank / dims[1] && gc[1] == rank % dims[1], "row-major coords (%d,%d)", gc[0],
        gc[1]);
  int co[2], r;
  CHECK_MPI(MPI_Cart_coords(cart, rank, 2, co));
  CHECK(co[0] == gc[0] && co[1] == gc[1], "Cart_coords");
  CHECK_MPI(MPI_Cart_rank(cart, co, &r));
  CHECK(r == rank, "Cart_rank(Cart_coords(r)) = %d", r);
  int wrapped[2] = {co[0] + dims[0], co[1]};
  CHECK_MPI(MPI_Cart_rank(cart, wrapped, &r));
  CHECK(r == rank, "periodic wrap");
  int src, dst;
  CHECK_MPI(MPI_Cart_shift(cart, 0, 1, &src, &dst));
  CHECK(src == ((co[0] + dims[0] - 1) % dims[0]) * dims[1] + co[1], "shift 0 source %d", src);
  CHECK(dst == ((co[0] + 1) % dims[0]) * dims[1] + co[1], "shift 0 dest %d", dst);
  exchange_check(cart, src, dst, "dim 0");
  CHECK_MPI(MPI_Cart_shift(cart, 1, 1, &src, &dst));
  CHECK(src == (co[1] == 0 ? MPI_PROC_NULL : rank - 1), "shift 1 source %d", src);
  CHECK(dst == (co[1] == dims[1] - 1 ? MPI_PROC_NULL : rank + 1), "shift 1 dest %d", dst);
  exchange_check(cart, src, dst, "dim 1");

  /* Rows: keep dimension 1. */
  int remain[2] = {0, 1};
  MPI_Comm row;
  CHECK_MPI(MPI_Cart_sub(cart, remain, &row));
  int rs, rr;
  CHECK_MPI(MPI_Comm_size(row, &rs));
  CHECK_MPI(MPI_Comm_rank(row, &rr));
  CHECK(rs == dims[1] && rr == co[1], "row comm size %d rank %d", rs, rr);
  CHECK_MPI(MPI_Cartdim_get(row, &nd));
  CHECK(nd == 1, "row is 1-D");
  int sum = 0;
  CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, row));
  int expect = 0;
  for (int j = 0; j < dims[1]; ++j) expect += co[0] * dims[1] + j;
  CHECK(sum == expect, "row sum %d expected %d", sum, expect);
  CHECK_MPI(MPI_Comm_free(&row));
  int none[2] = {0, 0};
  MPI_Comm point;
  CHECK_MPI(MPI_Cart_sub(cart, none, &point));
  CHECK_MPI(MPI_Comm_size(point, &rs));
  CHECK(rs == 1, "Cart_sub with no dims kept: size %d", rs);
  CHECK_MPI(MPI_Comm_free(&point));

  int nr;
  CHECK_MPI(MPI_Cart_map(MPI_COMM_WORLD, 2, dims, periods, &nr));
  CHECK(nr == rank, "Cart_map");
  int one[1] = {1}, per1[1] = {0};
  CHECK_MPI(MPI_Cart_map(MPI_COMM_WORLD, 1, one, per1, &nr));
  CHECK(nr == (rank == 0 ? 0 : MPI_UNDEFINED), "Cart_map onto one process: %d", nr);

  /* A grid smaller than the communicator: extra processes get MPI_COMM_NULL. */
  MPI_Comm small;
  int sd[1] = {size > 1 ? size - 1 : 1}, sp[1] = {1};
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, sd, sp, 0, &small));
  if (rank < sd[0]) {
    CHECK(small != MPI_COMM_NULL, "member of the smaller grid");
    CHECK_MPI(MPI_Cart_shift(small, 0, -1, &src, &dst));
    exchange_check(small, src, dst, "small ring");
    CHECK_MPI(MPI_Comm_free(&small));
  } else {
    CHECK(small == MPI_COMM_NULL, "outside the grid");
  }

  /* Dup keeps the topology. */
  MPI_Comm cdup;
  CHECK_MPI(MPI_Comm_dup(cart, &cdup));
  CHECK_MPI(MPI_Topo_test(cdup, &topo));
  CHECK(topo == MPI_CART, "dup keeps the Cartesian topology");
  CHECK_MPI(MPI_Comm_free(&cdup));
  CHECK_MPI(MPI_Comm_free(&cart));

  /* Graph: a bidirectional ring. */
  int index[64], edges[128];
  for (int i = 0; i < size; ++i) {
    index[i] = size == 1 ? 0 : (size == 2 ? i + 1 : 2 * (i + 1));
    if (size == 2) edges[i] = 1 - i;
    if (size > 2) {
      edges[2 * i] = (i + size - 1) % size;
      edges[2 * i + 1] = (i + 1) % size;
    }
  }
  MPI_Comm graph;
  CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &graph));
  CHECK_MPI(MPI_Topo_test(graph, &topo));
  CHECK(topo == MPI_GRAPH, "graph topology");
  int nn, ne, cnt, nb[2];
  CHECK_MPI(MPI_Graphdims_get(graph, &nn, &ne));
  CHECK(nn == size && ne == index[size - 1], "Graphdims_get %d %d", nn, ne);
  CHECK_MPI(MPI_Graph_neighbors_count(graph, rank, &cnt));
  CHECK(cnt == (size == 1 ? 0 : size == 2 ? 1 : 2), "neighbors count %d", cnt);
  if (size > 2) {
    CHECK_MPI(MPI_Graph_neighbors(graph, rank, 2, nb));
    CHECK(nb[0] == (rank + size - 1) % size && nb[1] == (rank + 1) % size, "graph neighbors");
    exchange_check(graph, nb[0], nb[1], "graph ring");
  }
  int gi[64], ge[128];
  CHECK_MPI(MPI_Graph_get(graph, size, index[size - 1], gi, ge));
  for (int i = 0; i < size; ++i) CHECK(gi[i] == index[i], "Graph_get index[%d]", i);
  for (int i = 0; i < index[size - 1]; ++i) CHECK(ge[i] == edges[i], "Graph_get edges[%d]", i);
  CHECK_MPI(MPI_Graph_map(MPI_COMM_WORLD, size, index, edges, &nr));
  CHECK(nr == rank, "Graph_map");
  CHECK_MPI(MPI_Comm_free(&graph));

  /* Distributed graph, adjacent form: receive from the left, send to the right. */
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  int w_in = 10 + left, w_out = 10 + rank;
  MPI_Comm dg;
  CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &left, &w_in, 1, &right, &w_out,
                                           MPI_INFO_NULL, 0, &dg));
  CHECK_MPI(MPI_Topo_test(dg, &topo));
  CHECK(topo == MPI_DIST_GRAPH, "dist graph topology");
  int indeg, outdeg, weighted;
  CHECK_MPI(MPI_Dist_graph_neighbors_count(dg, &indeg, &outdeg, &weighted));
  CHECK(indeg == 1 && outdeg == 1 && weighted, "adjacent counts");
  int s1, sw1, d1, dw1;
  CHECK_MPI(MPI_Dist_graph_neighbors(dg, 1, &s1, &sw1, 1, &d1, &dw1));
  CHECK(s1 == left && sw1 == w_in && d1 == right && dw1 == w_out, "adjacent neighbours");
  CHECK_MPI(MPI_Comm_free(&dg));

  /* General form: rank 0 describes the whole ring (i -> i+1), weights unused. */
  int srcs[64], degs[64], dsts[64];
  for (int i = 0; i < size; ++i) {
    srcs[i] = i;
    degs[i] = 1;
    dsts[i] = (i + 1) % size;
  }
  CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, rank == 0 ? size : 0, srcs, degs, dsts,
                                  MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg));
  CHECK_MPI(MPI_Dist_graph_neighbors_count(dg, &indeg, &outdeg, &weighted));
  CHECK(indeg == 1 && outdeg == 1 && !weighted, "general counts %d %d %d", indeg, outdeg, weighted);
  CHECK_MPI(MPI_Dist_graph_neighbors(dg, 1, &s1, MPI_UNWEIGHTED, 1, &d1, MPI_UNWEIGHTED));
  CHECK(s1 == left && d1 == right, "general neighbours %d %d", s1, d1);
  exchange_check(dg, s1, d1, "dist graph ring");
  CHECK_MPI(MPI_Comm_free(&dg));

  /* Errors come back with MPI_ERRORS_RETURN. */
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int bad[2] = {0, 4}, cls = -1;
  int err = MPI_Dims_create(7, 2, bad);
  MPI_Error_class(err, &cls);
  CHECK(cls == MPI_ERR_DIMS, "Dims_create(7, {0,4}) class %d", cls);
  int big[1] = {size + 1}, p0[1] = {0};
  MPI_Comm nocomm;
  err = MPI_Cart_create(MPI_COMM_WORLD, 1, big, p0, 0, &nocomm);
  MPI_Error_class(err, &cls);
  CHECK(cls == MPI_ERR_ARG, "Cart_create larger than the communicator: class %d", cls);
  err = MPI_Cartdim_get(MPI_COMM_WORLD, &nd);
  MPI_Error_class(err, &cls);
  CHECK(cls == MPI_ERR_TOPOLOGY, "Cartdim_get on world: class %d", cls);
  int lin[1] = {size}, nop[1] = {0};
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, lin, nop, 0, &cart));
  int outside[1] = {size};
  err = MPI_Cart_rank(cart, outside, &r);
  MPI_Error_class(err, &cls);
  CHECK(cls == MPI_ERR_ARG, "Cart_rank outside a non-periodic dimension: class %d", cls);
  CHECK_MPI(MPI_Comm_free(&cart));

  test_pass("cart");
  MPI_Finalize();
  return 0;
}
