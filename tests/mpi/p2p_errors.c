/* Errors under MPI_ERRORS_RETURN and user error handlers: the right class, and an
 * error string that names the function. */
#include <string.h>

#include "check.h"

static int handler_calls = 0, handler_class = -1;
static void on_error(MPI_Comm* comm, int* code, ...) {
  (void)comm;
  ++handler_calls;
  MPI_Error_class(*code, &handler_class);
}

static void expect(int rc, int cls, const char* func) {
  int got = -1;
  CHECK(rc != MPI_SUCCESS, "%s succeeded but should fail with class %d", func, cls);
  MPI_Error_class(rc, &got);
  CHECK(got == cls, "%s: class %d, expected %d", func, got, cls);
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  CHECK(len > 0 && strstr(msg, func) != NULL, "error string '%s' does not name %s", msg, func);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int v[4] = {0};
  expect(MPI_Send(v, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK, "MPI_Send");
  expect(MPI_Send(v, 1, MPI_INT, -5, 0, MPI_COMM_WORLD), MPI_ERR_RANK, "MPI_Send");
  expect(MPI_Send(v, 1, MPI_INT, 0, -1, MPI_COMM_WORLD), MPI_ERR_TAG, "MPI_Send");
  expect(MPI_Send(v, -1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_COUNT, "MPI_Send");
  expect(MPI_Send(v, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "MPI_Send");
  expect(MPI_Send(v, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM, "MPI_Send");
  expect(MPI_Recv(v, 1, MPI_INT, 0, MPI_ANY_TAG - 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
         MPI_ERR_TAG, "MPI_Recv");
  MPI_Request bad = (MPI_Request)12345;
  expect(MPI_Wait(&bad, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, "MPI_Wait");
  MPI_Datatype uncommitted;
  CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &uncommitted));
  expect(MPI_Send(v, 1, uncommitted, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "MPI_Send");
  MPI_Type_free(&uncommitted);
  /* Truncation: eager and rendezvous. */
  const int big = 100000;
  int* b = calloc(big, sizeof(int));
  for (int len = 4; len <= big; len += big - 4) {
    MPI_Request r;
    CHECK_MPI(MPI_Isend(b, len, MPI_INT, rank, 5, MPI_COMM_WORLD, &r));
    MPI_Status st;
    int rc = MPI_Recv(b, len / 2, MPI_INT, rank, 5, MPI_COMM_WORLD, &st);
    expect(rc, MPI_ERR_TRUNCATE, "MPI_Recv");
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  }
  if (size >= 2) {
    /* Truncation across the network, then the connection still works. */
    const int peer = rank ^ 1;
    if (peer < size) {
      MPI_Request r;
      CHECK_MPI(MPI_Isend(b, big, MPI_INT, peer, 6, MPI_COMM_WORLD, &r));
      expect(MPI_Recv(b, 10, MPI_INT, peer, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_TRUNCATE,
             "MPI_Recv");
      CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
      int x = rank, y = -1;
      CHECK_MPI(MPI_Sendrecv(&x, 1, MPI_INT, peer, 7, &y, 1, MPI_INT, peer, 7, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE));
      CHECK(y == peer, "after truncation y=%d", y);
    }
  }
  /* A user error handler sees the code. */
  MPI_Errhandler eh;
  CHECK_MPI(MPI_Comm_create_errhandler(on_error, &eh));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh));
  int rc = MPI_Send(v, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD);
  CHECK(handler_calls == 1 && handler_class == MPI_ERR_RANK, "user handler calls=%d class=%d",
        handler_calls, handler_class);
  CHECK(rc != MPI_SUCCESS, "user handler: code returned");
  CHECK_MPI(MPI_Errhandler_free(&eh));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  free(b);
  test_pass("p2p_errors");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
