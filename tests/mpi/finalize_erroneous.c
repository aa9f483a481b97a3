/* MPI_Finalize after an erroneous program: every rank calls MPI_Bcast of 64 KiB as its own
 * root (a multicast broadcast whose root completes at once and keeps a copy for repairs
 * until every receiver acknowledged; here no receiver ever receives it). MPI_Finalize used
 * to wait 30 s for those acknowledgements, silently, on every rank. Now it waits only
 * until the other ranks reach MPI_Finalize: rank 0 arrives `delay` seconds late (argument,
 * default 2.5), and the others must say after CCMPI_FINALIZE_NOTICE seconds what they wait
 * for (CTest checks the line) and return within delay + 5 s. Prints FAILED on a slow
 * MPI_Finalize. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  const double delay = argc > 1 ? atof(argv[1]) : 2.5;
  int rank, size;
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  enum { kBytes = 64 * 1024 };
  static char buf[kBytes];
  memset(buf, rank + 1, sizeof buf);
  /* Erroneous on purpose: the roots differ. Whatever it returns, it must not hang. */
  (void)MPI_Bcast(buf, kBytes, MPI_CHAR, rank, MPI_COMM_WORLD);
  if (rank == 0) usleep((useconds_t)(delay * 1e6));
  const double t0 = now();
  CHECK_MPI(MPI_Finalize());
  const double took = now() - t0;
  if (took > delay + 5.0) {
    fprintf(stderr, "rank %d: FAILED: MPI_Finalize took %.1f s\n", rank, took);
    return 1;
  }
  if (rank == 0) printf("PASS finalize_erroneous\n");
  return 0;
}
