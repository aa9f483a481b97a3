// Calls into ccmpi from C++, so linking needs libccmpi and unmangled (extern "C") names.
#include <mpi.h>

#include <cstdio>

int main(int argc, char** argv) {
  int rank = -1;
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::printf("hello from rank %d\n", rank);
  return MPI_Finalize() == MPI_SUCCESS ? 0 : 1;
}
