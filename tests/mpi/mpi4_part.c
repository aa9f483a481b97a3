/* Partitioned communication (MPI-4.0 chapter 4): rank 0 sends to rank 1 (and 2 to 3 ...)
 * with Psend_init/Precv_init, partitions marked ready out of order (Pready, Pready_range,
 * Pready_list), the receiver polling MPI_Parrived, the requests restarted several times,
 * sender and receiver partitioning the buffer differently; an MPI_ANY_TAG receive
 * posted meanwhile never matches a partitioned message. Then three pairs with the same
 * tag, started in another order than initialized: they match in initialization order. */
#include "check.h"

enum { SPART = 8, RPART = 4, PER = 50, ITER = 4 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size % 2 == 0, "needs an even number of ranks");
  const int sender = rank % 2 == 0, peer = sender ? rank + 1 : rank - 1;
  static double buf[SPART * PER];
  MPI_Request req;
  if (sender)
    CHECK_MPI(
        MPI_Psend_init(buf, SPART, PER, MPI_DOUBLE, peer, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
  else
    CHECK_MPI(MPI_Precv_init(buf, RPART, (MPI_Count)PER * SPART / RPART, MPI_DOUBLE, peer, 5,
                             MPI_COMM_WORLD, MPI_INFO_NULL, &req));
  /* Inactive receive: every partition counts as arrived. */
  if (!sender) {
    int flag = 0;
    CHECK_MPI(MPI_Parrived(req, 0, &flag));
    CHECK(flag == 1, "Parrived on an inactive request gave 0");
  }
  /* An ordinary wildcard receive, outstanding across all iterations. */
  int plain = -1;
  MPI_Request plainReq = MPI_REQUEST_NULL;
  if (!sender)
    CHECK_MPI(MPI_Irecv(&plain, 1, MPI_INT, peer, MPI_ANY_TAG, MPI_COMM_WORLD, &plainReq));

  for (int it = 0; it < ITER; ++it) {
    CHECK_MPI(MPI_Start(&req));
    if (sender) {
      for (int i = 0; i < SPART * PER; ++i) buf[i] = it * 10000 + i + 0.25;
      /* Out of order: the last partition, a list, then a range, then partition 0. */
      CHECK_MPI(MPI_Pready(SPART - 1, req));
      const int list[2] = {4, 2};
      CHECK_MPI(MPI_Pready_list(2, list, req));
      CHECK_MPI(MPI_Pready_range(5, 6, req));
      CHECK_MPI(MPI_Pready_range(1, 1, req));
      CHECK_MPI(MPI_Pready(3, req));
      CHECK_MPI(MPI_Pready(0, req));
      CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
      CHECK(req != MPI_REQUEST_NULL, "persistent request was freed by MPI_Wait");
    } else {
      /* Poll each partition until it has arrived, then check its data. */
      for (int p = RPART - 1; p >= 0; --p) {
        int flag = 0;
        while (!flag) CHECK_MPI(MPI_Parrived(req, p, &flag));
        const int per = PER * SPART / RPART;
        for (int i = p * per; i < (p + 1) * per; ++i)
          CHECK(buf[i] == it * 10000 + i + 0.25, "iteration %d element %d: %g", it, i, buf[i]);
      }
      MPI_Status st;
      CHECK_MPI(MPI_Wait(&req, &st));
      CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == 5, "status %d/%d", st.MPI_SOURCE, st.MPI_TAG);
      int flag = 0;
      CHECK_MPI(MPI_Test(&plainReq, &flag, MPI_STATUS_IGNORE));
      CHECK(!flag, "the MPI_ANY_TAG receive matched a partitioned message");
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  if (sender) {
    const int v = 42;
    CHECK_MPI(MPI_Send(&v, 1, MPI_INT, peer, 6, MPI_COMM_WORLD));
  } else {
    CHECK_MPI(MPI_Wait(&plainReq, MPI_STATUS_IGNORE));
    CHECK(plain == 42, "plain message %d", plain);
  }
  /* Errors: Pready on a receive, out-of-range partition (MPI_ERRORS_RETURN). */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK_MPI(MPI_Start(&req));
  if (sender) {
    int cls = 0;
    MPI_Error_class(MPI_Pready(SPART, req), &cls);
    CHECK(cls == MPI_ERR_ARG, "out-of-range partition: class %d", cls);
    CHECK_MPI(MPI_Pready_range(0, SPART - 1, req));
    MPI_Error_class(MPI_Pready(0, req), &cls);
    CHECK(cls == MPI_ERR_ARG, "partition ready twice: class %d", cls);
  } else {
    int cls = 0;
    MPI_Error_class(MPI_Pready(0, req), &cls);
    CHECK(cls == MPI_ERR_REQUEST, "Pready on a receive: class %d", cls);
  }
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Request_free(&req));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

  /* Matching follows initialization order. */
  {
    static int bufs[3][64];
    MPI_Request reqs[3];
    for (int k = 0; k < 3; ++k) {
      if (sender)
        CHECK_MPI(MPI_Psend_init(bufs[k], 2, 32, MPI_INT, peer, 9, MPI_COMM_WORLD, MPI_INFO_NULL,
                                 &reqs[k]));
      else
        CHECK_MPI(MPI_Precv_init(bufs[k], 4, 16, MPI_INT, peer, 9, MPI_COMM_WORLD, MPI_INFO_NULL,
                                 &reqs[k]));
    }
    if (sender) {
      const int order[3] = {2, 0, 1};
      for (int j = 0; j < 3; ++j) {
        const int k = order[j];
        CHECK_MPI(MPI_Start(&reqs[k]));
        for (int i = 0; i < 64; ++i) bufs[k][i] = k * 100 + i;
        CHECK_MPI(MPI_Pready_range(0, 1, reqs[k]));
      }
    } else {
      CHECK_MPI(MPI_Startall(3, reqs));
    }
    MPI_Status sts[3];
    CHECK_MPI(MPI_Waitall(3, reqs, sts));
    if (!sender)
      for (int k = 0; k < 3; ++k) {
        CHECK(sts[k].MPI_TAG == 9 && sts[k].MPI_SOURCE == peer, "status %d", k);
        for (int i = 0; i < 64; ++i)
          CHECK(bufs[k][i] == k * 100 + i, "request %d element %d: %d", k, i, bufs[k][i]);
      }
    for (int k = 0; k < 3; ++k) CHECK_MPI(MPI_Request_free(&reqs[k]));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  test_pass("mpi4_part");
  MPI_Finalize();
  return 0;
}
