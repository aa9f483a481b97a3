/* Send modes: synchronous (completes only after the match), buffered (attach/detach,
 * MPI_ERR_BUFFER when the buffer is too small), ready, and persistent requests. */
#include <string.h>

#include "check.h"

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int peer = rank ^ 1;
  if (peer < size) {
    /* Synchronous: a small Issend cannot complete before the receive is posted. */
    int v = rank + 100, w = -1, go = 0;
    if (rank % 2 == 0) {
      MPI_Request r;
      CHECK_MPI(MPI_Issend(&v, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, &r));
      int flag = 0;
      for (int i = 0; i < 200; ++i) {
        CHECK_MPI(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "Issend completed before the receive was posted");
      }
      CHECK_MPI(MPI_Send(&go, 1, MPI_INT, peer, 2, MPI_COMM_WORLD));
      CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
      CHECK_MPI(MPI_Recv(&w, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK(w == peer + 100, "ssend reply %d", w);
    } else {
      CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK_MPI(MPI_Recv(&w, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK(w == peer + 100, "ssend value %d", w);
      CHECK_MPI(MPI_Ssend(&v, 1, MPI_INT, peer, 3, MPI_COMM_WORLD));
    }

    /* Buffered sends: many messages fit in the attached buffer, detach waits. */
    const int n = 20, len = 5000;
    int bufsize = n * (len * (int)sizeof(double) + MPI_BSEND_OVERHEAD);
    void* bbuf = malloc(bufsize);
    CHECK_MPI(MPI_Buffer_attach(bbuf, bufsize));
    double* d = malloc(sizeof(double) * len);
    for (int m = 0; m < n; ++m) {
      for (int i = 0; i < len; ++i) d[i] = rank * 1e6 + m * 1e3 + i;
      CHECK_MPI(MPI_Bsend(d, len, MPI_DOUBLE, peer, 10 + m, MPI_COMM_WORLD));
    }
    for (int m = 0; m < n; ++m) {
      CHECK_MPI(MPI_Recv(d, len, MPI_DOUBLE, peer, 10 + m, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      for (int i = 0; i < len; ++i)
        CHECK(d[i] == peer * 1e6 + m * 1e3 + i, "bsend data m=%d i=%d", m, i);
    }
    void* detached;
    int dsize;
    CHECK_MPI(MPI_Buffer_detach(&detached, &dsize));
    CHECK(detached == bbuf && dsize == bufsize, "detach returned %p/%d", detached, dsize);
    /* Too small a buffer is MPI_ERR_BUFFER under MPI_ERRORS_RETURN. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_MPI(MPI_Buffer_attach(bbuf, 100));
    int rc = MPI_Bsend(d, len, MPI_DOUBLE, peer, 99, MPI_COMM_WORLD);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_BUFFER, "bsend into a small buffer gave class %d", cls);
    CHECK_MPI(MPI_Buffer_detach(&detached, &dsize));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    free(bbuf);

    /* Ready send after the receiver says it has posted. */
    if (rank % 2 == 0) {
      CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, peer, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK_MPI(MPI_Rsend(d, len, MPI_DOUBLE, peer, 21, MPI_COMM_WORLD));
    } else {
      MPI_Request r;
      CHECK_MPI(MPI_Irecv(d, len, MPI_DOUBLE, peer, 21, MPI_COMM_WORLD, &r));
      CHECK_MPI(MPI_Send(&go, 1, MPI_INT, peer, 20, MPI_COMM_WORLD));
      CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    }

    /* Persistent requests restarted several times. */
    int sv[3], rv[3];
    MPI_Request reqs[2];
    CHECK_MPI(MPI_Send_init(sv, 3, MPI_INT, peer, 30, MPI_COMM_WORLD, &reqs[0]));
    CHECK_MPI(MPI_Recv_init(rv, 3, MPI_INT, peer, 30, MPI_COMM_WORLD, &reqs[1]));
    for (int it = 0; it < 10; ++it) {
      sv[0] = it;
      sv[1] = rank;
      sv[2] = it * rank;
      CHECK_MPI(MPI_Startall(2, reqs));
      MPI_Status sts[2];
      CHECK_MPI(MPI_Waitall(2, reqs, sts));
      CHECK(reqs[0] != MPI_REQUEST_NULL && reqs[1] != MPI_REQUEST_NULL, "persistent handles kept");
      CHECK(rv[0] == it && rv[1] == peer && rv[2] == it * peer, "persistent iteration %d", it);
      CHECK(sts[1].MPI_SOURCE == peer && sts[1].MPI_TAG == 30, "persistent status");
    }
    /* Waiting on an inactive persistent request returns at once with an empty status. */
    MPI_Status st;
    CHECK_MPI(MPI_Wait(&reqs[1], &st));
    CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG, "inactive status");
    CHECK_MPI(MPI_Request_free(&reqs[0]));
    CHECK_MPI(MPI_Request_free(&reqs[1]));
    CHECK(reqs[0] == MPI_REQUEST_NULL, "request_free resets handle");
    free(d);
  }
  test_pass("p2p_modes");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
