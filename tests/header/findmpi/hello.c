/* Calls into ccmpi, so linking needs libccmpi. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank = -1;
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  printf("hello from rank %d\n", rank);
  return MPI_Finalize() == MPI_SUCCESS ? 0 : 1;
}
