/* MPI_Barrier: every rank leaves a marker file before the barrier and, after it, must see
 * the markers of all ranks (a barrier that lets a rank through early fails this without
 * any timing). Also MPI_COMM_SELF and many back-to-back barriers. */
#include <stdio.h>
#include <unistd.h>

#include "coll_util.h"

int main(int argc, char** argv) {
  coll_init(&argc, &argv);
  char dir[256] = {0};
  if (g_rank == 0) {
    const char* base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(dir, sizeof dir, "%s/ccmpi_barrier_XXXXXX", base);
    CHECK(mkdtemp(dir) != NULL, "mkdtemp failed");
  }
  CHECK_MPI(MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD));
  const int iters = 6;
  char path[400];
  for (int it = 0; it < iters; ++it) {
    snprintf(path, sizeof path, "%s/%d-%d", dir, it, g_rank);
    FILE* f = fopen(path, "w");
    CHECK(f != NULL, "cannot create %s", path);
    fclose(f);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    for (int q = 0; q < g_size; ++q) {
      snprintf(path, sizeof path, "%s/%d-%d", dir, it, q);
      CHECK(access(path, F_OK) == 0, "iteration %d: marker of rank %d missing after barrier", it,
            q);
    }
  }
  for (int i = 0; i < 200; ++i) CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Barrier(MPI_COMM_SELF));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  for (int it = 0; it < iters; ++it) {
    snprintf(path, sizeof path, "%s/%d-%d", dir, it, g_rank);
    unlink(path);
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (g_rank == 0) rmdir(dir);
  test_pass("coll_barrier");
  MPI_Finalize();
  return 0;
}
