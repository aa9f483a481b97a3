/* Cost of lazy connection set-up: three all-pairs Sendrecv rounds; the first opens
 * every connection (N-1 per rank), the later ones reuse them. Build with mpicc, run
 * with mpirun -n N. Prints the max over ranks of each round. */
#include <mpi.h>
#include <stdio.h>
int main(int c, char** v) {
  MPI_Init(&c, &v);
  int r, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  double t[3];
  int x = 0, y;
  for (int k = 0; k < 3; ++k) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int p = 1; p < n; ++p)
      MPI_Sendrecv(&x, 1, MPI_INT, (r + p) % n, 0, &y, 1, MPI_INT, (r - p + n) % n, 0,
                   MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    t[k] = MPI_Wtime() - t0;
  }
  double m[3];
  MPI_Reduce(t, m, 3, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (r == 0)
    printf(
        "n=%d all-pairs exchange: first %.3f ms (opens %d connections/rank), second %.3f ms, third "
        "%.3f ms\n",
        n, m[0] * 1e3, n - 1, m[1] * 1e3, m[2] * 1e3);
  MPI_Finalize();
}
