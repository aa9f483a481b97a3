// Sleeping and waking through shared memory (shm_sleep_wake.py runs it).
//
// Phase 1: rank 0 ping-pongs with every other rank; the answering rank waits a random
// 0-40 us first, so the waiting side, run with a spin of a few microseconds, goes to sleep
// just before, during or after the message comes: a lost wake-up shows as a round trip of
// a whole sleep slice (a second). Phase 2: each other rank floods rank 0 with 1 KiB
// messages through a small ring while rank 0 pauses now and then, so writers wait for room
// and must be woken when it frees. Prints the longest round trip and the longest gap
// between two messages of the flood, in milliseconds, and checks every payload.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void busyWait(double us) {
  const double end = MPI_Wtime() + us * 1e-6;
  while (MPI_Wtime() < end) {
  }
}

static void sleepUs(long us) {
  struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
  nanosleep(&ts, NULL);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int rounds = argc > 1 ? atoi(argv[1]) : 2000;
  const int flood = argc > 2 ? atoi(argv[2]) : 3000;
  srand(12345u + 7u * (unsigned)rank);
  int bad = 0;
  double maxRtt = 0;
  for (int i = 0; i < rounds; ++i) {
    const int peer = 1 + i % (size - 1);
    int v = i;
    if (rank == 0) {
      const double t = MPI_Wtime();
      MPI_Send(&v, 1, MPI_INT, peer, 1, MPI_COMM_WORLD);
      MPI_Recv(&v, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      const double rtt = MPI_Wtime() - t;
      if (rtt > maxRtt) maxRtt = rtt;
      if (v != i + 1) ++bad;
      busyWait(rand() % 40);
    } else if (rank == peer) {
      MPI_Recv(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (v != i) ++bad;
      busyWait(rand() % 40);
      ++v;
      MPI_Send(&v, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  enum { kWords = 256 };  // 1 KiB
  int buf[kWords];
  double maxGap = 0;
  if (rank == 0) {
    for (int src = 1; src < size; ++src) {
      double last = MPI_Wtime();
      for (int m = 0; m < flood; ++m) {
        if (m % 200 == 199) sleepUs(2000);  // the writer fills the ring and waits
        MPI_Recv(buf, kWords, MPI_INT, src, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        const double now = MPI_Wtime();
        if (now - last > maxGap) maxGap = now - last;
        last = now;
        for (int w = 0; w < kWords; ++w)
          if (buf[w] != src * 1000003 + m * 31 + w) {
            ++bad;
            break;
          }
      }
    }
  } else {
    for (int m = 0; m < flood; ++m) {
      for (int w = 0; w < kWords; ++w) buf[w] = rank * 1000003 + m * 31 + w;
      MPI_Send(buf, kWords, MPI_INT, 0, 3, MPI_COMM_WORLD);
    }
  }
  int badAll = 0;
  MPI_Reduce(&bad, &badAll, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("max_rtt_ms=%.3f max_gap_ms=%.3f bad=%d\n", maxRtt * 1e3, maxGap * 1e3, badAll);
    fflush(stdout);
  }
  MPI_Finalize();
  return badAll == 0 ? 0 : 1;
}
