/* Non-overtaking and wildcard matching: every rank sends a stream of messages of mixed
 * sizes (eager and rendezvous) and tags to rank 0, which receives them with
 * MPI_ANY_SOURCE / MPI_ANY_TAG and checks that each sender's messages arrive in order. */
#include <string.h>

#include "check.h"

#define NMSG 60

static int msg_len(int i) {
  return (i % 5 == 0) ? 100000 + i : (i % 3) * 17 + 4;
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int* buf = malloc(sizeof(int) * 200000);
  if (rank != 0) {
    for (int i = 0; i < NMSG; ++i) {
      const int n = msg_len(i);
      for (int k = 0; k < n; ++k) buf[k] = rank * 1000000 + i * 1000 + (k % 1000);
      CHECK_MPI(MPI_Send(buf, n, MPI_INT, 0, i % 4, MPI_COMM_WORLD));
    }
  } else {
    int next[1024] = {0};
    for (int m = 0; m < NMSG * (size - 1); ++m) {
      MPI_Status st;
      CHECK_MPI(MPI_Recv(buf, 200000, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
      const int src = st.MPI_SOURCE;
      CHECK(src > 0 && src < size, "bad source %d", src);
      const int i = next[src]++;
      CHECK(st.MPI_TAG == i % 4, "from %d message %d has tag %d (order violated)", src, i,
            st.MPI_TAG);
      int n;
      MPI_Get_count(&st, MPI_INT, &n);
      CHECK(n == msg_len(i), "from %d message %d has %d ints, expected %d", src, i, n, msg_len(i));
      for (int k = 0; k < n; ++k)
        CHECK(buf[k] == src * 1000000 + i * 1000 + (k % 1000), "payload from %d msg %d idx %d", src,
              i, k);
    }
    for (int s = 1; s < size; ++s) CHECK(next[s] == NMSG, "rank %d sent %d", s, next[s]);
  }
  /* Specific-tag receives posted out of order match the right messages. */
  if (size >= 2 && rank < 2) {
    const int peer = 1 - rank;
    if (rank == 0) {
      int a = 1, b = 2;
      CHECK_MPI(MPI_Send(&a, 1, MPI_INT, peer, 10, MPI_COMM_WORLD));
      CHECK_MPI(MPI_Send(&b, 1, MPI_INT, peer, 20, MPI_COMM_WORLD));
    } else {
      int a = 0, b = 0;
      CHECK_MPI(MPI_Recv(&b, 1, MPI_INT, peer, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK_MPI(MPI_Recv(&a, 1, MPI_INT, peer, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK(a == 1 && b == 2, "tag matching a=%d b=%d", a, b);
    }
  }
  free(buf);
  test_pass("p2p_order");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
