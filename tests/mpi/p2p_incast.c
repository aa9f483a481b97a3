/* Incast of eager messages into non-contiguous receives: every rank sends to rank 0 at
 * once, so payloads of several connections arrive interleaved while each is staged and
 * unpacked into a strided receive buffer. */
#include "check.h"

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = 6000; /* 48 KB of doubles: eager */
  MPI_Datatype strided;
  CHECK_MPI(MPI_Type_vector(n, 1, 2, MPI_DOUBLE, &strided));
  CHECK_MPI(MPI_Type_commit(&strided));
  double* out = malloc(sizeof(double) * n);
  double* in = malloc(sizeof(double) * 2 * n * size);
  MPI_Request* reqs = malloc(sizeof(MPI_Request) * size);
  for (int round = 0; round < 20; ++round) {
    if (rank == 0) {
      for (int s = 1; s < size; ++s)
        CHECK_MPI(MPI_Irecv(in + 2 * n * s, 1, strided, s, round, MPI_COMM_WORLD, &reqs[s]));
      CHECK_MPI(MPI_Waitall(size - 1, reqs + 1, MPI_STATUSES_IGNORE));
      for (int s = 1; s < size; ++s)
        for (int i = 0; i < n; ++i)
          CHECK(in[2 * n * s + 2 * i] == s * 1e6 + round * 1e4 + i, "round %d from %d elem %d",
                round, s, i);
    } else {
      for (int i = 0; i < n; ++i) out[i] = rank * 1e6 + round * 1e4 + i;
      CHECK_MPI(MPI_Send(out, n, MPI_DOUBLE, 0, round, MPI_COMM_WORLD));
    }
  }
  MPI_Type_free(&strided);
  free(out);
  free(in);
  free(reqs);
  test_pass("p2p_incast");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
