/* Probe/Iprobe/Mprobe/Improbe/Mrecv and cancellation of receives. */
#include <string.h>

#include "check.h"

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int big = 200000;
  int* buf = malloc(sizeof(int) * big);
  if (rank == 1) {
    for (int i = 0; i < big; ++i) buf[i] = i;
    CHECK_MPI(MPI_Send(buf, 37, MPI_INT, 0, 3, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Send(buf, big, MPI_INT, 0, 4, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Send(buf, 5, MPI_INT, 0, 5, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Send(buf, 6, MPI_INT, 0, 6, MPI_COMM_WORLD));
  } else if (rank == 0) {
    MPI_Status st;
    /* Probe for a specific tag, then receive with the probed size. */
    CHECK_MPI(MPI_Probe(1, 4, MPI_COMM_WORLD, &st));
    int n;
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == big && st.MPI_SOURCE == 1 && st.MPI_TAG == 4, "probe n=%d", n);
    memset(buf, 0, sizeof(int) * big);
    CHECK_MPI(MPI_Recv(buf, n, MPI_INT, 1, 4, MPI_COMM_WORLD, &st));
    for (int i = 0; i < big; ++i) CHECK(buf[i] == i, "big data %d", i);
    /* Iprobe with wildcards finds the earliest remaining message (tag 3). */
    int flag = 0;
    for (int spins = 0; !flag && spins < 1000000; ++spins)
      CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
    CHECK(flag && st.MPI_TAG == 3, "iprobe tag %d", st.MPI_TAG);
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == 37, "iprobe count %d", n);
    CHECK_MPI(MPI_Recv(buf, 37, MPI_INT, 1, 3, MPI_COMM_WORLD, &st));
    /* Mprobe removes the message: a later wildcard probe sees the next one. */
    MPI_Message msg;
    CHECK_MPI(MPI_Mprobe(1, 5, MPI_COMM_WORLD, &msg, &st));
    CHECK(msg != MPI_MESSAGE_NULL, "mprobe message");
    CHECK_MPI(MPI_Probe(1, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_TAG == 6, "after mprobe, probe sees tag %d", st.MPI_TAG);
    int five[5] = {0};
    CHECK_MPI(MPI_Mrecv(five, 5, MPI_INT, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NULL && five[4] == 4 && st.MPI_TAG == 5, "mrecv");
    MPI_Message m2;
    flag = 0;
    for (int spins = 0; !flag && spins < 1000000; ++spins)
      CHECK_MPI(MPI_Improbe(1, 6, MPI_COMM_WORLD, &flag, &m2, &st));
    CHECK(flag, "improbe");
    MPI_Request r;
    CHECK_MPI(MPI_Imrecv(buf, 6, MPI_INT, &m2, &r));
    CHECK_MPI(MPI_Wait(&r, &st));
    CHECK(buf[5] == 5, "imrecv data");
    /* Probe on PROC_NULL */
    CHECK_MPI(MPI_Probe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "probe proc null");
  }
  /* Cancel a receive that can never match. */
  MPI_Request r;
  MPI_Status st;
  CHECK_MPI(MPI_Irecv(buf, 1, MPI_INT, MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Cancel(&r));
  CHECK_MPI(MPI_Wait(&r, &st));
  int cancelled = 0;
  CHECK_MPI(MPI_Test_cancelled(&st, &cancelled));
  CHECK(cancelled, "receive was not cancelled");
  /* A completed receive is not cancelled. */
  if (size >= 2 && rank < 2) {
    int v = 42, w = 0;
    CHECK_MPI(MPI_Irecv(&w, 1, MPI_INT, 1 - rank, 11, MPI_COMM_WORLD, &r));
    CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 1 - rank, 11, MPI_COMM_WORLD));
    int done = 0;
    while (!done) CHECK_MPI(MPI_Test(&r, &done, &st));
    CHECK(w == 42, "value %d", w);
    CHECK_MPI(MPI_Test_cancelled(&st, &cancelled));
    CHECK(!cancelled, "completed receive reported cancelled");
  }
  free(buf);
  test_pass("p2p_probe_cancel");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
