/* Multicast broadcast (CCMPI_BCAST_ALGORITHM=mcast), checked bit for bit, with proof
 * from the counters that the data really travelled by multicast:
 *   - every size around the fragment size, every root, a derived type, sub-communicators;
 *   - argv[1] = "loss": the run sets CCMPI_MCAST_TEST_DROP, so receivers drop datagrams
 *     on arrival: every byte must still arrive (repairs over TCP) and repairs must have
 *     happened; argv[2] = number of broadcasts of the loss loop; argv[3] = "scatter": each
 *     round also checks an MPI_Scatter (multicast with CCMPI_SCATTER_ALGORITHM=mcast);
 *   - argv[1] = "forge": a forked process on rank 0 joins the job's group, records real
 *     datagrams, and while the ranks broadcast it sends replays, bit-flipped copies,
 *     copies claiming another job, copies with a recomputed wrong MAC and random junk to
 *     the group: every rank must still receive exactly the root's bytes, and the ranks
 *     must have dropped the forgeries (counted as stale/duplicate, unauthenticated,
 *     foreign or malformed);
 *   - argv[1] = "churn", argv[2] = rounds: each round duplicates MPI_COMM_WORLD, broadcasts
 *     three 64 KiB messages on the copy by multicast and frees it, so the next copy gets
 *     the same context id (and multicast group): run where the network duplicates and
 *     reorders, a late datagram of an earlier copy must not be taken for the new one's
 *     message with the same numbers (their epochs differ).
 * Exits non-zero on any mismatch. */
#include <arpa/inet.h>
#include <mpix_ccmpi.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static int rank, size;

static unsigned char pattern(long i, int root, int round) {
  return (unsigned char)((i * 131 + root * 17 + round * 7 + (i >> 9)) & 0xff);
}

static void bcast_check(MPI_Comm comm, long n, int root, int round) {
  int r, s;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &s);
  unsigned char* buf = malloc((size_t)n + 1);
  for (long i = 0; i < n; ++i) buf[i] = r == root ? pattern(i, root, round) : 0xEE;
  buf[n] = 0x5A;
  CHECK_MPI(MPI_Bcast(buf, (int)n, MPI_BYTE, root, comm));
  for (long i = 0; i < n; ++i)
    CHECK(buf[i] == pattern(i, root, round), "byte %ld of %ld (root %d round %d)", i, n, root,
          round);
  CHECK(buf[n] == 0x5A, "byte past the message changed");
  free(buf);
}

/* MPI_Scatter of `block` bytes per rank; with CCMPI_SCATTER_ALGORITHM=mcast one
 * aggregated multicast from which every rank keeps its block. */
static void scatter_check(MPI_Comm comm, long block, int root, int round) {
  int r, s;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &s);
  unsigned char* all = NULL;
  if (r == root) {
    all = malloc((size_t)(block * s));
    for (long i = 0; i < block * s; ++i) all[i] = pattern(i, root, round);
  }
  unsigned char* mine = malloc((size_t)block + 1);
  memset(mine, 0xEE, (size_t)block);
  mine[block] = 0x5A;
  CHECK_MPI(MPI_Scatter(all, (int)block, MPI_BYTE, mine, (int)block, MPI_BYTE, root, comm));
  for (long i = 0; i < block; ++i)
    CHECK(mine[i] == pattern(r * block + i, root, round),
          "scatter byte %ld of %ld (root %d round %d)", i, block, root, round);
  CHECK(mine[block] == 0x5A, "byte past the scattered block changed");
  free(mine);
  free(all);
}

static MPIX_Mcast_stats stats(void) {
  MPIX_Mcast_stats s;
  CHECK_MPI(MPIX_Mcast_get_stats(&s));
  return s;
}

/* ---- the forger (a child process of rank 0) ---- */
static void forger(const char* addr, int port, double seconds) {
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
  struct sockaddr_in sa;
  memset(&sa, 0, sizeof sa);
  sa.sin_family = AF_INET;
  sa.sin_port = htons((uint16_t)port);
  sa.sin_addr.s_addr = htonl(INADDR_ANY);
  if (bind(fd, (struct sockaddr*)&sa, sizeof sa) != 0) _exit(2);
  struct ip_mreq m;
  inet_pton(AF_INET, addr, &m.imr_multiaddr);
  m.imr_interface.s_addr = htonl(INADDR_LOOPBACK);
  if (setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &m, sizeof m) != 0) _exit(3);
  struct in_addr ifa;
  ifa.s_addr = htonl(INADDR_LOOPBACK);
  setsockopt(fd, IPPROTO_IP, IP_MULTICAST_IF, &ifa, sizeof ifa);
  struct timeval tv = {0, 200000};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  sa.sin_addr = m.imr_multiaddr;
  static unsigned char rec[64][1600];
  static ssize_t len[64];
  int have = 0;
  uint64_t x = 0x1234567;
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (long k = 0;; ++k) {
    clock_gettime(CLOCK_MONOTONIC, &t);
    if ((double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec) > seconds) break;
    if (have < 64) {
      ssize_t n = recv(fd, rec[have], sizeof rec[have], 0);
      if (n > 0) len[have++] = n;
      continue;
    }
    unsigned char pkt[1600];
    int i = (int)(k % 64);
    ssize_t n = len[i];
    memcpy(pkt, rec[i], (size_t)n);
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    switch (k % 5) {
      case 0: /* replay as is */
        break;
      case 1: /* flip a payload or header bit */
        pkt[16 + x % (uint64_t)(n - 16)] ^= (unsigned char)(1u << (x % 8));
        break;
      case 2: /* another job */
        pkt[8] ^= 0xFF;
        break;
      case 3: /* a future collective, MAC forged */
        pkt[24] += 3;
        memcpy(pkt + n - 8, &x, 8);
        break;
      default: /* junk */
        for (ssize_t j = 0; j < n; ++j) pkt[j] = (unsigned char)(x >> (j % 56));
        break;
    }
    sendto(fd, pkt, (size_t)n, 0, (struct sockaddr*)&sa, sizeof sa);
    if (k % 64 == 0) usleep(200);
  }
  _exit(0);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* mode = argc > 1 ? argv[1] : "basic";
  const MPIX_Mcast_stats s0 = stats();
  CHECK(size == 1 || s0.available, "multicast unavailable on this rank");

  /* Sizes around the fragment payload (MTU 1500: 1500-28-64-8 = 1400 bytes). */
  const long sizes[] = {1, 2, 1399, 1400, 1401, 2800, 2801, 65536, 100003, 1 << 20};
  const int nsizes = (int)(sizeof sizes / sizeof sizes[0]);
  for (int i = 0; i < nsizes; ++i)
    for (int root = 0; root < size; root += (size > 4 ? 3 : 1))
      bcast_check(MPI_COMM_WORLD, sizes[i], root, i);

  /* A derived type: every other int of an array. */
  {
    int a[2000];
    MPI_Datatype every2;
    MPI_Type_vector(1000, 1, 2, MPI_INT, &every2);
    MPI_Type_commit(&every2);
    for (int i = 0; i < 2000; ++i) a[i] = rank == size - 1 ? i * 3 : -1;
    CHECK_MPI(MPI_Bcast(a, 1, every2, size - 1, MPI_COMM_WORLD));
    for (int i = 0; i < 2000; ++i)
      CHECK(a[i] == (i % 2 == 0 || rank == size - 1 ? i * 3 : -1), "derived element %d", i);
    MPI_Type_free(&every2);
  }

  /* Sub-communicators: each has its own group and sequence. */
  if (size >= 3) {
    MPI_Comm half;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half));
    for (int k = 0; k < 5; ++k) bcast_check(half, 5000 + k, 0, 100 + k);
    bcast_check(MPI_COMM_WORLD, 3000, 1, 200);
    MPI_Comm_free(&half);
  }

  if (strcmp(mode, "loss") == 0) {
    const int rounds = argc > 2 ? atoi(argv[2]) : 500;
    const int with_scatter = argc > 3 && strcmp(argv[3], "scatter") == 0;
    for (int k = 0; k < rounds; ++k) {
      const long n = (k % 7 == 0) ? 30000 : (k % 3 == 0) ? 1401 : 700;
      bcast_check(MPI_COMM_WORLD, n, k % size, k);
      if (with_scatter) scatter_check(MPI_COMM_WORLD, (k % 5 == 0) ? 7001 : 350, (k + 1) % size, k);
    }
  }

  if (strcmp(mode, "churn") == 0) {
    const int rounds = argc > 2 ? atoi(argv[2]) : 150;
    for (int k = 0; k < rounds; ++k) {
      MPI_Comm c;
      CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
      for (int j = 0; j < 3; ++j) bcast_check(c, 65536, 0, 3 * k + j);
      if (k == 0 && size > 1) {
        char addr[32];
        int port = 0;
        CHECK(MPIX_Comm_get_mcast_group(c, addr, &port) == MPI_SUCCESS,
              "multicast is off on the duplicate");
      }
      CHECK_MPI(MPI_Comm_free(&c));
    }
  }

  pid_t child = -1;
  if (strcmp(mode, "forge") == 0) {
    char addr[32];
    int port = 0;
    CHECK_MPI(MPIX_Comm_get_mcast_group(MPI_COMM_WORLD, addr, &port));
    if (rank == 0) {
      child = fork();
      CHECK(child >= 0, "fork");
      if (child == 0) forger(addr, port, 6.0);
    }
    /* The forger records from this traffic, then forges during the rest. */
    for (int k = 0; k < 400; ++k) bcast_check(MPI_COMM_WORLD, (k % 4 == 0) ? 20000 : 3000, 0, k);
    for (int k = 0; k < 300; ++k) bcast_check(MPI_COMM_WORLD, 3000 + k, k % size, k);
  }

  const MPIX_Mcast_stats s = stats();
  unsigned long long mine[6] = {s.recv_packets - s0.recv_packets,
                                s.naks_sent,
                                s.repair_bytes_received,
                                s.drop_auth + s.drop_foreign + s.drop_malformed,
                                s.drop_stale + s.drop_duplicate + s.drop_ahead,
                                s.sent_packets};
  unsigned long long sum[6];
  CHECK_MPI(MPI_Allreduce(mine, sum, 6, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
  if (size > 1) {
    CHECK(s.recv_packets > 0 && sum[5] > 0, "rank received %llu datagrams, all sent %llu",
          s.recv_packets, sum[5]);
    CHECK(s.drop_injected == 0 || strcmp(mode, "loss") == 0, "datagrams dropped on purpose");
  }
  if (strcmp(mode, "loss") == 0 && size > 1) {
    CHECK(sum[1] > 0 && sum[2] > 0, "no repair happened under loss (naks %llu, bytes %llu)", sum[1],
          sum[2]);
    /* The data went by multicast: the job-wide group works (a probe lost to the loss would
     * have switched the communicator to unicast, and every byte would still be right), and
     * the receivers got at least one datagram per round between them. */
    const int rounds = argc > 2 ? atoi(argv[2]) : 500;
    char addr[32];
    int port = 0;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(MPIX_Comm_get_mcast_group(MPI_COMM_WORLD, addr, &port) == MPI_SUCCESS,
          "multicast was switched off on MPI_COMM_WORLD under loss");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    CHECK(sum[0] >= (unsigned long long)rounds, "only %llu datagrams received in %d rounds", sum[0],
          rounds);
  }
  if (child > 0) {
    int st = 0;
    kill(child, SIGTERM);
    waitpid(child, &st, 0);
    CHECK(sum[3] > 0, "no forged datagram was rejected (%llu)", sum[3]);
  }
  if (rank == 0)
    printf(
        "%s: datagrams %llu received, naks %llu, repaired %llu bytes, rejected %llu forged, "
        "%llu stale/duplicate\n",
        mode, sum[0], sum[1], sum[2], sum[3], sum[4]);
  test_pass("mcast_bcast");
  MPI_Finalize();
  return 0;
}
