/* osu_multi_lat's loop timed whole: ranks r and r + n/2 ping-pong SIZE bytes after an
 * MPI_Barrier, ITERS times (after ITERS/10 untimed). OSU times only the exchange after each
 * barrier (its figure depends on how far apart the barrier lets the ranks out: a barrier
 * that releases everyone at once makes all pairs exchange at the same time, each exchange
 * then waiting longer on a crowded machine); this program also reports the time of a whole
 * iteration, barrier included, which is what a program built of such steps sees.
 *
 * usage: pair_iteration SIZE ITERS
 * prints: pair_iteration SIZE ITERS EXCHANGE_US ITERATION_US
 *   EXCHANGE_US   OSU's figure: half the round trip after the barrier, averaged over pairs
 *   ITERATION_US  wall time per iteration (barrier and exchange), the slowest rank's */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 3 || size < 2 || size % 2) {
    if (rank == 0) fprintf(stderr, "usage: pair_iteration SIZE ITERS (an even number of ranks)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int bytes = atoi(argv[1]), iters = atoi(argv[2]), skip = iters / 10;
  const int pairs = size / 2;
  char* buf = calloc((size_t)(bytes > 0 ? bytes : 1), 1);
  if (!buf) MPI_Abort(MPI_COMM_WORLD, 2);
  const int partner = rank < pairs ? rank + pairs : rank - pairs;
  double exchange = 0, start = 0;
  for (int i = 0; i < iters + skip; ++i) {
    if (i == skip) start = MPI_Wtime();
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    if (rank < pairs) {
      MPI_Send(buf, bytes, MPI_CHAR, partner, 1, MPI_COMM_WORLD);
      MPI_Recv(buf, bytes, MPI_CHAR, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buf, bytes, MPI_CHAR, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, bytes, MPI_CHAR, partner, 1, MPI_COMM_WORLD);
    }
    if (i >= skip) exchange += MPI_Wtime() - t0;
  }
  const double whole = (MPI_Wtime() - start) / iters * 1e6;
  const double half = rank < pairs ? exchange / iters / 2 * 1e6 : 0;
  double sum = 0, slowest = 0;
  MPI_Reduce(&half, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&whole, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("pair_iteration %d %d %.2f %.2f\n", bytes, iters, sum / pairs, slowest);
  free(buf);
  MPI_Finalize();
  return 0;
}
