/* Every message length a shared-memory ring's records meet (transport/shm.h): each length
 * from 0 to 300 bytes (compact frames in one line, and the first ones that need two), the
 * edges of a record (8 KiB), of the eager limit (64 KiB) and beyond it, sent by every
 * other rank to rank 0 at once, blocking and then as bursts of nonblocking sends, so the
 * records start at every offset of the ring, wrap around its end, and fill it. Rank 0
 * receives with MPI_ANY_SOURCE and MPI_ANY_TAG and checks each message's length, tag and
 * bytes against the sender's next one (messages of one sender arrive in order). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

enum { kSmall = 301, kRounds = 2, kBurst = 24 };
static const int kEdges[] = {1000, 4095, 4096,  4097,  8167,  8168,  8169,  8191,  8192,
                             8193, 8200, 16384, 24575, 32768, 65535, 65536, 65537, 100000};
enum { kEdgeCount = sizeof kEdges / sizeof kEdges[0] };
enum { kPerRound = kSmall + kEdgeCount };

static int length_of(int i) {
  const int k = i % kPerRound;
  return k < kSmall ? k : kEdges[k - kSmall];
}

static unsigned char byte_of(int sender, int i, int j) {
  return (unsigned char)(sender * 31 + i * 7 + j * 13 + (j >> 8));
}

static void fill(unsigned char* buf, int sender, int i) {
  const int n = length_of(i);
  for (int j = 0; j < n; ++j) buf[j] = byte_of(sender, i, j);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2, "needs at least 2 ranks");
  const int total = kRounds * kPerRound;
  const int maxLen = 100000;
  if (rank == 0) {
    unsigned char* buf = malloc(maxLen);
    int* next = calloc((size_t)size, sizeof(int));
    /* Blocking phase, then the burst phase: each sender sends `total` messages in each. */
    for (int phase = 0; phase < 2; ++phase) {
      for (int s = 1; s < size; ++s) next[s] = 0;
      for (int got = 0; got < total * (size - 1); ++got) {
        MPI_Status st;
        CHECK_MPI(
            MPI_Recv(buf, maxLen, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        const int s = st.MPI_SOURCE;
        CHECK(s >= 1 && s < size, "source %d", s);
        const int i = next[s]++;
        CHECK(i < total, "more than %d messages from rank %d", total, s);
        int count = -1;
        MPI_Get_count(&st, MPI_BYTE, &count);
        CHECK(count == length_of(i), "phase %d message %d of rank %d: %d bytes, expected %d", phase,
              i, s, count, length_of(i));
        CHECK(st.MPI_TAG == i % 97, "phase %d message %d of rank %d: tag %d", phase, i, s,
              st.MPI_TAG);
        for (int j = 0; j < count; ++j)
          CHECK(buf[j] == byte_of(s, i, j), "phase %d message %d of rank %d: byte %d differs",
                phase, i, s, j);
      }
      /* The senders start the next phase once everything is checked. */
      CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    }
    free(next);
    free(buf);
  } else {
    unsigned char* bufs = malloc((size_t)kBurst * maxLen);
    unsigned char* one = malloc(maxLen);
    for (int i = 0; i < total; ++i) {
      fill(one, rank, i);
      CHECK_MPI(MPI_Send(one, length_of(i), MPI_BYTE, 0, i % 97, MPI_COMM_WORLD));
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Request reqs[kBurst];
    for (int i = 0; i < total; i += kBurst) {
      const int n = total - i < kBurst ? total - i : kBurst;
      for (int k = 0; k < n; ++k) {
        unsigned char* b = bufs + (size_t)k * maxLen;
        fill(b, rank, i + k);
        CHECK_MPI(
            MPI_Isend(b, length_of(i + k), MPI_BYTE, 0, (i + k) % 97, MPI_COMM_WORLD, &reqs[k]));
      }
      CHECK_MPI(MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE));
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    free(one);
    free(bufs);
  }
  test_pass("shm_records");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
