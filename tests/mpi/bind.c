/* CPU binding at MPI_Init (CCMPI_BIND, runtime/affinity.h). The CPU mask is read before
 * MPI_Init and after; argv[1] says what to expect:
 *   auto   the ranks of this host (all ranks here) are bound to disjoint blocks of
 *          CPUs/ranks CPUs of the mask they started with, when that mask held every online
 *          CPU and 2 <= ranks <= CPUs; otherwise the mask is unchanged
 *   busy   auto on a busy machine: before MPI_Init every rank starts as many busy
 *          processes as there are CPUs, so more tasks are runnable than CPUs and auto
 *          leaves the mask unchanged (they are killed before MPI_Finalize)
 *   none   the mask is unchanged
 *   core   every rank has CPUs/ranks CPUs (at least one), each inside the starting mask
 *   socket every rank is bound to all CPUs of the starting mask on one socket (physical
 *          package), which is the socket of the block "core" would give it
 * (mpirun --bind-to core|socket sets CCMPI_BIND, so both are checked through it too.)
 * Rank 0 gathers the masks and checks them. */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static int count(const cpu_set_t* s) {
  return CPU_COUNT(s);
}

static int package_of(int cpu) {
  char path[96];
  snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/physical_package_id", cpu);
  FILE* f = fopen(path, "r");
  int id = -1;
  if (f) {
    if (fscanf(f, "%d", &id) != 1) id = -1;
    fclose(f);
  }
  return id;
}

static int first_cpu(const cpu_set_t* s) {
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, s)) return c;
  return -1;
}

/* Busy processes (killed with the test, or with their parent). */
static pid_t busy[64];
static int nbusy = 0;

static void start_busy(int n) {
  for (int i = 0; i < n && nbusy < 64; ++i) {
    const pid_t pid = fork();
    if (pid == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      for (volatile unsigned long k = 0;; ++k) {
      }
    }
    if (pid > 0) busy[nbusy++] = pid;
  }
}

static void stop_busy(void) {
  for (int i = 0; i < nbusy; ++i) kill(busy[i], SIGKILL);
  for (int i = 0; i < nbusy; ++i) waitpid(busy[i], NULL, 0);
  nbusy = 0;
}

int main(int argc, char** argv) {
  cpu_set_t before, after;
  CPU_ZERO(&before);
  CPU_ZERO(&after);
  const int got_before = sched_getaffinity(0, sizeof before, &before);
  if (argc > 1 && strcmp(argv[1], "busy") == 0) {
    start_busy((int)sysconf(_SC_NPROCESSORS_ONLN));
    usleep(100000); /* let them be scheduled */
  }
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  CHECK(argc > 1, "usage: bind auto|busy|none|core|socket");
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
    if (strcmp(mode, "socket") == 0) {
      for (int r = 0; r < n; ++r) {
        const int package = package_of(first_cpu(&all_after[r]));
        CHECK(package >= 0, "rank %d: no socket for CPU %d", r, first_cpu(&all_after[r]));
        for (int c = 0; c < CPU_SETSIZE; ++c) {
          const int want = CPU_ISSET(c, &all_before[r]) && package_of(c) == package;
          CHECK(!!CPU_ISSET(c, &all_after[r]) == want,
                "rank %d: CPU %d %s (socket %d, mode socket)", r, c,
                want ? "missing" : "should not be in its mask", package);
        }
      }
      printf("bind socket: %d ranks, %d CPUs, each bound to its socket's CPUs\n", n, cpus);
    } else {
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
  }
  free(all_before);
  free(all_after);
  stop_busy();
  MPI_Barrier(MPI_COMM_WORLD);
  test_pass("bind");
  MPI_Finalize();
  return 0;
}
