/* Argument checks of the collectives and ops: with MPI_ERRORS_RETURN every bad call
 * returns a code of the right class whose message names the function; the checks run
 * before any communication (every rank makes the same bad call, nobody hangs), and the
 * communicator still works afterwards. */
#include "coll_util.h"

static void expect_class(int err, int cls, const char* func, const char* what) {
  int got = -1;
  CHECK(err != MPI_SUCCESS, "%s: expected an error", what);
  CHECK_MPI(MPI_Error_class(err, &got));
  CHECK(got == cls, "%s: class %d, expected %d", what, got, cls);
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  CHECK_MPI(MPI_Error_string(err, msg, &len));
  CHECK(strstr(msg, func) != NULL, "%s: message '%s' does not name %s", what, msg, func);
}

static void dummy_op(void* a, void* b, int* len, MPI_Datatype* t) {
  (void)a;
  (void)b;
  (void)len;
  (void)t;
}

int main(int argc, char** argv) {
  coll_init(&argc, &argv);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int a[8] = {0}, b[8] = {0};
  MPI_Comm W = MPI_COMM_WORLD;

  expect_class(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM, "MPI_Barrier", "barrier null comm");
  expect_class(MPI_Bcast(a, 1, MPI_INT, g_size, W), MPI_ERR_ROOT, "MPI_Bcast", "bcast root=size");
  expect_class(MPI_Bcast(a, 1, MPI_INT, -1, W), MPI_ERR_ROOT, "MPI_Bcast", "bcast root=-1");
  expect_class(MPI_Bcast(a, -1, MPI_INT, 0, W), MPI_ERR_COUNT, "MPI_Bcast", "bcast count -1");
  expect_class(MPI_Bcast(a, 1, MPI_DATATYPE_NULL, 0, W), MPI_ERR_TYPE, "MPI_Bcast",
               "bcast null type");
  expect_class(MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, 0, W), MPI_ERR_BUFFER, "MPI_Bcast",
               "bcast in place");
  expect_class(MPI_Bcast(NULL, 3, MPI_INT, 0, W), MPI_ERR_BUFFER, "MPI_Bcast", "bcast NULL buffer");
  MPI_Datatype unc;
  CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &unc));
  expect_class(MPI_Bcast(a, 1, unc, 0, W), MPI_ERR_TYPE, "MPI_Bcast", "bcast uncommitted type");
  CHECK_MPI(MPI_Type_free(&unc));

  expect_class(MPI_Allreduce(a, b, 1, MPI_2INT, MPI_SUM, W), MPI_ERR_OP, "MPI_Allreduce",
               "SUM on MPI_2INT");
  expect_class(MPI_Allreduce(a, b, 1, MPI_DOUBLE, MPI_BAND, W), MPI_ERR_OP, "MPI_Allreduce",
               "BAND on MPI_DOUBLE");
  expect_class(MPI_Allreduce(a, b, 1, MPI_INT, MPI_MINLOC, W), MPI_ERR_OP, "MPI_Allreduce",
               "MINLOC on MPI_INT");
  expect_class(MPI_Allreduce(a, b, 1, MPI_INT, MPI_OP_NULL, W), MPI_ERR_OP, "MPI_Allreduce",
               "MPI_OP_NULL");
  expect_class(MPI_Allreduce(a, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, W), MPI_ERR_BUFFER,
               "MPI_Allreduce", "recvbuf in place");
  expect_class(MPI_Allreduce(a, a, 2, MPI_INT, MPI_SUM, W), MPI_ERR_BUFFER, "MPI_Allreduce",
               "aliased buffers");
  expect_class(MPI_Reduce(a, b, 1, MPI_INT, MPI_SUM, g_size + 3, W), MPI_ERR_ROOT, "MPI_Reduce",
               "reduce root");
  expect_class(MPI_Reduce(a, b, -2, MPI_INT, MPI_SUM, 0, W), MPI_ERR_COUNT, "MPI_Reduce",
               "reduce count");
  expect_class(MPI_Scan(a, b, 1, MPI_C_BOOL, MPI_SUM, W), MPI_ERR_OP, "MPI_Scan", "SUM on bool");
  expect_class(MPI_Exscan(a, b, 1, MPI_BYTE, MPI_MAX, W), MPI_ERR_OP, "MPI_Exscan", "MAX on byte");
  expect_class(MPI_Reduce_scatter_block(a, b, 1, MPI_FLOAT, MPI_LXOR, W), MPI_ERR_OP,
               "MPI_Reduce_scatter_block", "LXOR on float");
  expect_class(MPI_Gather(a, 1, MPI_INT, b, 1, MPI_INT, g_size, W), MPI_ERR_ROOT, "MPI_Gather",
               "gather root");
  expect_class(MPI_Scatter(a, 1, MPI_INT, b, 1, MPI_INT, -4, W), MPI_ERR_ROOT, "MPI_Scatter",
               "scatter root");
  expect_class(MPI_Allgather(a, -1, MPI_INT, b, 1, MPI_INT, W), MPI_ERR_COUNT, "MPI_Allgather",
               "allgather count");
  expect_class(MPI_Alltoall(a, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, W), MPI_ERR_BUFFER,
               "MPI_Alltoall", "alltoall recvbuf in place");
  int* counts = ialloc(g_size, 1);
  int* displs = ialloc(g_size, 0);
  counts[g_size - 1] = -1;
  expect_class(MPI_Allgatherv(a, 1, MPI_INT, b, counts, displs, MPI_INT, W), MPI_ERR_COUNT,
               "MPI_Allgatherv", "allgatherv negative count");
  expect_class(MPI_Alltoallv(a, counts, displs, MPI_INT, b, counts, displs, MPI_INT, W),
               MPI_ERR_COUNT, "MPI_Alltoallv", "alltoallv negative count");

  /* Ops. */
  expect_class(MPI_Reduce_local(a, b, 1, MPI_2INT, MPI_PROD), MPI_ERR_OP, "MPI_Reduce_local",
               "reduce_local PROD on 2INT");
  expect_class(MPI_Reduce_local(a, b, -1, MPI_INT, MPI_SUM), MPI_ERR_COUNT, "MPI_Reduce_local",
               "reduce_local count");
  MPI_Op sum = MPI_SUM;
  expect_class(MPI_Op_free(&sum), MPI_ERR_OP, "MPI_Op_free", "free predefined op");
  MPI_Op null_op = MPI_OP_NULL;
  expect_class(MPI_Op_free(&null_op), MPI_ERR_OP, "MPI_Op_free", "free MPI_OP_NULL");
  int commute;
  expect_class(MPI_Op_commutative(MPI_OP_NULL, &commute), MPI_ERR_OP, "MPI_Op_commutative",
               "commutative of MPI_OP_NULL");
  expect_class(MPI_Op_create(NULL, 1, &null_op), MPI_ERR_ARG, "MPI_Op_create", "NULL function");
  MPI_Op user;
  CHECK_MPI(MPI_Op_create(dummy_op, 1, &user));
  MPI_Op stale = user;
  CHECK_MPI(MPI_Op_free(&user));
  expect_class(MPI_Allreduce(a, b, 1, MPI_INT, stale, W), MPI_ERR_OP, "MPI_Allreduce",
               "freed user op");

  /* Everything above failed before communicating: the communicator still works. */
  int v = g_rank, s = -1;
  CHECK_MPI(MPI_Allreduce(&v, &s, 1, MPI_INT, MPI_SUM, W));
  CHECK(s == g_size * (g_size - 1) / 2, "allreduce after errors: %d", s);
  CHECK_MPI(MPI_Barrier(W));
  free(counts);
  free(displs);
  test_pass("coll_errors");
  MPI_Finalize();
  return 0;
}
