/* MPI_Abort's message names the communicator (its name, or its handle and size when it
 * has none) and the calling rank: `abort_message world` has rank 1 abort on
 * MPI_COMM_WORLD, `abort_message dup` on an unnamed duplicate of it. The other ranks wait
 * in a barrier until the job is killed. CTest matches the message. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm comm = MPI_COMM_WORLD;
  if (argc > 1 && strcmp(argv[1], "dup") == 0) MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  if (rank == 1) MPI_Abort(comm, 3);
  MPI_Barrier(comm);
  printf("abort_message: rank %d passed the barrier: MPI_Abort did not end the job\n", rank);
  MPI_Finalize();
  return 0;
}
