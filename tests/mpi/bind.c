/* CPU binding at MPI_Init (CCMPI_BIND, runtime/affinity.h). The CPU mask is read before
 * MPI_Init and after; argv[1] says what to expect:
 *   auto   the ranks of this host (all ranks here) are bound to disjoint blocks of
 *          CPUs/ranks CPUs of the mask they started with, when that mask held every online
 *          CPU and 2 <= ranks <= CPUs; otherwise the mask is unchanged
 *   none   the mask is unchanged
 *   core   every rank has CPUs/ranks CPUs (at least one), each inside the starting mask
 * Rank 0 gathers the masks and checks them. */
#define _GNU_SOURCE
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

static int count(const cpu_set_t* s) {
  return CPU_COUNT(s);
}

int main(int argc, char** argv) {
  cpu_set_t before, after;
  CPU_ZERO(&before);
  CPU_ZERO(&after);
  const int got_before = sched_getaffinity(0, sizeof before, &before);
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  CHECK(argc > 1, "usage: bind auto|none|core");
  CHECK(got_before == 0, "sched_getaffinity before MPI_Init failed");
  CHECK(sched_getaffinity(0, sizeof after, &after) == 0, "sched_getaffinity failed");
  const char* mode = argv[1];
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  const int cpus = count(&before);
  /* Every rank's masks to rank 0. */
  cpu_set_t* all_before = malloc(sizeof(cpu_set_t) * (size_t)n);
  cpu_set_t* all_after = malloc(sizeof(cpu_set_t) * (size_t)n);
  CHECK(all_before && all_after, "out of memory");
  MPI_Gather(&before, (int)sizeof before, MPI_BYTE, all_before, (int)sizeof before, MPI_BYTE, 0,
             MPI_COMM_WORLD);
  MPI_Gather(&after, (int)sizeof after, MPI_BYTE, all_after, (int)sizeof after, MPI_BYTE, 0,
             MPI_COMM_WORLD);
  if (rank == 0) {
    const int expect_bound = strcmp(mode, "core") == 0 ||
                             (strcmp(mode, "auto") == 0 && cpus == online && n >= 2 && n <= cpus);
    const int per = cpus / n > 0 ? cpus / n : 1;
    cpu_set_t seen;
    CPU_ZERO(&seen);
    for (int r = 0; r < n; ++r) {
      if (!expect_bound) {
        CHECK(CPU_EQUAL(&all_before[r], &all_after[r]), "rank %d's mask changed (mode %s)", r,
              mode);
        continue;
      }
      CHECK(count(&all_after[r]) == per, "rank %d has %d CPUs, expected %d (mode %s, %d CPUs)", r,
            count(&all_after[r]), per, mode, cpus);
      cpu_set_t inside;
      CPU_AND(&inside, &all_after[r], &all_before[r]);
      CHECK(CPU_EQUAL(&inside, &all_after[r]), "rank %d is bound outside its starting mask", r);
      if (n <= cpus) {
        cpu_set_t common;
        CPU_AND(&common, &seen, &all_after[r]);
        CHECK(count(&common) == 0, "rank %d shares a CPU with a lower rank (mode %s)", r, mode);
      }
      CPU_OR(&seen, &seen, &all_after[r]);
    }
    printf("bind %s: %d ranks, %d CPUs, %s\n", mode, n, cpus,
           !expect_bound ? "masks unchanged"
           : n <= cpus   ? "bound to disjoint blocks"
                         : "bound, round robin");
  }
  free(all_before);
  free(all_after);
  MPI_Barrier(MPI_COMM_WORLD);
  test_pass("bind");
  MPI_Finalize();
  return 0;
}
