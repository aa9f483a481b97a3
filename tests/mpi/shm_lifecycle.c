/* A job whose ranks all talk through shared memory, for tests/mpi/shm_cleanup.py: every
 * rank prints "rank N pid P", exchanges a message with every other rank (so every ring is
 * used), prints "rank N ready", then per argv[1]:
 *   finalize  finishes normally;
 *   abort     the last rank calls MPI_Abort(…, 9), the others wait;
 *   wait      every rank blocks in a receive that never completes (the test kills a rank
 *             or mpirun);
 *   orphan    as wait, after every rank made a shared-memory object named as the node
 *             collectives name their segment ("/ccmpi-<pid>-...") and left the name, as a
 *             rank killed while creating one would: the launcher removes it. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* mode = argc > 1 ? argv[1] : "finalize";
  printf("rank %d pid %d\n", rank, (int)getpid());
  fflush(stdout);
  int* out = malloc(sizeof(int) * (size_t)size);
  int* in = malloc(sizeof(int) * (size_t)size);
  for (int i = 0; i < size; ++i) out[i] = rank * 1000 + i;
  CHECK_MPI(MPI_Alltoall(out, 1, MPI_INT, in, 1, MPI_INT, MPI_COMM_WORLD));
  for (int i = 0; i < size; ++i)
    CHECK(in[i] == i * 1000 + rank, "from rank %d: %d, expected %d", i, in[i], i * 1000 + rank);
  if (!strcmp(mode, "orphan")) {
    char name[64];
    snprintf(name, sizeof name, "/ccmpi-%d-lifecycle", (int)getpid());
    const int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    CHECK(fd >= 0, "shm_open(%s) failed", name);
    close(fd);
    mode = "wait";
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  printf("rank %d ready\n", rank);
  fflush(stdout);
  if (!strcmp(mode, "abort") && rank == size - 1) {
    usleep(100000);
    MPI_Abort(MPI_COMM_WORLD, 9);
  }
  if (strcmp(mode, "finalize") != 0) {
    int never;
    MPI_Recv(&never, 1, MPI_INT, MPI_ANY_SOURCE, 4242, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    fprintf(stderr, "rank %d: the blocked receive completed, which must not happen\n", rank);
    return 3;
  }
  free(out);
  free(in);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
