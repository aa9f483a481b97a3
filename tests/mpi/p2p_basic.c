/* Blocking and nonblocking sends/receives of many sizes (eager and rendezvous),
 * self sends, MPI_PROC_NULL, Get_count, Sendrecv and Sendrecv_replace in a ring. */
#include <string.h>

#include "check.h"

static void fill(unsigned char* b, size_t n, int seed) {
  for (size_t i = 0; i < n; ++i) b[i] = (unsigned char)(i * 31 + seed * 7 + (i >> 8));
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t sizes[] = {0, 1, 7, 1000, 65536, 65537, 300000, 4 << 20};
  const int nsizes = sizeof sizes / sizeof sizes[0];
  unsigned char* sbuf = malloc(4 << 20);
  unsigned char* rbuf = malloc(4 << 20);
  unsigned char* expect = malloc(4 << 20);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;

  for (int s = 0; s < nsizes; ++s) {
    const size_t n = sizes[s];
    fill(sbuf, n, rank);
    fill(expect, n, left);
    memset(rbuf, 0xEE, n);
    /* ring with Isend/Recv */
    MPI_Request req;
    CHECK_MPI(MPI_Isend(sbuf, (int)n, MPI_BYTE, right, 100 + s, MPI_COMM_WORLD, &req));
    MPI_Status st;
    CHECK_MPI(MPI_Recv(rbuf, (int)n, MPI_BYTE, left, 100 + s, MPI_COMM_WORLD, &st));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(req == MPI_REQUEST_NULL, "request not reset");
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 100 + s, "status src %d tag %d", st.MPI_SOURCE,
          st.MPI_TAG);
    int count = -1;
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(count == (int)n, "count %d != %zu", count, n);
    CHECK(memcmp(rbuf, expect, n) == 0, "ring data mismatch at size %zu", n);

    /* Sendrecv the other way */
    fill(expect, n, right);
    memset(rbuf, 0, n);
    CHECK_MPI(MPI_Sendrecv(sbuf, (int)n, MPI_BYTE, left, 7, rbuf, (int)n, MPI_BYTE, right, 7,
                           MPI_COMM_WORLD, &st));
    CHECK(memcmp(rbuf, expect, n) == 0, "sendrecv mismatch at size %zu", n);

    /* Self send, nonblocking both ways */
    MPI_Request rr, sr;
    memset(rbuf, 0, n);
    CHECK_MPI(MPI_Irecv(rbuf, (int)n, MPI_BYTE, rank, 5, MPI_COMM_WORLD, &rr));
    CHECK_MPI(MPI_Isend(sbuf, (int)n, MPI_BYTE, rank, 5, MPI_COMM_WORLD, &sr));
    CHECK_MPI(MPI_Wait(&sr, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&rr, &st));
    CHECK(st.MPI_SOURCE == rank, "self source");
    CHECK(memcmp(rbuf, sbuf, n) == 0, "self data mismatch at %zu", n);
  }

  /* Sendrecv_replace of doubles in a ring */
  double vals[1000];
  for (int i = 0; i < 1000; ++i) vals[i] = rank * 1000.0 + i;
  CHECK_MPI(MPI_Sendrecv_replace(vals, 1000, MPI_DOUBLE, right, 9, left, 9, MPI_COMM_WORLD,
                                 MPI_STATUS_IGNORE));
  for (int i = 0; i < 1000; ++i) CHECK(vals[i] == left * 1000.0 + i, "replace value %d", i);

  /* MPI_PROC_NULL */
  MPI_Status st;
  CHECK_MPI(MPI_Send(sbuf, 10, MPI_BYTE, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Recv(rbuf, 10, MPI_BYTE, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
  int c = -1;
  MPI_Get_count(&st, MPI_BYTE, &c);
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && c == 0, "proc null status");

  free(sbuf);
  free(rbuf);
  free(expect);
  test_pass("p2p_basic");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
