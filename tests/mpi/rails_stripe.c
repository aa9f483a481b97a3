/* Large messages between hosts, striped over every rail two ranks share
 * (docs/multirail.md), checked byte by byte, and MPI's ordering of mixed small, medium and
 * large messages of one pair, tag and communicator (non-overtaking), with receives posted
 * before the messages come and after they wait unexpected. On one host there is nothing
 * to stripe and the program checks the same results.
 *   rails_stripe            the checks above
 *   rails_stripe rounds N   then N ring exchanges of 4 MiB, each checked; rank 0 prints
 *                           "round K" after each one (a test takes a rail down meanwhile)
 *   rails_stripe bcasts N   the same with N broadcasts of 4 MiB from rank K % size (run
 *                           with a rail-aware broadcast forced: its segments go on chosen
 *                           rails)
 *   rails_stripe first-bcast  one broadcast of 4 MiB from rank 0 as the job's first
 *                           communication, checked (a rail-aware broadcast's first
 *                           messages to each peer go on their rails all the same) */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

static unsigned char pat(int src, int it, size_t k) {
  return (unsigned char)(src * 131 + it * 17 + k * 7 + (k >> 12) * 3);
}

static void fill(unsigned char* b, size_t n, int src, int it) {
  for (size_t k = 0; k < n; ++k) b[k] = pat(src, it, k);
}

static void verify(const unsigned char* b, size_t n, int src, int it) {
  for (size_t k = 0; k < n; ++k)
    CHECK(b[k] == pat(src, it, k), "message %d from rank %d: byte %zu is %u, expected %u", it, src,
          k, b[k], pat(src, it, k));
}

/* Ring: every rank sends n bytes to the next and receives from the previous. */
static void ring(unsigned char* out, unsigned char* in, size_t n, int it) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  fill(out, n, rank, it);
  memset(in, 0, n);
  MPI_Request rq[2];
  MPI_Status st[2];
  CHECK_MPI(MPI_Irecv(in, (int)n, MPI_BYTE, left, it, MPI_COMM_WORLD, &rq[0]));
  CHECK_MPI(MPI_Isend(out, (int)n, MPI_BYTE, right, it, MPI_COMM_WORLD, &rq[1]));
  CHECK_MPI(MPI_Waitall(2, rq, st));
  int got = -1;
  MPI_Get_count(&st[0], MPI_BYTE, &got);
  CHECK(got == (int)n && st[0].MPI_SOURCE == left, "ring %d: %d bytes from %d", it, got,
        st[0].MPI_SOURCE);
  verify(in, n, left, it);
}

#define NORD 24
static size_t ord_len(int i) {
  switch (i % 3) {
    case 0:
      return (2u << 20) + (size_t)i * 4099; /* striped */
    case 1:
      return 16 + (size_t)i; /* eager */
    default:
      return 70000 + (size_t)i; /* rendezvous below the striping threshold */
  }
}

/* Rank 0 sends NORD messages of mixed sizes on one tag to rank 1 (nonblocking, all at
 * once); rank 1 receives them in order, some with MPI_ANY_TAG, posted late (`late`: the
 * messages wait as unexpected) or early. */
static void ordering(int late, int round) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank > 1) return;
  const size_t cap = (2u << 20) + NORD * 4099;
  unsigned char* bufs[NORD];
  MPI_Request rq[NORD];
  MPI_Status st[NORD];
  for (int i = 0; i < NORD; ++i) {
    bufs[i] = malloc(cap);
    CHECK(bufs[i] != NULL, "out of memory");
  }
  const int base = 1000 + round * 100;
  if (rank == 0) {
    if (!late) CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int i = 0; i < NORD; ++i) {
      fill(bufs[i], ord_len(i), 0, base + i);
      CHECK_MPI(MPI_Isend(bufs[i], (int)ord_len(i), MPI_BYTE, 1, 7, MPI_COMM_WORLD, &rq[i]));
    }
    CHECK_MPI(MPI_Waitall(NORD, rq, st));
  } else {
    if (late) usleep(300000);
    for (int i = 0; i < NORD; ++i)
      CHECK_MPI(MPI_Irecv(bufs[i], (int)cap, MPI_BYTE, 0, i % 2 ? MPI_ANY_TAG : 7, MPI_COMM_WORLD,
                          &rq[i]));
    if (!late) CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, 0, 99, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Waitall(NORD, rq, st));
    for (int i = 0; i < NORD; ++i) {
      int got = -1;
      MPI_Get_count(&st[i], MPI_BYTE, &got);
      CHECK(got == (int)ord_len(i) && st[i].MPI_TAG == 7,
            "ordering (%s): receive %d got %d bytes tag %d, expected message %d of %zu bytes",
            late ? "late" : "early", i, got, st[i].MPI_TAG, i, ord_len(i));
      verify(bufs[i], ord_len(i), 0, base + i);
    }
  }
  for (int i = 0; i < NORD; ++i) free(bufs[i]);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2, "needs 2 ranks or more");
  if (argc == 2 && strcmp(argv[1], "first-bcast") == 0) {
    const size_t n = (4u << 20) + 4321;
    unsigned char* b = malloc(n);
    CHECK(b, "out of memory");
    if (rank == 0)
      fill(b, n, 0, 7);
    else
      memset(b, 0, n);
    CHECK_MPI(MPI_Bcast(b, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD));
    verify(b, n, 0, 7);
    free(b);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    test_pass("rails_stripe");
    CHECK_MPI(MPI_Finalize());
    return 0;
  }
  int rounds = 0;
  const int bcasts = argc == 3 && strcmp(argv[1], "bcasts") == 0;
  if (argc == 3 && (strcmp(argv[1], "rounds") == 0 || bcasts)) rounds = atoi(argv[2]);
  const size_t max = (16u << 20) + 12345;
  unsigned char* out = malloc(max);
  unsigned char* in = malloc(max);
  CHECK(out && in, "out of memory");
  const size_t sizes[] = {300000, 1u << 20, (4u << 20) + 12345, max};
  for (int i = 0; i < 4; ++i) ring(out, in, sizes[i], i);
  ordering(1, 0);
  ordering(0, 1);
  /* Both directions of a pair at once. */
  if (size % 2 == 0) {
    const int peer = rank ^ 1;
    const size_t n = (8u << 20) + 777;
    fill(out, n, rank, 50);
    MPI_Status stt;
    CHECK_MPI(MPI_Sendrecv(out, (int)n, MPI_BYTE, peer, 50, in, (int)n, MPI_BYTE, peer, 50,
                           MPI_COMM_WORLD, &stt));
    verify(in, n, peer, 50);
  }
  for (int r = 0; r < rounds; ++r) {
    if (bcasts) {
      const size_t n = (4u << 20) + 4321;
      const int root = r % size;
      unsigned char* b = rank == root ? out : in;
      if (rank == root)
        fill(b, n, root, 100 + r);
      else
        memset(b, 0, n);
      CHECK_MPI(MPI_Bcast(b, (int)n, MPI_BYTE, root, MPI_COMM_WORLD));
      verify(b, n, root, 100 + r);
    } else {
      ring(out, in, 4u << 20, 100 + r);
    }
    if (rank == 0) {
      printf("round %d\n", r);
      fflush(stdout);
    }
  }
  free(out);
  free(in);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  test_pass("rails_stripe");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
