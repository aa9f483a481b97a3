/* MPI_Cancel of sends. Rank 0 sends to every rank (itself included) messages nobody
 * receives, in every mode and size class (eager, rendezvous, synchronous, buffered,
 * persistent), cancels them, and checks that the cancellation succeeded and that the
 * receiver never sees them: the next message with the same tag is the one received.
 * Then a message that was received before the cancel: that cancel must fail and the send
 * complete normally. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

enum { kSmall = 16, kLarge = 1 << 20, kTag = 7 };

static void fill(int* buf, int n, int v) {
  for (int i = 0; i < n; ++i) buf[i] = v + i;
}

/* Cancels *req and waits for it; returns the cancelled flag. */
static int cancel_and_wait(MPI_Request* req) {
  MPI_Status st;
  int flag = -1;
  CHECK_MPI(MPI_Cancel(req));
  CHECK_MPI(MPI_Wait(req, &st));
  CHECK_MPI(MPI_Test_cancelled(&st, &flag));
  return flag;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int* out = malloc(sizeof(int) * kLarge);
  int* in = malloc(sizeof(int) * kLarge);
  int bsize = (int)(sizeof(int) * kLarge * 2 + 4 * MPI_BSEND_OVERHEAD);
  void* bbuf = malloc((size_t)bsize);
  CHECK_MPI(MPI_Buffer_attach(bbuf, bsize));

  /* Nobody posts a receive with kTag until the cancellations are done (barrier). */
  const int counts[2] = {kSmall, kLarge};
  if (rank == 0) {
    for (int dest = 0; dest < size; ++dest) {
      for (int c = 0; c < 2; ++c) {
        const int n = counts[c];
        MPI_Request req;
        fill(out, n, -1000);
        CHECK_MPI(MPI_Isend(out, n, MPI_INT, dest, kTag, MPI_COMM_WORLD, &req));
        CHECK(cancel_and_wait(&req), "Isend of %d ints to %d was not cancelled", n, dest);
        CHECK_MPI(MPI_Issend(out, n, MPI_INT, dest, kTag, MPI_COMM_WORLD, &req));
        CHECK(cancel_and_wait(&req), "Issend of %d ints to %d was not cancelled", n, dest);
        CHECK_MPI(MPI_Ibsend(out, n, MPI_INT, dest, kTag, MPI_COMM_WORLD, &req));
        CHECK(cancel_and_wait(&req), "Ibsend of %d ints to %d was not cancelled", n, dest);
        CHECK_MPI(MPI_Send_init(out, n, MPI_INT, dest, kTag, MPI_COMM_WORLD, &req));
        CHECK_MPI(MPI_Start(&req));
        CHECK(cancel_and_wait(&req), "persistent send of %d ints to %d was not cancelled", n, dest);
        CHECK_MPI(MPI_Request_free(&req));
      }
    }
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  /* The real messages: the only ones a receiver may see with this tag. */
  if (rank == 0) {
    for (int dest = 1; dest < size; ++dest) {
      fill(out, kSmall, 100 * dest);
      CHECK_MPI(MPI_Send(out, kSmall, MPI_INT, dest, kTag, MPI_COMM_WORLD));
    }
    fill(out, kSmall, 0);
    MPI_Request req;
    CHECK_MPI(MPI_Isend(out, kSmall, MPI_INT, 0, kTag, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  }
  {
    MPI_Status st;
    int n = -1;
    CHECK_MPI(MPI_Recv(in, kLarge, MPI_INT, 0, kTag, MPI_COMM_WORLD, &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &n));
    CHECK(n == kSmall, "received %d ints: a cancelled message was delivered", n);
    for (int i = 0; i < kSmall; ++i)
      CHECK(in[i] == 100 * rank + i, "in[%d] = %d, expected %d", i, in[i], 100 * rank + i);
    int flag = 1;
    CHECK_MPI(MPI_Iprobe(0, kTag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag, "a cancelled message is still waiting to be received");
  }

  /* A matched message cannot be cancelled: the send completes normally. */
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (size > 1) {
    if (rank == 0) {
      MPI_Request req;
      fill(out, kSmall, 5);
      CHECK_MPI(MPI_Isend(out, kSmall, MPI_INT, 1, kTag + 1, MPI_COMM_WORLD, &req));
      CHECK_MPI(MPI_Recv(NULL, 0, MPI_INT, 1, kTag + 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK(!cancel_and_wait(&req), "a received message was reported cancelled");
    } else if (rank == 1) {
      CHECK_MPI(MPI_Recv(in, kSmall, MPI_INT, 0, kTag + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      for (int i = 0; i < kSmall; ++i) CHECK(in[i] == 5 + i, "in[%d] = %d", i, in[i]);
      CHECK_MPI(MPI_Send(NULL, 0, MPI_INT, 0, kTag + 2, MPI_COMM_WORLD));
    }
  }
  void* detached;
  int dsize;
  CHECK_MPI(MPI_Buffer_detach(&detached, &dsize));
  free(bbuf);
  free(out);
  free(in);
  test_pass("p2p_cancel_send");
  MPI_Finalize();
  return 0;
}
