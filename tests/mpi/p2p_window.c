/* Many large nonblocking messages in flight at once (rendezvous streams of several
 * chunks queued behind each other and behind eager messages on one connection), in both
 * directions, with the data checked. */
#include <string.h>

#include "check.h"

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int peer = rank ^ 1;
  if (peer < size) {
    enum { W = 12 };
    const size_t lens[3] = {(1 << 20) + 1, 3 << 20, 70000};
    for (int li = 0; li < 3; ++li) {
      const size_t n = lens[li];
      unsigned char* s = malloc(n * W);
      unsigned char* r = malloc(n * W);
      for (size_t i = 0; i < n * W; ++i) s[i] = (unsigned char)(i * 7 + rank * 13 + (i >> 16));
      MPI_Request q[2 * W + 2];
      int small_out = rank, small_in = -1;
      for (int w = 0; w < W; ++w) {
        CHECK_MPI(MPI_Irecv(r + w * n, (int)n, MPI_BYTE, peer, w, MPI_COMM_WORLD, &q[w]));
        CHECK_MPI(MPI_Isend(s + w * n, (int)n, MPI_BYTE, peer, w, MPI_COMM_WORLD, &q[W + w]));
      }
      /* An eager message queued behind the streams. */
      CHECK_MPI(MPI_Irecv(&small_in, 1, MPI_INT, peer, 99, MPI_COMM_WORLD, &q[2 * W]));
      CHECK_MPI(MPI_Isend(&small_out, 1, MPI_INT, peer, 99, MPI_COMM_WORLD, &q[2 * W + 1]));
      CHECK_MPI(MPI_Waitall(2 * W + 2, q, MPI_STATUSES_IGNORE));
      CHECK(small_in == peer, "small message %d", small_in);
      for (size_t i = 0; i < n * W; ++i)
        CHECK(r[i] == (unsigned char)(i * 7 + peer * 13 + (i >> 16)),
              "byte %zu of window (len %zu)", i, n);
      free(s);
      free(r);
    }
  }
  test_pass("p2p_window");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
