/* First contact between two ranks on two hosts (cluster_test.sh synloss): rank 0 prints
 * "connecting", then sends one int to rank 1 and waits for it back; it prints
 * "first_contact_ms=T" with the round trip's time, which includes opening the connection.
 * The test drops SYNs to rank 1's host until it has seen "connecting". */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, v = 42;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) printf("FAIL cluster_first_contact: needs 2 ranks\n");
    MPI_Finalize();
    return 1;
  }
  int ok = 1;
  if (rank == 0) {
    printf("connecting\n");
    fflush(stdout);
    const double t0 = MPI_Wtime();
    MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    v = 0;
    MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    ok = v == 43;
    printf("first_contact_ms=%.0f\n", (MPI_Wtime() - t0) * 1e3);
  } else {
    MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    ++v;
    MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
  }
  if (rank == 0) printf("%s cluster_first_contact\n", ok ? "PASS" : "FAIL");
  MPI_Finalize();
  return ok ? 0 : 1;
}
