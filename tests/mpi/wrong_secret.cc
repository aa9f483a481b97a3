// A TCP connection that does not prove the job secret is closed before anything it
// sends reaches the matching engine: rank 1 connects to rank 0's listener like an
// intruder (wrong MAC), sends a well-formed message frame after its hello, and checks
// that rank 0 closes the connection; rank 0 checks that the frame never matched and
// that the rejection was counted. Then the job communicates normally.
#include <arpa/inet.h>
#include <mpi.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "runtime/runtime.h"
#include "transport/frame.h"
#include "transport/tcp.h"

using namespace ccmpi::transport;

#define CHECK(c, msg)                                                           \
  do {                                                                          \
    if (!(c)) {                                                                 \
      fprintf(stderr, "CHECK failed at line %d: %s (%s)\n", __LINE__, #c, msg); \
      MPI_Abort(MPI_COMM_WORLD, 3);                                             \
    }                                                                           \
  } while (0)

static bool readFull(int fd, void* buf, size_t n) {
  size_t got = 0;
  while (got < n) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 5000) <= 0) return false;
    ssize_t r = read(fd, static_cast<char*>(buf) + got, n - got);
    if (r <= 0) return false;
    got += r;
  }
  return true;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2, "needs 2 ranks");
  char addr[64] = {0};
  if (rank == 0)
    snprintf(addr, sizeof addr, "%s", ccmpi::runtime::tcpTransport().address().c_str());
  MPI_Bcast(addr, sizeof addr, MPI_CHAR, 0, MPI_COMM_WORLD);
  const int kIntruderTag = 4242;
  if (rank == 1) {
    std::string a(addr);
    const size_t colon = a.rfind(':');
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    inet_pton(AF_INET, a.substr(0, colon).c_str(), &sa.sin_addr);
    sa.sin_port = htons(static_cast<uint16_t>(atoi(a.c_str() + colon + 1)));
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) == 0, "connect");
    unsigned char buf[kHeaderBytes];
    CHECK(readFull(fd, buf, sizeof buf), "challenge");
    FrameHeader hello;
    hello.type = FrameType::kHello;
    hello.src = 1;
    hello.a = 0x0123456789abcdefull;  // not the MAC of the challenge under the job secret
    hello.b = 7;
    unsigned char out[2 * kHeaderBytes + 4];
    encodeHeader(hello, out);
    FrameHeader msg;
    msg.type = FrameType::kEager;
    msg.src = 1;
    msg.context = 0;
    msg.tag = kIntruderTag;
    msg.msgSize = 4;
    msg.payloadLen = 4;
    encodeHeader(msg, out + kHeaderBytes);
    memcpy(out + 2 * kHeaderBytes, "evil", 4);
    CHECK(write(fd, out, sizeof out) == static_cast<ssize_t>(sizeof out), "write");
    // The acceptor must close the connection without answering.
    unsigned char reply[kHeaderBytes];
    pollfd p{fd, POLLIN, 0};
    CHECK(poll(&p, 1, 5000) == 1, "no reaction to a bad hello");
    CHECK(read(fd, reply, sizeof reply) <= 0, "acceptor answered an unauthenticated hello");
    close(fd);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    int flag = 1;
    for (int i = 0; i < 1000; ++i)
      MPI_Iprobe(MPI_ANY_SOURCE, kIntruderTag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    CHECK(!flag, "the intruder's frame reached the matching engine");
    CHECK(ccmpi::runtime::tcpTransport().connectionsRejected() >= 1, "rejection not counted");
  }
  // Real traffic still flows.
  int v = rank, w = -1;
  MPI_Sendrecv(&v, 1, MPI_INT, (rank + 1) % size, 1, &w, 1, MPI_INT, (rank + size - 1) % size, 1,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CHECK(w == (rank + size - 1) % size, "ring after intrusion");
  if (rank == 0) printf("PASS wrong_secret\n");
  MPI_Finalize();
  return 0;
}
