/* Eager messages sent in parts (CCMPI_EAGER_FRAME, p2p.cc "EagerParts"): run with a small
 * part size over TCP, so that every eager message above it travels as a first frame and
 * continuation frames, possibly with other frames between them. Each case checks every
 * byte and the status:
 *  1. unexpected: rank 0 sends messages of several sizes and tags to rank 1, which
 *     receives them only after a barrier, in reverse order of tags;
 *  2. posted first: rank 1 posts its receives (contiguous and strided) before rank 0
 *     sends, rank 0 sending from a strided datatype for half of them;
 *  3. order: a message in parts then a short one with the same tag, each way of posting;
 *  4. truncation: a message in parts into a smaller buffer gives MPI_ERR_TRUNCATE and the
 *     received count, and the next message is intact;
 *  5. MPI_Mprobe/MPI_Mrecv and MPI_Probe/MPI_Get_count;
 *  6. a receive that matches a message while its parts arrive: rank 0 streams a large
 *     rendezvous message to rank 1 and, at the same time, an eager one whose parts take
 *     turns with the stream's frames (started first); rank 1 posts the eager message's receive as
 * soon as MPI_Iprobe sees it, and before that a receive for the stream;
 *  7. with 3 or more ranks, every other rank sends to rank 0, which receives from
 *     MPI_ANY_SOURCE and checks each message by its status. */
#include <string.h>

#include "check.h"

static unsigned char pat(int from, int tag, long i) {
  return (unsigned char)(from * 31 + tag * 7 + i * 13 + (i >> 8));
}

static void fill(unsigned char* b, long n, int from, int tag) {
  for (long i = 0; i < n; ++i) b[i] = pat(from, tag, i);
}

static void verify(const unsigned char* b, long n, int from, int tag, const char* what) {
  for (long i = 0; i < n; ++i)
    CHECK(b[i] == pat(from, tag, i), "%s tag %d: byte %ld from %d is %d, want %d", what, tag, i,
          from, b[i], pat(from, tag, i));
}

static void check_status(const MPI_Status* st, int src, int tag, int count, const char* what) {
  int n = -1;
  MPI_Get_count(st, MPI_BYTE, &n);
  CHECK(st->MPI_SOURCE == src && st->MPI_TAG == tag && n == count,
        "%s: status source %d tag %d count %d, want %d %d %d", what, st->MPI_SOURCE, st->MPI_TAG, n,
        src, tag, count);
}

enum { NSIZES = 6, LIMIT = 65536 };
static const int kSizes[NSIZES] = {1025, 4096, 5000, 30001, 65535, LIMIT};

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2, "needs 2 ranks");
  unsigned char* buf = malloc(2 * LIMIT);
  unsigned char* big = malloc(8 << 20);
  CHECK(buf && big, "out of memory");

  /* 1: unexpected, received in reverse order. */
  if (rank == 0) {
    for (int t = 0; t < NSIZES; ++t) {
      fill(buf, kSizes[t], 0, t);
      CHECK_MPI(MPI_Send(buf, kSizes[t], MPI_BYTE, 1, t, MPI_COMM_WORLD));
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    for (int t = NSIZES - 1; t >= 0; --t) {
      MPI_Status st;
      memset(buf, 0, LIMIT);
      CHECK_MPI(MPI_Recv(buf, LIMIT, MPI_BYTE, 0, t, MPI_COMM_WORLD, &st));
      check_status(&st, 0, t, kSizes[t], "unexpected");
      verify(buf, kSizes[t], 0, t, "unexpected");
    }
  }

  /* 2: posted first; strided receive and strided send (a vector of 2-byte blocks with a
   * stride of 4 bytes), one byte type either way. */
  MPI_Datatype strided;
  CHECK_MPI(MPI_Type_vector(LIMIT / 2, 2, 4, MPI_BYTE, &strided));
  CHECK_MPI(MPI_Type_commit(&strided));
  if (rank == 1) {
    unsigned char* in[4];
    MPI_Request q[4];
    for (int k = 0; k < 4; ++k) {
      in[k] = calloc(2 * LIMIT, 1);
      CHECK(in[k], "out of memory");
      if (k & 1)
        CHECK_MPI(MPI_Irecv(in[k], 1, strided, 0, 10 + k, MPI_COMM_WORLD, &q[k]));
      else
        CHECK_MPI(MPI_Irecv(in[k], LIMIT, MPI_BYTE, 0, 10 + k, MPI_COMM_WORLD, &q[k]));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Status st[4];
    CHECK_MPI(MPI_Waitall(4, q, st));
    unsigned char* packed = malloc(LIMIT);
    CHECK(packed, "out of memory");
    for (int k = 0; k < 4; ++k) {
      check_status(&st[k], 0, 10 + k, LIMIT, "posted");
      const unsigned char* got = in[k];
      if (k & 1) {
        for (long i = 0; i < LIMIT; ++i) packed[i] = in[k][(i / 2) * 4 + (i % 2)];
        got = packed;
      }
      verify(got, LIMIT, 0, 10 + k, "posted");
      free(in[k]);
    }
    free(packed);
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
  }
  if (rank == 0) {
    for (int k = 0; k < 4; ++k) {
      if (k < 2) {
        fill(buf, LIMIT, 0, 10 + k);
        CHECK_MPI(MPI_Send(buf, LIMIT, MPI_BYTE, 1, 10 + k, MPI_COMM_WORLD));
      } else {
        unsigned char* s = calloc(2 * LIMIT, 1);
        unsigned char* p = malloc(LIMIT);
        CHECK(s && p, "out of memory");
        fill(p, LIMIT, 0, 10 + k);
        for (long i = 0; i < LIMIT; ++i) s[(i / 2) * 4 + (i % 2)] = p[i];
        CHECK_MPI(MPI_Send(s, 1, strided, 1, 10 + k, MPI_COMM_WORLD));
        free(s);
        free(p);
      }
    }
  }
  MPI_Type_free(&strided);

  /* 3: a message in parts, then a short one, same tag: they match in that order. */
  for (int posted = 0; posted < 2; ++posted) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
      fill(buf, 40000, 0, 20);
      CHECK_MPI(MPI_Send(buf, 40000, MPI_BYTE, 1, 20, MPI_COMM_WORLD));
      fill(buf, 10, 0, 21);
      CHECK_MPI(MPI_Send(buf, 10, MPI_BYTE, 1, 20, MPI_COMM_WORLD));
      MPI_Barrier(MPI_COMM_WORLD);
    } else if (rank == 1) {
      unsigned char* a = calloc(LIMIT, 1);
      unsigned char* b = calloc(LIMIT, 1);
      CHECK(a && b, "out of memory");
      MPI_Request q[2];
      MPI_Status st[2];
      if (!posted) MPI_Barrier(MPI_COMM_WORLD);
      CHECK_MPI(MPI_Irecv(a, LIMIT, MPI_BYTE, 0, 20, MPI_COMM_WORLD, &q[0]));
      CHECK_MPI(MPI_Irecv(b, LIMIT, MPI_BYTE, 0, 20, MPI_COMM_WORLD, &q[1]));
      if (posted) MPI_Barrier(MPI_COMM_WORLD);
      CHECK_MPI(MPI_Waitall(2, q, st));
      check_status(&st[0], 0, 20, 40000, "order, first");
      check_status(&st[1], 0, 20, 10, "order, second");
      verify(a, 40000, 0, 20, "order, first");
      verify(b, 10, 0, 21, "order, second");
      free(a);
      free(b);
    } else {
      MPI_Barrier(MPI_COMM_WORLD);
    }
  }

  /* 4: truncation, posted and unexpected. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  for (int posted = 0; posted < 2; ++posted) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
      fill(buf, 40000, 0, 30);
      CHECK_MPI(MPI_Send(buf, 40000, MPI_BYTE, 1, 30, MPI_COMM_WORLD));
      fill(buf, 20000, 0, 31);
      CHECK_MPI(MPI_Send(buf, 20000, MPI_BYTE, 1, 31, MPI_COMM_WORLD));
      MPI_Barrier(MPI_COMM_WORLD);
    } else if (rank == 1) {
      unsigned char* a = calloc(LIMIT, 1);
      CHECK(a, "out of memory");
      MPI_Request q;
      MPI_Status st;
      if (!posted) MPI_Barrier(MPI_COMM_WORLD);
      CHECK_MPI(MPI_Irecv(a, 25000, MPI_BYTE, 0, 30, MPI_COMM_WORLD, &q));
      if (posted) MPI_Barrier(MPI_COMM_WORLD);
      const int rc = MPI_Wait(&q, &st);
      int cls = -1;
      MPI_Error_class(rc, &cls);
      CHECK(cls == MPI_ERR_TRUNCATE, "truncated receive: error class %d, want MPI_ERR_TRUNCATE",
            cls);
      verify(a, 25000, 0, 30, "truncated");
      CHECK(a[25000] == 0, "byte past the receive buffer written");
      CHECK_MPI(MPI_Recv(a, LIMIT, MPI_BYTE, 0, 31, MPI_COMM_WORLD, &st));
      check_status(&st, 0, 31, 20000, "after truncation");
      verify(a, 20000, 0, 31, "after truncation");
      free(a);
    } else {
      MPI_Barrier(MPI_COMM_WORLD);
    }
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

  /* 5: MPI_Mprobe/MPI_Mrecv, MPI_Probe/MPI_Get_count. */
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    fill(buf, 50000, 0, 40);
    CHECK_MPI(MPI_Send(buf, 50000, MPI_BYTE, 1, 40, MPI_COMM_WORLD));
    fill(buf, 33333, 0, 41);
    CHECK_MPI(MPI_Send(buf, 33333, MPI_BYTE, 1, 41, MPI_COMM_WORLD));
  } else if (rank == 1) {
    MPI_Message m;
    MPI_Status st;
    CHECK_MPI(MPI_Mprobe(0, 40, MPI_COMM_WORLD, &m, &st));
    check_status(&st, 0, 40, 50000, "mprobe");
    memset(buf, 0, LIMIT);
    CHECK_MPI(MPI_Mrecv(buf, LIMIT, MPI_BYTE, &m, &st));
    check_status(&st, 0, 40, 50000, "mrecv");
    verify(buf, 50000, 0, 40, "mrecv");
    CHECK_MPI(MPI_Probe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    check_status(&st, 0, 41, 33333, "probe");
    memset(buf, 0, LIMIT);
    CHECK_MPI(MPI_Recv(buf, 33333, MPI_BYTE, 0, 41, MPI_COMM_WORLD, &st));
    verify(buf, 33333, 0, 41, "probe");
  }

  /* 6: a receive posted while the parts arrive, behind a large stream's frames. */
  const long kBig = 8 << 20;
  for (int round = 0; round < 3; ++round) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
      fill(big, kBig, 0, 50 + round);
      fill(buf, LIMIT, 0, 60 + round);
      MPI_Request q[2];
      CHECK_MPI(MPI_Isend(big, (int)kBig, MPI_BYTE, 1, 50 + round, MPI_COMM_WORLD, &q[0]));
      /* Let the stream start (its clear-to-send come in) before the eager message. */
      const double until = MPI_Wtime() + 0.005;
      int done = 0;
      while (!done && MPI_Wtime() < until) CHECK_MPI(MPI_Test(&q[0], &done, MPI_STATUS_IGNORE));
      CHECK_MPI(MPI_Isend(buf, LIMIT, MPI_BYTE, 1, 60 + round, MPI_COMM_WORLD, &q[1]));
      CHECK_MPI(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
    } else if (rank == 1) {
      memset(big, 0, kBig);
      MPI_Request q;
      CHECK_MPI(MPI_Irecv(big, (int)kBig, MPI_BYTE, 0, 50 + round, MPI_COMM_WORLD, &q));
      int seen = 0;
      MPI_Status st;
      while (!seen) CHECK_MPI(MPI_Iprobe(0, 60 + round, MPI_COMM_WORLD, &seen, &st));
      check_status(&st, 0, 60 + round, LIMIT, "iprobe during a stream");
      memset(buf, 0, LIMIT);
      CHECK_MPI(MPI_Recv(buf, LIMIT, MPI_BYTE, 0, 60 + round, MPI_COMM_WORLD, &st));
      check_status(&st, 0, 60 + round, LIMIT, "during a stream");
      verify(buf, LIMIT, 0, 60 + round, "during a stream");
      CHECK_MPI(MPI_Wait(&q, &st));
      check_status(&st, 0, 50 + round, (int)kBig, "the stream");
      verify(big, kBig, 0, 50 + round, "the stream");
    }
  }

  /* 7: from every other rank to rank 0, received from MPI_ANY_SOURCE. */
  MPI_Barrier(MPI_COMM_WORLD);
  if (size >= 3) {
    if (rank == 0) {
      int got[64] = {0};
      for (int k = 0; k < 2 * (size - 1); ++k) {
        MPI_Status st;
        memset(buf, 0, LIMIT);
        CHECK_MPI(MPI_Recv(buf, LIMIT, MPI_BYTE, MPI_ANY_SOURCE, 70, MPI_COMM_WORLD, &st));
        const int from = st.MPI_SOURCE;
        CHECK(from > 0 && from < size && from < 64, "source %d", from);
        const int n = got[from]++ ? 2000 : 60000;
        check_status(&st, from, 70, n, "any source");
        verify(buf, n, from, 70 + (n == 2000), "any source");
      }
    } else {
      fill(buf, 60000, rank, 70);
      CHECK_MPI(MPI_Send(buf, 60000, MPI_BYTE, 0, 70, MPI_COMM_WORLD));
      fill(buf, 2000, rank, 71);
      CHECK_MPI(MPI_Send(buf, 2000, MPI_BYTE, 0, 70, MPI_COMM_WORLD));
    }
  }

  free(buf);
  free(big);
  test_pass("p2p_eager_parts");
  MPI_Finalize();
  return 0;
}
