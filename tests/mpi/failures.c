/* A rank that fails takes the whole job down. argv[1]: "abort" (the last rank calls
 * MPI_Abort with code 7), "segv" (the last rank crashes with SIGSEGV), "exit" (the last
 * rank exits with code 5 without MPI_Finalize), "lost" (the last rank is killed by
 * SIGKILL). The other ranks block in MPI_Recv that never completes; they must be killed. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* mode = argc > 1 ? argv[1] : "abort";
  printf("rank %d pid %d\n", rank, (int)getpid());
  fflush(stdout);
  /* Everyone connects first, so the failure also breaks live connections. */
  int x = rank, y;
  CHECK_MPI(MPI_Sendrecv(&x, 1, MPI_INT, (rank + 1) % size, 0, &y, 1, MPI_INT,
                         (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  if (rank == size - 1) {
    usleep(200000);
    if (!strcmp(mode, "abort")) MPI_Abort(MPI_COMM_WORLD, 7);
    if (!strcmp(mode, "segv")) raise(SIGSEGV);
    if (!strcmp(mode, "exit")) _exit(5);
    if (!strcmp(mode, "lost")) raise(SIGKILL);
  }
  int never;
  MPI_Recv(&never, 1, MPI_INT, MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  fprintf(stderr, "rank %d: the blocked receive completed, which must not happen\n", rank);
  MPI_Finalize();
  return 0;
}
