/* Shared helpers for the MPI test programs: CHECK aborts the job (non-zero exit)
 * with the failed condition, its location and the rank. */
#ifndef CCMPI_TEST_CHECK_H
#define CCMPI_TEST_CHECK_H
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond, ...)                                                                      \
  do {                                                                                        \
    if (!(cond)) {                                                                            \
      int r_ = -1;                                                                            \
      MPI_Comm_rank(MPI_COMM_WORLD, &r_);                                                     \
      fprintf(stderr, "rank %d: CHECK failed at %s:%d: %s: ", r_, __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                                           \
      fprintf(stderr, "\n");                                                                  \
      fflush(stderr);                                                                         \
      MPI_Abort(MPI_COMM_WORLD, 3);                                                           \
    }                                                                                         \
  } while (0)

#define CHECK_MPI(call) CHECK((call) == MPI_SUCCESS, "%s did not return MPI_SUCCESS", #call)

static inline void test_pass(const char* name) {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  if (r == 0) printf("PASS %s\n", name);
}
#endif
