/* Run under Slurm by slurm_fixture.py: `slurm_check EXPECTED_SIZE`. Every rank checks that
 * the world has EXPECTED_SIZE ranks (a rank started as a singleton, or a job of the wrong
 * size, fails here), then that collectives over the world agree: the sum of the ranks
 * (allreduce), every rank's number at every rank (allgather), and a value broadcast from
 * the last rank. Each rank prints "slurm_check rank R size N ok" on success; any mismatch
 * prints what differs and exits 1. With a second argument `abort`, the last rank then calls
 * MPI_Abort(MPI_COMM_WORLD, 7) while the others wait in a barrier that only the abort ends. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failed(int rank, const char* what, long got, long want) {
  fprintf(stderr, "slurm_check rank %d: %s is %ld, expected %ld\n", rank, what, got, want);
  return 1;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = -1, size = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int expected = argc > 1 ? atoi(argv[1]) : -1;
  if (size != expected) return failed(rank, "MPI_COMM_WORLD size", size, expected);

  long sum = 0, mine = rank;
  MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (sum != (long)size * (size - 1) / 2)
    return failed(rank, "allreduce sum of ranks", sum, (long)size * (size - 1) / 2);

  int* all = malloc(sizeof(int) * (size_t)size);
  MPI_Allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
  for (int i = 0; i < size; ++i)
    if (all[i] != i) return failed(rank, "allgather entry", all[i], i);
  free(all);

  int token = rank == size - 1 ? 4242 + size : -1;
  MPI_Bcast(&token, 1, MPI_INT, size - 1, MPI_COMM_WORLD);
  if (token != 4242 + size) return failed(rank, "broadcast value", token, 4242 + size);

  printf("slurm_check rank %d size %d ok\n", rank, size);
  fflush(stdout);
  if (argc > 2 && strcmp(argv[2], "abort") == 0) {
    if (rank == size - 1) MPI_Abort(MPI_COMM_WORLD, 7);
    MPI_Barrier(MPI_COMM_WORLD); /* never completes: the abort kills the job */
    fprintf(stderr, "slurm_check rank %d: the barrier completed despite MPI_Abort\n", rank);
    return 1;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
