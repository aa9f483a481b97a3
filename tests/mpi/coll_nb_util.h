/* Helpers shared by the nonblocking and persistent collective tests (coll_nb_*.c): ways
 * to complete a request, and the block layout of the v-variants. */
#ifndef CCMPI_TEST_COLL_NB_UTIL_H
#define CCMPI_TEST_COLL_NB_UTIL_H
#include "coll_util.h"

/* Completes *req, rotating through MPI_Wait, an MPI_Test loop, MPI_Waitall and an
 * MPI_Testany loop (k picks one), and checks the request handle became NULL. */
static inline void complete_req(MPI_Request* req, int k, const char* what) {
  int flag = 0, idx = -1;
  switch (k % 4) {
    case 0:
      CHECK_MPI(MPI_Wait(req, MPI_STATUS_IGNORE));
      break;
    case 1:
      while (!flag) CHECK_MPI(MPI_Test(req, &flag, MPI_STATUS_IGNORE));
      break;
    case 2:
      CHECK_MPI(MPI_Waitall(1, req, MPI_STATUSES_IGNORE));
      break;
    default:
      while (!flag) CHECK_MPI(MPI_Testany(1, req, &idx, &flag, MPI_STATUS_IGNORE));
      CHECK(idx == 0, "%s: Testany index %d", what, idx);
      break;
  }
  CHECK(*req == MPI_REQUEST_NULL, "%s: request not MPI_REQUEST_NULL after completion", what);
}

/* v-variant layout: rank i's block has vcount(base, i) elements; blocks are stored in
 * reverse rank order with one unused element between neighbours. */
static inline int vcount(int base, int i) {
  return base + i % 3;
}
static inline int vdispl(int base, int i, int n) {
  int d = 0;
  for (int j = n - 1; j > i; --j) d += vcount(base, j) + 1;
  return d;
}
static inline int vtotal(int base, int n) {
  return vdispl(base, -1, n);
}

static inline void fill_int(int* p, long n, int v) {
  for (long i = 0; i < n; ++i) p[i] = v;
}
#endif
