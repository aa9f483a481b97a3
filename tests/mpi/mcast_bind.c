/* The multicast socket listens on the job's interface only: every IPv4 UDP socket of the
 * rank (the multicast transport's) is bound to a device (SO_BINDTODEVICE), not open on
 * every interface of the host. */
#include <mpi.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, errors = 0, udp = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int fd = 0; fd < 4096; ++fd) {
    int type = 0, domain = 0;
    socklen_t len = sizeof type;
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0 || type != SOCK_DGRAM) continue;
    len = sizeof domain;
    if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) != 0 || domain != AF_INET) continue;
    ++udp;
    char dev[64] = "";
    len = sizeof dev;
    if (getsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, dev, &len) != 0 || dev[0] == 0) {
      fprintf(stderr, "rank %d: UDP socket fd %d is not bound to an interface\n", rank, fd);
      ++errors;
    }
  }
  if (udp == 0 && size > 1) { /* one rank alone opens no multicast socket */
    fprintf(stderr, "rank %d: no UDP socket (multicast unavailable?)\n", rank);
    ++errors;
  }
  int total = 0;
  MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf(total ? "FAIL mcast_bind\n" : "PASS mcast_bind\n");
  MPI_Finalize();
  return total != 0;
}
