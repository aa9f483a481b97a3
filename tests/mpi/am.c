/* Active messages (MPIX_Am_register / MPIX_Am_send, docs/active-messages.md):
 *  - every rank sends kCount messages to every rank (itself included) with a sequence
 *    number; each handler checks the source and that one source's messages arrive in order,
 *    and sums the payloads;
 *  - a ping handler replies from inside the handler (a pong), counted by the sender;
 *  - a handler runs while its rank is blocked in MPI_Recv: rank 0 waits for a message rank 1
 *    sends only after rank 0's handler answered its ping;
 *  - a zero-byte message and one of MPIX_Am_max_payload bytes;
 *  - on a split communicator the source is a rank of that communicator;
 *  - messages that arrive before their handler is registered wait for it (in order);
 *  - errors: a payload above the maximum (MPI_ERR_COUNT), an unknown id and an id of
 *    another communicator (MPI_ERR_ARG), a bad rank (MPI_ERR_RANK).
 * Progress is driven by MPI_Iprobe, bounded in time. */
#include <mpi.h>
#include <mpix_ccmpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

enum { kCount = 200 };

static int rank_, size_;
static int* next_seq; /* per source: the sequence number expected next */
static long long sum_;
static int got_;
static int pongs_;
static int big_ok_, empty_ok_;
static int split_sources_;
static int id_seq, id_ping, id_pong, id_big, id_split, id_late;
static int late_;

static void on_seq(int source, const void* payload, int len, void* state) {
  CHECK(state == &sum_, "extra_state %p", state);
  CHECK(len == 2 * (int)sizeof(int), "length %d", len);
  int v[2];
  memcpy(v, payload, sizeof v);
  CHECK(source >= 0 && source < size_, "source %d", source);
  CHECK(v[0] == next_seq[source], "from %d: message %d, expected %d (order)", source, v[0],
        next_seq[source]);
  CHECK(v[1] == source * 100000 + v[0], "from %d: payload %d", source, v[1]);
  ++next_seq[source];
  sum_ += v[1];
  ++got_;
}

static void on_pong(int source, const void* payload, int len, void* state) {
  (void)state;
  CHECK(len == (int)sizeof(int), "pong length %d", len);
  int v;
  memcpy(&v, payload, sizeof v);
  CHECK(v == source * 7 + rank_, "pong from %d carries %d", source, v);
  ++pongs_;
}

static void on_ping(int source, const void* payload, int len, void* state) {
  (void)payload;
  (void)state;
  CHECK(len == 0, "ping length %d", len);
  const int v = rank_ * 7 + source;
  /* A reply from inside the handler. */
  CHECK_MPI(MPIX_Am_send(MPI_COMM_WORLD, source, id_pong, &v, sizeof v));
}

static void on_big(int source, const void* payload, int len, void* state) {
  (void)state;
  const unsigned char* p = payload;
  if (len == 0) {
    ++empty_ok_;
    return;
  }
  for (int i = 0; i < len; ++i)
    CHECK(p[i] == (unsigned char)(i * 31 + source), "big message from %d: byte %d", source, i);
  ++big_ok_;
}

static void on_split(int source, const void* payload, int len, void* state) {
  (void)state;
  int world;
  CHECK(len == (int)sizeof(int), "split length %d", len);
  memcpy(&world, payload, sizeof world);
  /* The split keeps world order within a colour: source s of the half is world rank
   * 2 * s + colour. */
  CHECK(world == 2 * source + rank_ % 2, "split source %d sent world rank %d", source, world);
  ++split_sources_;
}

static void on_late(int source, const void* payload, int len, void* state) {
  (void)state;
  int v;
  CHECK(source == 0 && len == (int)sizeof v, "late message from %d, %d bytes", source, len);
  memcpy(&v, payload, sizeof v);
  CHECK(v == late_, "late message %d, expected %d (order)", v, late_);
  ++late_;
}

static void progress_until(int* counter, int target, const char* what) {
  const double until = MPI_Wtime() + 30;
  while (*counter < target) {
    int flag;
    MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    CHECK(MPI_Wtime() < until, "%s: %d of %d after 30 s", what, *counter, target);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  next_seq = calloc((size_t)size_, sizeof(int));
  CHECK_MPI(MPIX_Am_register(MPI_COMM_WORLD, on_seq, &sum_, &id_seq));
  CHECK_MPI(MPIX_Am_register(MPI_COMM_WORLD, on_ping, NULL, &id_ping));
  CHECK_MPI(MPIX_Am_register(MPI_COMM_WORLD, on_pong, NULL, &id_pong));
  CHECK_MPI(MPIX_Am_register(MPI_COMM_WORLD, on_big, NULL, &id_big));
  MPI_Comm half;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank_ % 2, rank_, &half));
  CHECK_MPI(MPIX_Am_register(half, on_split, NULL, &id_split));
  CHECK(id_seq != id_ping && id_ping != id_pong, "ids %d %d %d", id_seq, id_ping, id_pong);

  /* Sequenced messages to everyone, interleaved by destination. */
  for (int k = 0; k < kCount; ++k)
    for (int d = 0; d < size_; ++d) {
      int v[2] = {k, rank_ * 100000 + k};
      CHECK_MPI(MPIX_Am_send(MPI_COMM_WORLD, d, id_seq, v, sizeof v));
    }
  for (int d = 0; d < size_; ++d) CHECK_MPI(MPIX_Am_send(MPI_COMM_WORLD, d, id_ping, NULL, 0));
  progress_until(&got_, kCount * size_, "sequenced messages");
  progress_until(&pongs_, size_, "pongs");
  long long want = 0;
  for (int s = 0; s < size_; ++s)
    for (int k = 0; k < kCount; ++k) want += s * 100000 + k;
  CHECK(sum_ == want, "sum %lld, expected %lld", sum_, want);

  /* The largest and an empty message, to the next rank. */
  int max = 0;
  CHECK_MPI(MPIX_Am_max_payload(&max));
  CHECK(max >= 1024, "max payload %d", max);
  unsigned char* big = malloc((size_t)max);
  for (int i = 0; i < max; ++i) big[i] = (unsigned char)(i * 31 + rank_);
  const int next = (rank_ + 1) % size_;
  CHECK_MPI(MPIX_Am_send(MPI_COMM_WORLD, next, id_big, big, max));
  CHECK_MPI(MPIX_Am_send(MPI_COMM_WORLD, next, id_big, NULL, 0));
  progress_until(&big_ok_, 1, "the largest message");
  progress_until(&empty_ok_, 1, "the empty message");

  /* Sources on a split communicator. */
  int hsize;
  MPI_Comm_size(half, &hsize);
  for (int d = 0; d < hsize; ++d) CHECK_MPI(MPIX_Am_send(half, d, id_split, &rank_, sizeof rank_));
  progress_until(&split_sources_, hsize, "split messages");

  /* Rank 0 registers a handler and sends to rank 1 at once; rank 1 drives progress for
   * 200 ms (the messages arrive) before it registers the same handler. */
  if (rank_ == 1) {
    const double until = MPI_Wtime() + 0.2;
    while (MPI_Wtime() < until) {
      int flag;
      MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    }
    CHECK(late_ == 0, "a handler ran before it was registered");
  }
  CHECK_MPI(MPIX_Am_register(MPI_COMM_WORLD, on_late, NULL, &id_late));
  if (rank_ == 0 && size_ >= 2)
    for (int k = 0; k < 10; ++k) CHECK_MPI(MPIX_Am_send(MPI_COMM_WORLD, 1, id_late, &k, sizeof k));
  if (rank_ == 1) progress_until(&late_, 10, "messages sent before the registration");

  /* A handler runs while its rank is blocked in MPI_Recv. */
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (size_ >= 2 && rank_ == 0) {
    int token = 0;
    CHECK_MPI(MPI_Recv(&token, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(token == 42, "token %d", token);
  } else if (size_ >= 2 && rank_ == 1) {
    const int before = pongs_;
    CHECK_MPI(MPIX_Am_send(MPI_COMM_WORLD, 0, id_ping, NULL, 0));
    progress_until(&pongs_, before + 1, "pong from a rank in MPI_Recv");
    const int token = 42;
    CHECK_MPI(MPI_Send(&token, 1, MPI_INT, 0, 5, MPI_COMM_WORLD));
  }

  /* Errors. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(half, MPI_ERRORS_RETURN);
  int cls = 0;
  int rc = MPIX_Am_send(MPI_COMM_WORLD, 0, id_big, big, max + 1);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_COUNT, "oversized: class %d", cls);
  rc = MPIX_Am_send(MPI_COMM_WORLD, 0, 1000, NULL, 0);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_ARG, "unknown id: class %d", cls);
  rc = MPIX_Am_send(MPI_COMM_WORLD, 0, id_split, &rank_, sizeof rank_);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_ARG, "id of another communicator: class %d", cls);
  rc = MPIX_Am_send(MPI_COMM_WORLD, size_, id_seq, NULL, 0);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_RANK, "bad rank: class %d", cls);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  MPI_Comm_free(&half);
  free(big);
  free(next_seq);
  test_pass("am");
  MPI_Finalize();
  return 0;
}
