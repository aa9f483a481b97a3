/* Multicast Scatterv, one root to a few of the ranks, with the three group management
 * schemes of CC-MPI: static (CCMPI_SCATTERV_ALGORITHM=mcast), dynamic (mcast_dynamic) and
 * compiler-assisted (MPIX_Scatterv_open_group / _data_movement / _close_group), each
 * checked bit for bit over many iterations. With the MPIX calls only the root and the
 * members take part: the other ranks must not even receive a datagram of the group.
 * argv[1] = iterations of each loop; argv[2] = "lossy" on a network that loses packets. */
#include <mpix_ccmpi.h>
#include <string.h>

#include "check.h"

static int rank, size;

static int value(int dest, int k, int i) {
  return dest * 1000003 + k * 7919 + i;
}

/* Counts: ranks 1, 3, 4 (those that exist, not the root) get blocks of different sizes. */
static int count_for(int r, int root, int base) {
  if (r == root) return base / 2;
  return (r == 1 || r == 3 || r == 4) ? base + r * 17 : 0;
}

static void run_scatterv(int root, int base, int k, MPIX_Mcast_group g) {
  int* counts = malloc(sizeof(int) * (size_t)size);
  int* displs = malloc(sizeof(int) * (size_t)size);
  int total = 0;
  for (int r = 0; r < size; ++r) {
    counts[r] = count_for(r, root, base);
    displs[r] = total + 3; /* gaps between blocks */
    total += counts[r] + 3;
  }
  int* send = NULL;
  if (rank == root) {
    send = malloc(sizeof(int) * (size_t)(total + 1));
    for (int r = 0; r < size; ++r)
      for (int i = 0; i < counts[r]; ++i) send[displs[r] + i] = value(r, k, i);
  }
  const int mine = counts[rank];
  int* recv = malloc(sizeof(int) * (size_t)(mine + 2));
  for (int i = 0; i < mine + 2; ++i) recv[i] = -7;
  if (g == MPIX_MCAST_GROUP_NULL) {
    CHECK_MPI(
        MPI_Scatterv(send, counts, displs, MPI_INT, recv, mine, MPI_INT, root, MPI_COMM_WORLD));
  } else if (rank == root || mine > 0) {
    CHECK_MPI(MPIX_Scatterv_data_movement(send, counts, displs, MPI_INT, recv, mine, MPI_INT, g));
  }
  for (int i = 0; i < mine; ++i)
    CHECK(recv[i] == value(rank, k, i), "element %d of %d, iteration %d", i, mine, k);
  CHECK(recv[mine] == -7 && recv[mine + 1] == -7, "wrote past the block");
  free(send);
  free(recv);
  free(counts);
  free(displs);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iters = argc > 1 ? atoi(argv[1]) : 100;
  /* On a lossy network a member's group join (IGMP) can be lost: it then gets its data
   * by repair only, correctly but not by multicast. */
  const int lossy = argc > 2 && strcmp(argv[2], "lossy") == 0;
  const int root = size > 2 ? 2 : 0;

  /* Static and dynamic schemes, through MPI_Scatterv. */
  const char* algs[] = {"mcast", "mcast_dynamic"};
  for (int a = 0; a < 2; ++a) {
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "ccmpi_scatterv_algorithm", algs[a]);
    MPI_Comm_set_info(MPI_COMM_WORLD, info);
    MPI_Info_free(&info);
    for (int k = 0; k < iters / 4 + 1; ++k)
      run_scatterv(root, k % 2 ? 300 : 5, k, MPIX_MCAST_GROUP_NULL);
  }

  /* Compiler-assisted: the group once, many data movements, only members involved. */
  const char* data_mode = getenv("CCMPI_MPIX_SCATTERV_DATA");
  if (!data_mode || !*data_mode) data_mode = "auto";
  MPI_Barrier(MPI_COMM_WORLD);
  MPIX_Mcast_stats before, after;
  CHECK_MPI(MPIX_Mcast_get_stats(&before));
  for (int base = 5; base <= 3000; base *= 20) {
    int* counts = malloc(sizeof(int) * (size_t)size);
    for (int r = 0; r < size; ++r) counts[r] = count_for(r, root, base);
    MPIX_Mcast_group g = MPIX_MCAST_GROUP_NULL;
    CHECK_MPI(
        MPIX_Scatterv_open_group(counts, MPI_INT, counts[rank], MPI_INT, root, MPI_COMM_WORLD, &g));
    CHECK(g != MPIX_MCAST_GROUP_NULL, "no group handle");
    MPI_Barrier(MPI_COMM_WORLD);
    MPIX_Mcast_stats mid0;
    CHECK_MPI(MPIX_Mcast_get_stats(&mid0));
    for (int k = 0; k < iters; ++k) run_scatterv(root, base, k, g);
    MPIX_Mcast_stats mid1;
    CHECK_MPI(MPIX_Mcast_get_stats(&mid1));
    if (size > 1 && rank != root && counts[rank] == 0)
      CHECK(mid1.recv_packets == mid0.recv_packets,
            "a rank outside the group received %llu datagrams of it",
            mid1.recv_packets - mid0.recv_packets);
    /* The data go by multicast when CCMPI_MPIX_SCATTERV_DATA says mcast, by TCP when it
     * says tcp; auto takes the way that puts fewer bytes on the root's cable: TCP for
     * blocks of 8 KB, multicast for three blocks of 88-292 bytes (one datagram instead
     * of three TCP segments). Only the root's sent datagrams are a clean signal (a member
     * may still read late datagrams of the opening). */
    int by_tcp = -1; /* -1: not checked */
    if (!strcmp(data_mode, "tcp"))
      by_tcp = 1;
    else if (!strcmp(data_mode, "mcast"))
      by_tcp = 0;
    else if (base >= 2000)
      by_tcp = 1;
    else if (base == 5 && size >= 5)
      by_tcp = 0;
    if (size > 1 && rank == root && by_tcp == 1)
      CHECK(mid1.sent_packets == mid0.sent_packets,
            "blocks of %d ints went by multicast (CCMPI_MPIX_SCATTERV_DATA=%s): %llu datagrams",
            counts[1], data_mode, mid1.sent_packets - mid0.sent_packets);
    if (size > 1 && rank == root && by_tcp == 0 && iters > 0)
      CHECK(mid1.sent_packets > mid0.sent_packets,
            "blocks of %d ints did not go by multicast (CCMPI_MPIX_SCATTERV_DATA=%s)", counts[1],
            data_mode);
    if (size > 1 && rank != root && counts[rank] > 0 && !lossy && by_tcp == 0)
      CHECK(mid1.recv_packets > mid0.recv_packets, "a member received nothing by multicast");
    CHECK_MPI(MPIX_Scatterv_close_group(&g));
    CHECK(g == MPIX_MCAST_GROUP_NULL, "close did not reset the handle");
    free(counts);
  }
  CHECK_MPI(MPIX_Mcast_get_stats(&after));

  /* Errors: a data movement with other counts than at open is refused. */
  if (size > 1) {
    int* counts = malloc(sizeof(int) * (size_t)size);
    int* displs = calloc((size_t)size, sizeof(int));
    for (int r = 0; r < size; ++r) counts[r] = count_for(r, root, 5);
    MPIX_Mcast_group g = MPIX_MCAST_GROUP_NULL;
    CHECK_MPI(
        MPIX_Scatterv_open_group(counts, MPI_INT, counts[rank], MPI_INT, root, MPI_COMM_WORLD, &g));
    if (rank == root) {
      MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
      counts[root == 1 ? 3 : 1] += 1;
      int buf[4000];
      const int rc =
          MPIX_Scatterv_data_movement(buf, counts, displs, MPI_INT, MPI_IN_PLACE, 0, MPI_INT, g);
      int cls = 0;
      MPI_Error_class(rc, &cls);
      CHECK(cls == MPI_ERR_ARG, "changed counts gave class %d", cls);
      MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    }
    CHECK_MPI(MPIX_Scatterv_close_group(&g));
    free(counts);
    free(displs);
  }
  if (rank == 0) printf("%d iterations per scheme\n", iters);
  test_pass("mcast_scatterv");
  MPI_Finalize();
  return 0;
}
