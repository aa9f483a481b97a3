/* MPI_Isendrecv and MPI_Isendrecv_replace (MPI-4.0): a ring exchange, MPI_PROC_NULL
 * peers, a wildcard receive, a derived datatype in place, several outstanding at once,
 * and overlap with other traffic on the same communicator (matching by tag and order). */
#include <string.h>

#include "check.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;

  /* Ring: send my rank right, receive left's. */
  {
    int out[4] = {rank, rank * 10, rank * 100, -rank}, in[4] = {-1, -1, -1, -1};
    MPI_Request req;
    MPI_Status st;
    CHECK_MPI(
        MPI_Isendrecv(out, 4, MPI_INT, right, 11, in, 4, MPI_INT, left, 11, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Wait(&req, &st));
    CHECK(req == MPI_REQUEST_NULL, "request not freed");
    CHECK(in[0] == left && in[1] == left * 10 && in[2] == left * 100 && in[3] == -left,
          "ring got %d %d %d %d from %d", in[0], in[1], in[2], in[3], left);
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 11, "status %d/%d", st.MPI_SOURCE, st.MPI_TAG);
    int n = -1;
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == 4, "count %d", n);
  }

  /* MPI_PROC_NULL on both sides: completes at once, status of a PROC_NULL receive. */
  {
    int out = 5, in = 77;
    MPI_Request req;
    MPI_Status st;
    CHECK_MPI(MPI_Isendrecv(&out, 1, MPI_INT, MPI_PROC_NULL, 1, &in, 1, MPI_INT, MPI_PROC_NULL, 1,
                            MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Wait(&req, &st));
    CHECK(in == 77, "PROC_NULL receive wrote %d", in);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG, "status %d/%d",
          st.MPI_SOURCE, st.MPI_TAG);
    int n = -1;
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == 0, "count %d", n);
    /* Send to PROC_NULL, receive a real message; replace form too. */
    int v = rank;
    CHECK_MPI(
        MPI_Isendrecv_replace(&v, 1, MPI_INT, right, 3, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(v == rank, "replace from PROC_NULL changed the buffer to %d", v);
    CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(v == left, "plain receive got %d", v);
  }

  /* Wildcard receive: any source, any tag; the status tells the sender and the tag. */
  {
    double out = rank + 0.5, in = -1;
    MPI_Request req;
    MPI_Status st;
    CHECK_MPI(MPI_Isendrecv(&out, 1, MPI_DOUBLE, right, 100 + rank, &in, 1, MPI_DOUBLE,
                            MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req));
    int flag = 0;
    while (!flag) CHECK_MPI(MPI_Test(&req, &flag, &st));
    CHECK(in == left + 0.5, "wildcard got %g", in);
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 100 + left, "status %d/%d", st.MPI_SOURCE,
          st.MPI_TAG);
  }

  /* In place with a strided type: every other int replaced by left's, the gaps kept. */
  {
    MPI_Datatype vec;
    MPI_Type_vector(3, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int buf[6];
    for (int i = 0; i < 6; ++i) buf[i] = rank * 1000 + i;
    MPI_Request req;
    MPI_Status st;
    CHECK_MPI(MPI_Isendrecv_replace(buf, 1, vec, right, 4, left, 4, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Wait(&req, &st));
    for (int i = 0; i < 6; ++i) {
      const int want = (i % 2 == 0) ? left * 1000 + i : rank * 1000 + i;
      CHECK(buf[i] == want, "buf[%d] = %d, want %d", i, buf[i], want);
    }
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 4, "status %d/%d", st.MPI_SOURCE, st.MPI_TAG);
    MPI_Type_free(&vec);
  }

  /* Overlap: a receive for tag 9 posted first, then many send-receives on tag 8 with
   * Waitall, then the tag-9 message: nothing crosses. Large messages (rendezvous) too. */
  {
    enum { N = 6, BIG = 100000 };
    int other = -1;
    MPI_Request pre;
    CHECK_MPI(MPI_Irecv(&other, 1, MPI_INT, left, 9, MPI_COMM_WORLD, &pre));
    static int outs[N][BIG], ins[N][BIG];
    MPI_Request reqs[N];
    for (int k = 0; k < N; ++k) {
      for (int i = 0; i < BIG; i += 997) outs[k][i] = rank * 100 + k + i;
      CHECK_MPI(MPI_Isendrecv(outs[k], BIG, MPI_INT, right, 8, ins[k], BIG, MPI_INT, left, 8,
                              MPI_COMM_WORLD, &reqs[k]));
    }
    const int nine = 900 + rank;
    CHECK_MPI(MPI_Send(&nine, 1, MPI_INT, right, 9, MPI_COMM_WORLD));
    MPI_Status sts[N];
    CHECK_MPI(MPI_Waitall(N, reqs, sts));
    for (int k = 0; k < N; ++k) {
      for (int i = 0; i < BIG; i += 997)
        CHECK(ins[k][i] == left * 100 + k + i, "message %d element %d: %d", k, i, ins[k][i]);
      CHECK(sts[k].MPI_SOURCE == left && sts[k].MPI_TAG == 8, "status %d", k);
    }
    CHECK_MPI(MPI_Wait(&pre, MPI_STATUS_IGNORE));
    CHECK(other == 900 + left, "tag-9 message %d", other);
  }

  /* Errors: MPI_ERRORS_RETURN, a bad rank, named in the message. */
  {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int x = 0;
    MPI_Request req = MPI_REQUEST_NULL;
    const int rc =
        MPI_Isendrecv(&x, 1, MPI_INT, size, 0, &x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &req);
    int cls = 0;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RANK, "class %d", cls);
    char msg[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(rc, msg, &len);
    CHECK(strstr(msg, "MPI_Isendrecv") != NULL, "message '%s'", msg);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  }

  MPI_Barrier(MPI_COMM_WORLD);
  test_pass("mpi4_isendrecv");
  MPI_Finalize();
  return 0;
}
