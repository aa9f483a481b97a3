/* A completed send's buffer is the sender's again: rank 0 sends large messages from
 * buffers it unmaps (and maps anew, with other contents) as soon as MPI_Send returns;
 * rank 1 must receive every byte as sent. Within a host the receiver reads large
 * messages straight from the sender's memory (transport/cma.h, split transfers: each
 * side copies half), so the send must not complete while the receiver still reads. */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "check.h"

enum { kRounds = 6 };

static unsigned char pattern(int round, size_t i) {
  return (unsigned char)((i * 131u + (size_t)round * 17u + (i >> 12)) & 0xff);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size == 2, "needs 2 ranks");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const size_t sizes[kRounds] = {1 << 20, 3 << 20, 16 << 20, 64 << 20, 1 << 20, 40 << 20};
  for (int round = 0; round < kRounds; ++round) {
    const size_t n = sizes[round];
    unsigned char* buf = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(buf != MAP_FAILED, "mmap of %zu bytes failed", n);
    if (rank == 0) {
      for (size_t i = 0; i < n; ++i) buf[i] = pattern(round, i);
      CHECK_MPI(MPI_Send(buf, (int)n, MPI_BYTE, 1, round, MPI_COMM_WORLD));
      /* The buffer is ours again: gone at once. */
      CHECK(munmap(buf, n) == 0, "munmap failed");
    } else {
      memset(buf, 0, n);
      MPI_Status st;
      CHECK_MPI(MPI_Recv(buf, (int)n, MPI_BYTE, 0, round, MPI_COMM_WORLD, &st));
      int got;
      MPI_Get_count(&st, MPI_BYTE, &got);
      CHECK((size_t)got == n, "round %d: %d bytes, expected %zu", round, got, n);
      for (size_t i = 0; i < n; ++i)
        CHECK(buf[i] == pattern(round, i), "round %d: byte %zu is %d, expected %d", round, i,
              buf[i], pattern(round, i));
      munmap(buf, n);
    }
  }
  test_pass("p2p_send_reuse");
  MPI_Finalize();
  return 0;
}
