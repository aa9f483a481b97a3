/* Runs on an emulated cluster (ccmpi-cluster) under mpirun --launcher 'ccmpi-cluster
 * exec': checks that every rank runs inside a cluster host (its namespace has the NIC r0
 * and the host name the processor name reports), that the ranks are spread over exactly
 * EXPECTED_HOSTS different hosts named PREFIX..., and that a 1 MiB ring exchange between
 * them arrives intact. Every rank must see the same link rate (MPIX_Link_get_rate). Rank 0
 * prints the host of every rank and the link rate ("link: MBITS ORIGIN HOW"; ORIGIN declared,
 * found or assumed), then PASS.
 *
 *   cluster_hosts EXPECTED_HOSTS PREFIX */
#include <mpi.h>
#include <mpix_ccmpi.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../mpi/check.h"

enum { kRingBytes = 1 << 20 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(argc == 3, "usage: cluster_hosts EXPECTED_HOSTS PREFIX");
  const int expected = atoi(argv[1]);
  const char* prefix = argv[2];

  char name[MPI_MAX_PROCESSOR_NAME] = {0};
  int len = 0;
  CHECK_MPI(MPI_Get_processor_name(name, &len));
  char host[256] = {0};
  CHECK(gethostname(host, sizeof host - 1) == 0, "gethostname failed");
  CHECK(strcmp(name, host) == 0, "processor name %s is not the host name %s", name, host);
  CHECK(strncmp(name, prefix, strlen(prefix)) == 0, "host %s is not named %s...", name, prefix);
  CHECK(if_nametoindex("r0") != 0, "host %s has no interface r0: not in a cluster host", name);

  char* all = calloc((size_t)size, MPI_MAX_PROCESSOR_NAME);
  CHECK(all != NULL, "out of memory");
  CHECK_MPI(MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME,
                          MPI_CHAR, MPI_COMM_WORLD));
  int distinct = 0;
  for (int i = 0; i < size; ++i) {
    int seen = 0;
    for (int j = 0; j < i && !seen; ++j)
      seen = strcmp(all + (size_t)i * MPI_MAX_PROCESSOR_NAME,
                    all + (size_t)j * MPI_MAX_PROCESSOR_NAME) == 0;
    distinct += !seen;
  }
  CHECK(distinct == expected, "ranks run on %d different hosts, expected %d", distinct, expected);

  unsigned char* out = malloc(kRingBytes);
  unsigned char* in = malloc(kRingBytes);
  CHECK(out && in, "out of memory");
  for (int i = 0; i < kRingBytes; ++i) out[i] = (unsigned char)(i * 7 + rank);
  const int to = (rank + 1) % size, from = (rank + size - 1) % size;
  CHECK_MPI(MPI_Sendrecv(out, kRingBytes, MPI_BYTE, to, 5, in, kRingBytes, MPI_BYTE, from, 5,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  for (int i = 0; i < kRingBytes; ++i)
    CHECK(in[i] == (unsigned char)(i * 7 + from), "ring byte %d from rank %d is wrong", i, from);

  double mbits = 0, lo = 0, hi = 0;
  int origin = 0, olo = 0, ohi = 0;
  char how[MPI_MAX_INFO_VAL + 1] = {0};
  CHECK_MPI(MPIX_Link_get_rate(&mbits, &origin, how));
  CHECK(mbits > 0, "link rate %g is not positive", mbits);
  CHECK(origin == MPIX_LINK_DECLARED || origin == MPIX_LINK_FOUND || origin == MPIX_LINK_ASSUMED,
        "link origin %d", origin);
  CHECK_MPI(MPI_Allreduce(&mbits, &lo, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Allreduce(&mbits, &hi, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Allreduce(&origin, &olo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Allreduce(&origin, &ohi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  CHECK(lo == hi && olo == ohi, "ranks disagree on the link: %g-%g Mbit/s, origins %d-%d", lo, hi,
        olo, ohi);

  if (rank == 0) {
    static const char* const kOrigins[] = {"?", "declared", "found", "assumed"};
    printf("link: %g %s %s\n", mbits, kOrigins[origin], how);
    printf("hosts:");
    for (int i = 0; i < size; ++i) printf(" %d=%s", i, all + (size_t)i * MPI_MAX_PROCESSOR_NAME);
    printf("\n");
  }
  free(all);
  free(out);
  free(in);
  test_pass("cluster_hosts");
  MPI_Finalize();
  return 0;
}
