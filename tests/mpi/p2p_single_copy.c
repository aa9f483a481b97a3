/* Rendezvous messages between ranks of one host, which the receiver reads straight from
 * the sender's buffer (single copy, transport/cma.h) when it may: every way a large
 * message meets its receive.
 *  - receive posted before the send, and after (the offer waits in the unexpected queue);
 *  - contiguous and non-contiguous (vector) receive buffers; a non-contiguous send
 *    (streamed, never offered);
 *  - MPI_Ssend, MPI_ANY_SOURCE, MPI_Mprobe/MPI_Mrecv, MPI_Sendrecv in a ring;
 *  - a receive buffer shorter than the message: MPI_ERR_TRUNCATE, the prefix delivered;
 *  - one send buffer rewritten between sends: each receive sees the values of its send.
 * Every byte is checked. Whether the reads happened is checked by the test's wrapper from
 * the CCMPI_P2P_STATS counters. */
#include <string.h>

#include "check.h"

enum { kMax = (3 << 20) + 5 };

static unsigned char pattern(size_t i, int seed) {
  return (unsigned char)(i * 131 + (size_t)seed * 17 + (i >> 9));
}
static void fill(unsigned char* b, size_t n, int seed) {
  for (size_t i = 0; i < n; ++i) b[i] = pattern(i, seed);
}
static void expect(const unsigned char* b, size_t n, int seed, const char* what) {
  for (size_t i = 0; i < n; ++i)
    CHECK(b[i] == pattern(i, seed), "%s: byte %zu of %zu is %u, expected %u", what, i, n, b[i],
          pattern(i, seed));
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2, "needs 2 ranks or more");
  unsigned char* sbuf = malloc(kMax);
  unsigned char* rbuf = malloc(3 * (size_t)kMax);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  const size_t sizes[] = {65537, 300001, 1 << 20, kMax};

  for (int s = 0; s < 4; ++s) {
    const size_t n = sizes[s];
    /* Receive posted first (the offer matches at once). */
    fill(sbuf, n, rank + s);
    memset(rbuf, 0xEE, n + 1);
    MPI_Request rq, sq;
    CHECK_MPI(MPI_Irecv(rbuf, (int)n, MPI_BYTE, left, 10, MPI_COMM_WORLD, &rq));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Isend(sbuf, (int)n, MPI_BYTE, right, 10, MPI_COMM_WORLD, &sq));
    MPI_Status st;
    CHECK_MPI(MPI_Wait(&rq, &st));
    CHECK_MPI(MPI_Wait(&sq, MPI_STATUS_IGNORE));
    int count = -1;
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(count == (int)n && st.MPI_SOURCE == left, "count %d source %d", count, st.MPI_SOURCE);
    expect(rbuf, n, left + s, "posted first");
    CHECK(rbuf[n] == 0xEE, "wrote past the message");

    /* Send first: the offer waits unexpected until the receive comes. */
    CHECK_MPI(MPI_Isend(sbuf, (int)n, MPI_BYTE, right, 11, MPI_COMM_WORLD, &sq));
    CHECK_MPI(MPI_Probe(left, 11, MPI_COMM_WORLD, &st));
    memset(rbuf, 0, n);
    CHECK_MPI(MPI_Recv(rbuf, (int)n, MPI_BYTE, left, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&sq, MPI_STATUS_IGNORE));
    expect(rbuf, n, left + s, "unexpected");

    /* Non-contiguous receive: every other 4-byte block of a buffer twice as long. */
    const int blocks = (int)(n / 4);
    MPI_Datatype vec;
    CHECK_MPI(MPI_Type_vector(blocks, 4, 8, MPI_BYTE, &vec));
    CHECK_MPI(MPI_Type_commit(&vec));
    memset(rbuf, 0xEE, 2 * (size_t)blocks * 4);
    CHECK_MPI(MPI_Sendrecv(sbuf, blocks * 4, MPI_BYTE, right, 12, rbuf, 1, vec, left, 12,
                           MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int b = 0; b < blocks; ++b) {
      for (int k = 0; k < 4; ++k) {
        const size_t i = (size_t)b * 4 + (size_t)k;
        CHECK(rbuf[(size_t)b * 8 + (size_t)k] == pattern(i, left + s), "vector receive byte %zu",
              i);
        CHECK(rbuf[(size_t)b * 8 + 4 + (size_t)k] == 0xEE, "vector receive wrote a gap");
      }
    }
    /* Non-contiguous send (streamed) into a contiguous receive. */
    for (int b = 0; b < blocks; ++b) memcpy(rbuf + kMax + (size_t)b * 8, sbuf + (size_t)b * 4, 4);
    memset(rbuf, 0, (size_t)blocks * 4);
    CHECK_MPI(MPI_Sendrecv(rbuf + kMax, 1, vec, right, 13, rbuf, blocks * 4, MPI_BYTE, left, 13,
                           MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    expect(rbuf, (size_t)blocks * 4, left + s, "vector send");
    MPI_Type_free(&vec);

    /* Synchronous send; receive from any source. */
    memset(rbuf, 0, n);
    CHECK_MPI(MPI_Irecv(rbuf, (int)n, MPI_BYTE, MPI_ANY_SOURCE, 14, MPI_COMM_WORLD, &rq));
    CHECK_MPI(MPI_Ssend(sbuf, (int)n, MPI_BYTE, right, 14, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Wait(&rq, &st));
    CHECK(st.MPI_SOURCE == left, "any-source status names %d", st.MPI_SOURCE);
    expect(rbuf, n, left + s, "ssend");

    /* Matched probe. */
    CHECK_MPI(MPI_Isend(sbuf, (int)n, MPI_BYTE, right, 15, MPI_COMM_WORLD, &sq));
    MPI_Message msg;
    CHECK_MPI(MPI_Mprobe(left, 15, MPI_COMM_WORLD, &msg, &st));
    memset(rbuf, 0, n);
    CHECK_MPI(MPI_Mrecv(rbuf, (int)n, MPI_BYTE, &msg, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&sq, MPI_STATUS_IGNORE));
    expect(rbuf, n, left + s, "mrecv");

    /* Truncation: the receive holds half the message. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    memset(rbuf, 0xEE, n);
    CHECK_MPI(MPI_Isend(sbuf, (int)n, MPI_BYTE, right, 16, MPI_COMM_WORLD, &sq));
    const int rc = MPI_Recv(rbuf, (int)(n / 2), MPI_BYTE, left, 16, MPI_COMM_WORLD, &st);
    int cls = MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE, "truncated receive returned class %d", cls);
    CHECK_MPI(MPI_Wait(&sq, MPI_STATUS_IGNORE));
    expect(rbuf, n / 2, left + s, "truncated");
    CHECK(rbuf[n / 2] == 0xEE, "truncated receive wrote past its buffer");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  }

  /* One send buffer rewritten after each completed send. */
  for (int round = 0; round < 20; ++round) {
    const size_t n = 200000 + (size_t)round * 4099;
    fill(sbuf, n, 1000 + round * 3 + rank);
    MPI_Request sq;
    CHECK_MPI(MPI_Isend(sbuf, (int)n, MPI_BYTE, right, 20, MPI_COMM_WORLD, &sq));
    CHECK_MPI(MPI_Recv(rbuf, (int)n, MPI_BYTE, left, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&sq, MPI_STATUS_IGNORE));
    memset(sbuf, 0x5A, n);
    expect(rbuf, n, 1000 + round * 3 + left, "rewritten buffer");
  }
  free(sbuf);
  free(rbuf);
  test_pass("p2p_single_copy");
  MPI_Finalize();
  return 0;
}
