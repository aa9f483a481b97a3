/* Pairs of ranks exchanging large (rendezvous) messages, the cases of a stream held for
 * the peer's own request to send (p2p.cc, "exchanges"): each case checks every byte.
 *  1. MPI_Irecv, MPI_Isend, MPI_Waitall both ways, one side late by a few milliseconds,
 *     each side in turn: the later side's request releases the earlier side's stream.
 *  2. MPI_Sendrecv both ways.
 *  3. The even rank posts a receive from its partner (MPI_ANY_SOURCE, then its rank) and
 *     sends; the partner only receives, and sends its small answer 30 ms later: the
 *     stream waits out its wait and starts on its own.
 *  4. The even rank waits for tag 7 while the partner first sends a large message of tag
 *     8 (its request releases the stream, though it matches no posted receive), then
 *     tag 7.
 * Ranks pair up as (0,1), (2,3), ...; an odd count leaves the last rank out. */
#include <string.h>
#include <unistd.h>

#include "check.h"

#define BIG (300 * 1024)

static unsigned char pat(int from, int round, long i) {
  return (unsigned char)(from * 37 + round * 11 + i * 13 + (i >> 9));
}

static void fill(unsigned char* b, long n, int from, int round) {
  for (long i = 0; i < n; ++i) b[i] = pat(from, round, i);
}

static void verify(const unsigned char* b, long n, int from, int round, const char* what) {
  for (long i = 0; i < n; ++i)
    CHECK(b[i] == pat(from, round, i), "%s round %d: byte %ld from %d is %d, want %d", what, round,
          i, from, b[i], pat(from, round, i));
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int partner = rank ^ 1;
  const int active = partner < size;
  const int even = !(rank & 1);
  unsigned char* out = malloc(BIG);
  unsigned char* in = malloc(BIG);
  CHECK(out && in, "out of memory");

  /* 1: Irecv/Isend, one side late. */
  for (int round = 0; round < 6 && active; ++round) {
    fill(out, BIG, rank, round);
    memset(in, 0, BIG);
    MPI_Barrier(MPI_COMM_WORLD);
    if ((round & 1) == (rank & 1)) usleep(3000 + 1000 * (unsigned)round);
    MPI_Request q[2];
    CHECK_MPI(MPI_Irecv(in, BIG, MPI_BYTE, partner, round, MPI_COMM_WORLD, &q[0]));
    CHECK_MPI(MPI_Isend(out, BIG, MPI_BYTE, partner, round, MPI_COMM_WORLD, &q[1]));
    CHECK_MPI(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
    verify(in, BIG, partner, round, "irecv/isend");
  }
  if (!active) {
    for (int round = 0; round < 6; ++round) MPI_Barrier(MPI_COMM_WORLD);
  }

  /* 2: Sendrecv. */
  for (int round = 10; round < 13; ++round) {
    if (active) {
      fill(out, BIG, rank, round);
      memset(in, 0, BIG);
      if (rank & 1) usleep(2000);
      MPI_Status st;
      CHECK_MPI(MPI_Sendrecv(out, BIG, MPI_BYTE, partner, round, in, BIG, MPI_BYTE, partner, round,
                             MPI_COMM_WORLD, &st));
      int n;
      MPI_Get_count(&st, MPI_BYTE, &n);
      CHECK(n == BIG && st.MPI_SOURCE == partner, "sendrecv: %d bytes from %d", n, st.MPI_SOURCE);
      verify(in, BIG, partner, round, "sendrecv");
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }

  /* 3: a receive is posted from the partner, but the partner sends nothing large. */
  for (int round = 20; round < 22 && active; ++round) {
    int answer = -1;
    if (even) {
      fill(out, BIG, rank, round);
      MPI_Request q[2];
      CHECK_MPI(MPI_Irecv(&answer, 1, MPI_INT, round == 20 ? MPI_ANY_SOURCE : partner, round,
                          MPI_COMM_WORLD, &q[0]));
      CHECK_MPI(MPI_Isend(out, BIG, MPI_BYTE, partner, round, MPI_COMM_WORLD, &q[1]));
      CHECK_MPI(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
      CHECK(answer == 1000 + round, "answer %d, want %d", answer, 1000 + round);
    } else {
      memset(in, 0, BIG);
      CHECK_MPI(MPI_Recv(in, BIG, MPI_BYTE, partner, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      verify(in, BIG, partner, round, "one way");
      usleep(30000);
      answer = 1000 + round;
      CHECK_MPI(MPI_Send(&answer, 1, MPI_INT, partner, round, MPI_COMM_WORLD));
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);

  /* 4: the partner's first large message has another tag than the posted receive. */
  if (active) {
    const int round = 30;
    if (even) {
      fill(out, BIG, rank, round);
      memset(in, 0, BIG);
      MPI_Request q[2];
      CHECK_MPI(MPI_Irecv(in, BIG, MPI_BYTE, partner, 7, MPI_COMM_WORLD, &q[0]));
      CHECK_MPI(MPI_Isend(out, BIG, MPI_BYTE, partner, 5, MPI_COMM_WORLD, &q[1]));
      CHECK_MPI(MPI_Wait(&q[1], MPI_STATUS_IGNORE));
      unsigned char* other = malloc(BIG);
      CHECK(other, "out of memory");
      CHECK_MPI(MPI_Recv(other, BIG, MPI_BYTE, partner, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      verify(other, BIG, partner, round + 1, "tag 8");
      free(other);
      CHECK_MPI(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
      verify(in, BIG, partner, round, "tag 7");
    } else {
      unsigned char* other = malloc(BIG);
      CHECK(other, "out of memory");
      fill(other, BIG, rank, round + 1);
      fill(out, BIG, rank, round);
      MPI_Request q[3];
      CHECK_MPI(MPI_Isend(other, BIG, MPI_BYTE, partner, 8, MPI_COMM_WORLD, &q[0]));
      CHECK_MPI(MPI_Isend(out, BIG, MPI_BYTE, partner, 7, MPI_COMM_WORLD, &q[1]));
      CHECK_MPI(MPI_Irecv(in, BIG, MPI_BYTE, partner, 5, MPI_COMM_WORLD, &q[2]));
      CHECK_MPI(MPI_Waitall(3, q, MPI_STATUSES_IGNORE));
      verify(in, BIG, partner, round, "tag 5");
      free(other);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  free(out);
  free(in);
  test_pass("p2p_exchange");
  MPI_Finalize();
  return 0;
}
