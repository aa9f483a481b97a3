/* A rank that fails takes the whole job down. argv[1]: "abort" (the last rank calls
 * MPI_Abort with code 7), "segv" (the last rank crashes with SIGSEGV), "exit" (the last
 * rank exits with code 5 without MPI_Finalize), "lost" (the last rank is killed by
 * SIGKILL), "shm_corrupt" (the last rank, a misbehaving local rank, writes a malformed frame
 * into its shared-memory ring to rank 0; rank 0 must fail the job naming it). The other
 * ranks block in MPI_Recv that never completes; they must be killed. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

/* Finds rank 0's shared-memory segment among this process's mappings (src/transport/shm.cc
 * lays it out: a 4 KiB header with the owner's rank at byte 12, the ring size at byte 16
 * and the record key at byte 48, then per local sender 4 KiB of counters, the consumer's
 * head first, and the ring's bytes) and writes a record of 64 bytes of garbage where this
 * rank's next record goes in the ring it (slot `me`: every rank is local) owns there: at
 * the consumer's head, since rank 0 has read everything this rank sent it. A record is a
 * word (check << 16 | length, check = position / 64 + key modulo 2^48) and its bytes. */
static void corrupt_ring_to_rank0(int me) {
  FILE* maps = fopen("/proc/self/maps", "r");
  CHECK(maps != NULL, "cannot read /proc/self/maps");
  char line[512];
  unsigned char* seg = NULL;
  while (!seg && fgets(line, sizeof line, maps)) {
    if (!strstr(line, "memfd:ccmpi-shm")) continue;
    unsigned char* base = (unsigned char*)(uintptr_t)strtoull(line, NULL, 16);
    int32_t owner;
    memcpy(&owner, base + 12, sizeof owner);
    if (owner == 0) seg = base;
  }
  fclose(maps);
  CHECK(seg != NULL, "rank 0's shared-memory segment is not mapped here");
  uint64_t ring_bytes, key;
  memcpy(&ring_bytes, seg + 16, sizeof ring_bytes);
  memcpy(&key, seg + 48, sizeof key);
  unsigned char* ctl = seg + 4096 + (size_t)me * (4096 + ring_bytes);
  unsigned char* data = ctl + 4096;
  const uint64_t pos = __atomic_load_n((uint64_t*)ctl, __ATOMIC_ACQUIRE);
  for (int i = 0; i < 64; ++i)
    data[(pos + 8 + (uint64_t)i) & (ring_bytes - 1)] = (unsigned char)(0xa5 ^ i);
  const uint64_t check = (pos / 64 + key) & ((UINT64_C(1) << 48) - 1);
  __atomic_store_n((uint64_t*)(data + (pos & (ring_bytes - 1))), check << 16 | 64,
                   __ATOMIC_RELEASE);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* mode = argc > 1 ? argv[1] : "abort";
  printf("rank %d pid %d\n", rank, (int)getpid());
  fflush(stdout);
  /* Everyone connects first, so the failure also breaks live connections. */
  int x = rank, y;
  CHECK_MPI(MPI_Sendrecv(&x, 1, MPI_INT, (rank + 1) % size, 0, &y, 1, MPI_INT,
                         (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  if (rank == size - 1) {
    usleep(200000);
    if (!strcmp(mode, "abort")) MPI_Abort(MPI_COMM_WORLD, 7);
    if (!strcmp(mode, "segv")) raise(SIGSEGV);
    if (!strcmp(mode, "exit")) _exit(5);
    if (!strcmp(mode, "lost")) raise(SIGKILL);
    if (!strcmp(mode, "shm_corrupt")) {
      corrupt_ring_to_rank0(size - 1);
      pause();
    }
  }
  int never;
  MPI_Recv(&never, 1, MPI_INT, MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  fprintf(stderr, "rank %d: the blocked receive completed, which must not happen\n", rank);
  MPI_Finalize();
  return 0;
}
