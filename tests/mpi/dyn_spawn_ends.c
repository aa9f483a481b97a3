/* A spawned job and the end of its parents (tests/mpi/dyn_spawn_ends.py drives it).
 *
 *   dyn_spawn_ends parent HOW DIR   every parent rank spawns 2 children (this program,
 *                                   "child DIR"); rank 0 prints "ready" with the pids of the
 *                                   parents, of the children and of the children's mpirun.
 *                                   Then HOW:
 *                                     wait      every rank waits for a message that never
 *                                               comes (the driver kills a process);
 *                                     abort     rank 1 calls MPI_Abort after a second;
 *                                     finalize  the parents tell the children to go on,
 *                                               disconnect and finalize.
 *   dyn_spawn_ends child DIR        sends its pid and its mpirun's to parent 0; waits for
 *                                   "go" from it, disconnects, outlives the parents by 2 s,
 *                                   and writes DIR/child-RANK.done. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

static int wrank;

enum { kChildren = 2 };

static void parent(const char* self, const char* how, const char* dir) {
  char* args[] = {"child", (char*)dir, NULL};
  int errcodes[kChildren];
  MPI_Comm inter;
  CHECK(MPI_Comm_spawn(self, args, kChildren, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, errcodes) ==
            MPI_SUCCESS,
        "MPI_Comm_spawn");
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int mine = (int)getpid();
  int* parents = malloc(sizeof(int) * (size_t)size);
  MPI_Gather(&mine, 1, MPI_INT, parents, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (wrank == 0) {
    int pids[kChildren][2];
    for (int c = 0; c < kChildren; ++c)
      MPI_Recv(pids[c], 2, MPI_INT, c, 1, inter, MPI_STATUS_IGNORE);
    printf("ready parents");
    for (int r = 0; r < size; ++r) printf(" %d", parents[r]);
    printf(" children %d %d spawned-mpirun %d\n", pids[0][0], pids[1][0], pids[0][1]);
    fflush(stdout);
  }
  free(parents);
  if (strcmp(how, "finalize") == 0) {
    if (wrank == 0)
      for (int c = 0; c < kChildren; ++c) MPI_Send("go", 3, MPI_CHAR, c, 2, inter);
    MPI_Comm_disconnect(&inter);
    return;
  }
  if (strcmp(how, "abort") == 0 && wrank == 1) {
    sleep(1);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  char never;
  MPI_Recv(&never, 1, MPI_CHAR, 0, 99, inter, MPI_STATUS_IGNORE);
  CHECK(0, "a message that nobody sends arrived");
}

static void child(const char* dir) {
  MPI_Comm inter;
  MPI_Comm_get_parent(&inter);
  CHECK(inter != MPI_COMM_NULL, "a spawned process has no parent");
  int pids[2] = {(int)getpid(), (int)getppid()};
  MPI_Send(pids, 2, MPI_INT, 0, 1, inter);
  char go[3];
  MPI_Recv(go, 3, MPI_CHAR, 0, 2, inter, MPI_STATUS_IGNORE);
  CHECK(strcmp(go, "go") == 0, "the parent sent '%.3s'", go);
  MPI_Comm_disconnect(&inter);
  sleep(2);
  char path[4096];
  snprintf(path, sizeof path, "%s/child-%d.done", dir, wrank);
  FILE* f = fopen(path, "w");
  CHECK(f && fclose(f) == 0, "cannot write %s", path);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  if (argc == 4 && strcmp(argv[1], "parent") == 0) {
    parent(argv[0], argv[2], argv[3]);
  } else if (argc == 3 && strcmp(argv[1], "child") == 0) {
    child(argv[2]);
  } else {
    fprintf(stderr, "usage: %s parent wait|abort|finalize DIR\n", argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Finalize();
  return 0;
}
