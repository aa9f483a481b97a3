/* Connections that never authenticate (run with CCMPI_SHM=0, so the ranks talk TCP, and
 * CCMPI_TCP_HANDSHAKE_TIMEOUT=1; 3 ranks): rank 0 opens kIntruders idle connections to
 * rank 1's listener (found through /proc), then rank 2, which has not talked to rank 1 yet,
 * exchanges messages with it: its connection comes through that listener. Checks:
 *  - the exchange is not held up (rank 1 keeps at most max(64, 2 x ranks) of them waiting
 *    and closes the oldest for a new one, so the job's own connection gets through);
 *  - rank 1 holds few descriptors while they wait;
 *  - after the handshake timeout every intruding connection has been closed by rank 1;
 *  - rank 1 reports at most a handful of lines about them on its stderr (captured here). */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <mpi.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"

enum { kIntruders = 300 };

/* The port of a listening TCP socket of this process (0 if none). */
static int own_listening_port(void) {
  unsigned long inodes[256];
  int n = 0;
  DIR* d = opendir("/proc/self/fd");
  CHECK(d != NULL, "opendir /proc/self/fd");
  struct dirent* e;
  while ((e = readdir(d)) && n < 256) {
    char path[300], link[64];
    snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
    const ssize_t len = readlink(path, link, sizeof link - 1);
    if (len <= 0) continue;
    link[len] = 0;
    unsigned long ino;
    if (sscanf(link, "socket:[%lu]", &ino) == 1) inodes[n++] = ino;
  }
  closedir(d);
  FILE* f = fopen("/proc/self/net/tcp", "r");
  CHECK(f != NULL, "open /proc/self/net/tcp");
  char line[512];
  int port = 0;
  CHECK(fgets(line, sizeof line, f) != NULL, "empty /proc/net/tcp");
  while (fgets(line, sizeof line, f)) {
    unsigned addr, lport, st;
    unsigned long ino;
    if (sscanf(line, " %*d: %x:%x %*x:%*x %x %*s %*s %*s %*d %*d %lu", &addr, &lport, &st, &ino) !=
        4)
      continue;
    if (st != 0x0A) continue; /* LISTEN */
    for (int i = 0; i < n; ++i)
      if (inodes[i] == ino) port = (int)lport;
  }
  fclose(f);
  return port;
}

static int open_fds(void) {
  int n = 0;
  DIR* d = opendir("/proc/self/fd");
  while (d && readdir(d)) ++n;
  if (d) closedir(d);
  return n - 3; /* ".", "..", and the directory's own descriptor */
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size == 3, "run with 3 ranks");
  char errlog[64] = "";
  int port = 0;
  if (rank == 1) {
    port = own_listening_port();
    CHECK(port > 0, "rank 1 has no listening TCP socket (run with CCMPI_SHM=0)");
    /* Rank 1's stderr goes to a file from here on, to count what it says. */
    snprintf(errlog, sizeof errlog, "/tmp/ccmpi-intruders-%d.log", (int)getpid());
    fflush(stderr);
    FILE* ef = freopen(errlog, "w", stderr);
    CHECK(ef != NULL, "freopen %s", errlog);
    CHECK_MPI(MPI_Send(&port, 1, MPI_INT, 0, 1, MPI_COMM_WORLD));
  } else if (rank == 0) {
    CHECK_MPI(MPI_Recv(&port, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  }
  int socks[kIntruders];
  if (rank == 0) {
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    for (int i = 0; i < kIntruders; ++i) {
      socks[i] = socket(AF_INET, SOCK_STREAM, 0);
      CHECK(socks[i] >= 0, "socket: %s", strerror(errno));
      CHECK(connect(socks[i], (struct sockaddr*)&sa, sizeof sa) == 0, "connect %d: %s", i,
            strerror(errno));
    }
    const int go = 1;
    CHECK_MPI(MPI_Send(&go, 1, MPI_INT, 2, 3, MPI_COMM_WORLD));
  }
  /* The job's traffic meanwhile: rank 2 connects to rank 1 through the crowded listener. */
  int fds_while = 0;
  if (rank == 2) {
    int go = 0;
    CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  }
  if (rank >= 1) {
    const double t0 = MPI_Wtime();
    for (int i = 0; i < 50; ++i) {
      int v = i, w = -1;
      const int other = 3 - rank;
      CHECK_MPI(MPI_Sendrecv(&v, 1, MPI_INT, other, 2, &w, 1, MPI_INT, other, 2, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE));
      CHECK(w == i, "exchange %d got %d", i, w);
    }
    const double took = MPI_Wtime() - t0;
    CHECK(took < 2.0, "50 exchanges took %.2f s while intruders held connections", took);
  }
  if (rank == 1) {
    /* Let the listener see every intruder, then count descriptors. */
    const double until = MPI_Wtime() + 0.3;
    while (MPI_Wtime() < until) {
      int flag;
      MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    }
    fds_while = open_fds();
    CHECK(fds_while < 64 + 40, "rank 1 holds %d descriptors with %d intruders", fds_while,
          kIntruders);
    /* Past the handshake timeout (1 s): every intruder is closed. */
    const double until2 = MPI_Wtime() + 2.5;
    while (MPI_Wtime() < until2) {
      int flag;
      MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    }
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) {
    int closed = 0;
    char buf[4096];
    for (int i = 0; i < kIntruders; ++i) {
      /* Read the challenge rank 1 sent, then expect the end of the stream. */
      for (;;) {
        const ssize_t r = recv(socks[i], buf, sizeof buf, MSG_DONTWAIT);
        if (r > 0) continue;
        if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) ++closed;
        break;
      }
      close(socks[i]);
    }
    CHECK(closed == kIntruders, "%d of %d intruding connections closed by rank 1", closed,
          kIntruders);
  }
  if (rank == 1) {
    fflush(stderr);
    FILE* f = fopen(errlog, "r");
    CHECK(f != NULL, "reopen %s", errlog);
    char line[512];
    int lines = 0;
    while (fgets(line, sizeof line, f))
      if (strstr(line, "unauthenticated")) ++lines;
    fclose(f);
    unlink(errlog);
    CHECK(lines >= 1 && lines <= 6, "%d lines about dropped connections", lines);
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  test_pass("tcp_intruders");
  MPI_Finalize();
  return 0;
}
