/* Nonblocking and persistent multicast collectives (CCMPI_IBCAST_ALGORITHM=mcast,
 * CCMPI_ISCATTERV_ALGORITHM=mcast_group), every byte checked:
 *   - MPI_Ibcast from every root, sizes around the fragment size and large ones, with
 *     point-to-point traffic and MPI_Test polling while it runs, and a derived type;
 *   - MPI_Bcast_init started many times with new data each time, two such requests from
 *     different roots started together (MPI_Startall), and a blocking multicast MPI_Bcast
 *     between starts;
 *   - MPI_Scatterv_init to a subset of the ranks (the request owns a multicast group of
 *     its members), blocks of several sizes, started many times: non-members take part in
 *     no round and their buffers stay untouched; MPI_Iscatterv with the same algorithm;
 *   - the first multicast operation of the job is a nonblocking one, so the communicator's
 *     multicast agreement runs as a schedule.
 * argv[1] = "on": multicast must have been used (the communicator's group exists and the
 * counters show datagrams); "off": multicast unavailable, the same results over TCP.
 * argv[2] = rounds of the persistent loops (default 100). */
#include <mpix_ccmpi.h>
#include <string.h>

#include "check.h"

static int rank, size;

static unsigned char pattern(long i, int a, int b) {
  return (unsigned char)((i * 131 + a * 17 + b * 7 + (i >> 9)) & 0xff);
}

static void check_bytes(const unsigned char* p, long n, int a, int b, const char* what) {
  for (long i = 0; i < n; ++i)
    CHECK(p[i] == pattern(i, a, b), "%s: byte %ld of %ld is %u (%d, %d)", what, i, n, p[i], a, b);
}

static void ibcast_overlap(long n, int root, int round) {
  unsigned char* buf = malloc((size_t)n + 1);
  for (long i = 0; i < n; ++i) buf[i] = rank == root ? pattern(i, root, round) : 0xEE;
  buf[n] = 0x5A;
  MPI_Request req;
  CHECK_MPI(MPI_Ibcast(buf, (int)n, MPI_BYTE, root, MPI_COMM_WORLD, &req));
  /* Other traffic while the broadcast runs: a ring exchange, and polling. */
  int token = rank * 1000 + round, got = -1;
  CHECK_MPI(MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 5, &got, 1, MPI_INT,
                         (rank + size - 1) % size, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK(got == ((rank + size - 1) % size) * 1000 + round, "ring token %d", got);
  int flag = 0;
  for (int i = 0; i < 3 && !flag; ++i) CHECK_MPI(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
  if (!flag) CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  check_bytes(buf, n, root, round, "ibcast");
  CHECK(buf[n] == 0x5A, "ibcast wrote past the buffer");
  free(buf);
}

static void ibcast_vector(int round) {
  /* 3000 blocks of 3 ints, stride 5. */
  enum { kBlocks = 3000 };
  int* buf = malloc(sizeof(int) * kBlocks * 5);
  for (int i = 0; i < kBlocks * 5; ++i) buf[i] = rank == 1 % size ? i * 7 + round : -1;
  MPI_Datatype vec;
  CHECK_MPI(MPI_Type_vector(kBlocks, 3, 5, MPI_INT, &vec));
  CHECK_MPI(MPI_Type_commit(&vec));
  MPI_Request req;
  CHECK_MPI(MPI_Ibcast(buf, 1, vec, 1 % size, MPI_COMM_WORLD, &req));
  MPI_Type_free(&vec); /* allowed while the operation runs */
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  for (int b = 0; b < kBlocks; ++b)
    for (int k = 0; k < 5; ++k) {
      const int i = b * 5 + k;
      if (k < 3)
        CHECK(buf[i] == i * 7 + round, "vector ibcast element %d is %d", i, buf[i]);
      else if (rank != 1 % size)
        CHECK(buf[i] == -1, "vector ibcast wrote a gap at %d", i);
    }
  free(buf);
}

static void bcast_persistent(int rounds) {
  const long n1 = 70000, n2 = 3000;
  const int r1 = 0, r2 = size - 1;
  unsigned char* b1 = malloc((size_t)n1);
  unsigned char* b2 = malloc((size_t)n2);
  MPI_Request req[2];
  CHECK_MPI(MPI_Bcast_init(b1, (int)n1, MPI_BYTE, r1, MPI_COMM_WORLD, MPI_INFO_NULL, &req[0]));
  CHECK_MPI(MPI_Bcast_init(b2, (int)n2, MPI_BYTE, r2, MPI_COMM_WORLD, MPI_INFO_NULL, &req[1]));
  for (int round = 0; round < rounds; ++round) {
    for (long i = 0; i < n1; ++i) b1[i] = rank == r1 ? pattern(i, r1, round) : 0;
    for (long i = 0; i < n2; ++i) b2[i] = rank == r2 ? pattern(i, r2, round + 1) : 0;
    if (round % 3 == 0) {
      CHECK_MPI(MPI_Startall(2, req));
      CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    } else {
      CHECK_MPI(MPI_Start(&req[0]));
      CHECK_MPI(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
      CHECK_MPI(MPI_Start(&req[1]));
      CHECK_MPI(MPI_Wait(&req[1], MPI_STATUS_IGNORE));
    }
    check_bytes(b1, n1, r1, round, "bcast_init 1");
    check_bytes(b2, n2, r2, round + 1, "bcast_init 2");
    if (round % 10 == 5) {
      /* A blocking broadcast between starts (multicast too when forced). */
      unsigned char small[5000];
      for (int i = 0; i < 5000; ++i) small[i] = rank == 1 % size ? pattern(i, 99, round) : 0;
      CHECK_MPI(MPI_Bcast(small, 5000, MPI_BYTE, 1 % size, MPI_COMM_WORLD));
      check_bytes(small, 5000, 99, round, "blocking bcast");
    }
  }
  CHECK_MPI(MPI_Request_free(&req[0]));
  CHECK_MPI(MPI_Request_free(&req[1]));
  free(b1);
  free(b2);
}

/* Members: odd ranks and rank 2 (not the root 0); block of member i: 1000 * i + 37 ints. */
static int block_of(int i) {
  if (i == 0) return 11; /* the root's own block */
  return (i % 2 == 1 || i == 2) ? 1000 * i + 37 : 0;
}

static void scatterv_group(int rounds, int persistent) {
  const int root = 0;
  int* counts = NULL;
  int* displs = NULL;
  int* sendbuf = NULL;
  long total = 0;
  if (rank == root) {
    counts = malloc(sizeof(int) * (size_t)size);
    displs = malloc(sizeof(int) * (size_t)size);
    for (int i = 0; i < size; ++i) {
      counts[i] = block_of(i);
      displs[i] = (int)total + 3 * i; /* gaps between the blocks */
      total = displs[i] + counts[i];
    }
    sendbuf = malloc(sizeof(int) * (size_t)total);
  }
  const int mine = block_of(rank);
  int* recvbuf = malloc(sizeof(int) * (size_t)(mine + 1));
  MPI_Request req;
  if (persistent)
    CHECK_MPI(MPI_Scatterv_init(sendbuf, counts, displs, MPI_INT, recvbuf, mine, MPI_INT, root,
                                MPI_COMM_WORLD, MPI_INFO_NULL, &req));
  for (int round = 0; round < rounds; ++round) {
    if (rank == root)
      for (int i = 0; i < size; ++i)
        for (int k = 0; k < counts[i]; ++k) sendbuf[displs[i] + k] = i * 100000 + k * 3 + round;
    for (int k = 0; k <= mine; ++k) recvbuf[k] = -7;
    if (persistent) {
      CHECK_MPI(MPI_Start(&req));
    } else {
      CHECK_MPI(MPI_Iscatterv(sendbuf, counts, displs, MPI_INT, recvbuf, mine, MPI_INT, root,
                              MPI_COMM_WORLD, &req));
    }
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int k = 0; k < mine; ++k)
      CHECK(recvbuf[k] == rank * 100000 + k * 3 + round, "scatterv element %d of %d is %d", k, mine,
            recvbuf[k]);
    CHECK(recvbuf[mine] == -7, "scatterv wrote past the block");
  }
  if (persistent) CHECK_MPI(MPI_Request_free(&req));
  free(recvbuf);
  free(counts);
  free(displs);
  free(sendbuf);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int expect_on = argc < 2 || strcmp(argv[1], "off") != 0;
  const int rounds = argc > 2 ? atoi(argv[2]) : 100;

  /* The job's first multicast operation is nonblocking: the agreement runs as a schedule. */
  ibcast_overlap(100000, 0, 0);
  char addr[32];
  int port = 0;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int have = MPIX_Comm_get_mcast_group(MPI_COMM_WORLD, addr, &port) == MPI_SUCCESS;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  if (size > 1) CHECK(have == expect_on, "multicast group on MPI_COMM_WORLD: %d", have);

  const long sizes[] = {1, 1000, 1392, 1393, 5000, 262147};
  for (int s = 0; s < 6; ++s)
    for (int root = 0; root < size; ++root) ibcast_overlap(sizes[s], root, s * 10 + root);
  for (int round = 0; round < 3; ++round) ibcast_vector(round);
  /* Several at once, completed in another order than started. */
  {
    enum { kN = 4, kLen = 20000 };
    unsigned char* b[kN];
    MPI_Request req[kN];
    for (int k = 0; k < kN; ++k) {
      b[k] = malloc(kLen);
      for (int i = 0; i < kLen; ++i) b[k][i] = rank == k % size ? pattern(i, k, 55) : 0;
      CHECK_MPI(MPI_Ibcast(b[k], kLen, MPI_BYTE, k % size, MPI_COMM_WORLD, &req[k]));
    }
    for (int k = kN - 1; k >= 0; --k) CHECK_MPI(MPI_Wait(&req[k], MPI_STATUS_IGNORE));
    for (int k = 0; k < kN; ++k) {
      check_bytes(b[k], kLen, k, 55, "concurrent ibcast");
      free(b[k]);
    }
  }
  bcast_persistent(rounds);
  scatterv_group(rounds, 1);
  scatterv_group(rounds / 10 + 1, 0);

  MPIX_Mcast_stats st;
  CHECK_MPI(MPIX_Mcast_get_stats(&st));
  if (size > 1 && expect_on)
    CHECK(st.sent_packets + st.recv_packets > 0, "no multicast datagram sent or received");
  test_pass("mcast_nb");
  MPI_Finalize();
  return 0;
}
