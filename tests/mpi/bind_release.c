/* A rank bound by CCMPI_BIND=auto lets go of its binding when another process keeps taking
 * its CPU (runtime/affinity.h, Engine::setStarvedHook). Run with CCMPI_BIND=auto and a
 * CCMPI_BIND_RUNNABLE high enough that the binding happens on a loaded machine; 2 ranks on
 * a host with at least 2 CPUs. After MPI_Init every rank is bound; each then starts a busy
 * process pinned to its own CPUs and the two ranks ping-pong 64 KiB until both have their
 * starting mask back, for at most 30 seconds. argv[1] = "keep" runs the same with
 * CCMPI_BIND=core, which the user asked for and which is therefore kept. */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

int main(int argc, char** argv) {
  cpu_set_t before, bound, now;
  CPU_ZERO(&before);
  CHECK(sched_getaffinity(0, sizeof before, &before) == 0, "sched_getaffinity");
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  CHECK(n == 2, "run with 2 ranks");
  const int keep = argc > 1 && strcmp(argv[1], "keep") == 0;
  CHECK(sysconf(_SC_NPROCESSORS_ONLN) >= 2, "needs 2 CPUs");
  CHECK(sched_getaffinity(0, sizeof bound, &bound) == 0, "sched_getaffinity");
  CHECK(!CPU_EQUAL(&before, &bound), "rank %d was not bound at MPI_Init", rank);

  const pid_t child = fork();
  CHECK(child >= 0, "fork");
  if (child == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    sched_setaffinity(0, sizeof bound, &bound);
    for (volatile unsigned long k = 0;; ++k) {
    }
  }
  enum { kBytes = 65536 };
  char* buf = calloc(kBytes, 1);
  CHECK(buf != NULL, "out of memory");
  const double start = MPI_Wtime();
  int iterations = 0, done = 0;
  int released = 0;
  while (!done) {
    for (int i = 0; i < 20; ++i, ++iterations) {
      if (rank == 0) {
        MPI_Send(buf, kBytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(buf, kBytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(buf, kBytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf, kBytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
      }
    }
    CHECK(sched_getaffinity(0, sizeof now, &now) == 0, "sched_getaffinity");
    released = CPU_EQUAL(&now, &before);
    /* Both released, or the time is up (rank 0's clock decides, for both). */
    int flags[2] = {released, rank == 0 && MPI_Wtime() - start > (keep ? 3.0 : 30.0)};
    int all[2];
    MPI_Allreduce(&flags[0], &all[0], 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    MPI_Allreduce(&flags[1], &all[1], 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    done = all[0] || all[1];
  }
  kill(child, SIGKILL);
  waitpid(child, NULL, 0);
  if (keep) {
    CHECK(CPU_EQUAL(&now, &bound), "rank %d: a binding by CCMPI_BIND=core changed", rank);
  } else {
    CHECK(released, "rank %d still bound after %.1f s and %d iterations next to a busy process",
          rank, MPI_Wtime() - start, iterations);
  }
  if (rank == 0)
    printf("bind_release: %s after %.2f s, %d iterations\n", keep ? "kept" : "released",
           MPI_Wtime() - start, iterations);
  free(buf);
  MPI_Barrier(MPI_COMM_WORLD);
  test_pass("bind_release");
  MPI_Finalize();
  return 0;
}
