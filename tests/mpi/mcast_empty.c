/* Multicast collectives of no data, with the receivers done before the root starts: a
 * message of 0 bytes has no datagrams, so a receiver completes without hearing from the
 * root, and an acknowledgement it sent could reach the root before the root's send
 * existed (dropped there), leaving the root waiting for it: MPI_Finalize then stalled
 * 30 s with "multicast messages still unacknowledged". Every algorithm below is forced
 * through the communicator info hint; the root sleeps before each call so that the
 * receivers finish first. Checks: the results (the root's own block where there is one),
 * that multicast really was in use (a non-empty broadcast first, counted by
 * MPIX_Mcast_get_stats), and that MPI_Finalize returns within 10 s on every rank.
 * Exits non-zero on any failure. */
#include <mpix_ccmpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static MPI_Comm forced(const char* table, const char* alg) {
  MPI_Comm c;
  MPI_Info info;
  char key[64];
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  CHECK_MPI(MPI_Info_create(&info));
  snprintf(key, sizeof key, "ccmpi_%s_algorithm", table);
  CHECK_MPI(MPI_Info_set(info, key, alg));
  CHECK_MPI(MPI_Comm_set_info(c, info));
  CHECK_MPI(MPI_Info_free(&info));
  return c;
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int root = size - 1;
  const useconds_t late = 30000; /* the root's head start given to the receivers */

  /* Multicast in use: a broadcast of data by the forced algorithm sends datagrams. */
  {
    MPI_Comm c = forced("bcast", "mcast");
    char buf[4000];
    memset(buf, rank == root ? 0x3C : 0, sizeof buf);
    CHECK_MPI(MPI_Bcast(buf, (int)sizeof buf, MPI_CHAR, root, c));
    for (size_t i = 0; i < sizeof buf; ++i) CHECK(buf[i] == 0x3C, "bcast byte %zu", i);
    MPIX_Mcast_stats st;
    CHECK_MPI(MPIX_Mcast_get_stats(&st));
    if (rank == root && size > 1)
      CHECK(st.sent_packets > 0, "multicast not in use (no datagram sent)");
    CHECK_MPI(MPI_Comm_free(&c));
  }

  int counts[64] = {0}, displs[64] = {0}, mine = -1;
  CHECK(size <= 64, "at most 64 ranks");
  for (int round = 0; round < 3; ++round) {
    MPI_Comm c = forced("bcast", "mcast");
    if (rank == root) usleep(late);
    CHECK_MPI(MPI_Bcast(&mine, 0, MPI_INT, root, c));
    CHECK_MPI(MPI_Comm_free(&c));

    c = forced("ibcast", "mcast");
    MPI_Request rq;
    if (rank == root) usleep(late);
    CHECK_MPI(MPI_Ibcast(&mine, 0, MPI_INT, root, c, &rq));
    CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Comm_free(&c));

    c = forced("scatter", "mcast");
    if (rank == root) usleep(late);
    CHECK_MPI(MPI_Scatter(NULL, 0, MPI_INT, &mine, 0, MPI_INT, root, c));
    CHECK_MPI(MPI_Comm_free(&c));

    const char* scatterv[] = {"mcast", "mcast_dynamic"};
    for (int k = 0; k < 2; ++k) {
      c = forced("scatterv", scatterv[k]);
      if (rank == root) usleep(late);
      CHECK_MPI(MPI_Scatterv(NULL, counts, displs, MPI_INT, &mine, 0, MPI_INT, root, c));
      CHECK_MPI(MPI_Comm_free(&c));
    }

    /* The group-owning Scatterv: nonblocking, and persistent started twice. */
    c = forced("iscatterv", "mcast_group");
    if (rank == root) usleep(late);
    CHECK_MPI(MPI_Iscatterv(NULL, counts, displs, MPI_INT, &mine, 0, MPI_INT, root, c, &rq));
    CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Scatterv_init(NULL, counts, displs, MPI_INT, &mine, 0, MPI_INT, root, c,
                                MPI_INFO_NULL, &rq));
    for (int s = 0; s < 2; ++s) {
      if (rank == root) usleep(late);
      CHECK_MPI(MPI_Start(&rq));
      CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    }
    CHECK_MPI(MPI_Request_free(&rq));
    CHECK_MPI(MPI_Comm_free(&c));
  }
  CHECK(mine == -1, "a receive of 0 elements wrote %d", mine);

  const double t0 = now();
  CHECK_MPI(MPI_Finalize());
  const double took = now() - t0;
  if (took > 10.0) {
    fprintf(stderr, "rank %d: MPI_Finalize took %.1f s (waiting for acknowledgements?)\n", rank,
            took);
    return 1;
  }
  if (rank == 0) printf("PASS mcast_empty\n");
  return 0;
}
