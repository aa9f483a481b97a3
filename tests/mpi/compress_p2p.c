/* Transparent compression of floating-point messages (CCMPI_COMPRESS), checked bit for
 * bit: every message size around the thresholds (compression minimum, eager limit,
 * chunk), smooth and incompressible data, NaN payloads / -0.0 / infinities / subnormals,
 * MPI_FLOAT with odd counts, complex types, derived (strided) types on either side,
 * messages that arrive unexpected and are received in another order than they arrived
 * (the channel's predictor must follow arrival order), wildcard receives, interleaved
 * non-floating-point messages, synchronous, buffered and persistent sends, truncation (the channel
 * stays usable), and collectives on doubles.
 *
 * argv[1] = the mode the job runs in (off | on | auto), checked against
 * MPIX_Compress_get_stats; at the end, the counters of all ranks must balance (every
 * coded frame sent was decoded, byte for byte), with "on" every rank must have coded
 * frames, smooth data must have shrunk on the wire, and with "off" nothing is coded.
 * argv[1] = "local": the mode is "on" but every rank shares this host through shared
 * memory, where messages are never coded: nothing may be. */
#include <math.h>
#include <mpix_ccmpi.h>
#include <stdint.h>
#include <string.h>

#include "check.h"

static int rank, size;

/* Smooth field values (predictable neighbours), different per (seed, i). */
static double smooth(int seed, long i) {
  return 1000.0 * sin(0.001 * (double)i + seed) + 0.5 * cos(0.0003 * (double)i * seed);
}

/* Incompressible: random 64-bit patterns (any bits, NaNs included). */
static uint64_t rng_state = 88172645463325252ull;
static uint64_t next_rand(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

static void fill(double* a, long n, int seed, int kind) {
  for (long i = 0; i < n; ++i) {
    if (kind == 0) {
      a[i] = smooth(seed, i);
    } else if (kind == 1) {
      uint64_t u = next_rand() ^ (uint64_t)seed;
      memcpy(&a[i], &u, 8);
    } else {
      /* Special values between smooth runs. */
      static const uint64_t special[] = {0x7ff8000000000001ull, 0xfff0000000000000ull,
                                         0x7ff0000000000000ull, 0x8000000000000000ull,
                                         0x0000000000000001ull, 0x000fffffffffffffull,
                                         0x7ff4dead0000beefull, 0};
      if (i % 7 == 3) {
        memcpy(&a[i], &special[(i / 7 + seed) % 8], 8);
      } else {
        a[i] = i % 1000 < 500 ? 3.25 : smooth(seed, i);
      }
    }
  }
}

static void expect_same(const void* a, const void* b, size_t bytes, const char* what, long n) {
  if (memcmp(a, b, bytes) != 0) {
    size_t i = 0;
    while (((const unsigned char*)a)[i] == ((const unsigned char*)b)[i]) ++i;
    CHECK(0, "%s (n=%ld): first differing byte %zu of %zu", what, n, i, bytes);
  }
}

/* Ring exchange of n doubles of the given kind. */
static void ring(long n, int kind, int tag) {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  double* out = malloc(sizeof(double) * (size_t)(n + 1));
  double* in = malloc(sizeof(double) * (size_t)(n + 1));
  double* want = malloc(sizeof(double) * (size_t)(n + 1));
  rng_state = 88172645463325252ull + (uint64_t)rank * 7919u + (uint64_t)n;
  fill(out, n, rank + tag, kind);
  rng_state = 88172645463325252ull + (uint64_t)left * 7919u + (uint64_t)n;
  fill(want, n, left + tag, kind);
  memset(in, 0xa5, sizeof(double) * (size_t)(n + 1));
  MPI_Status st;
  CHECK_MPI(MPI_Sendrecv(out, (int)n, MPI_DOUBLE, right, tag, in, (int)n, MPI_DOUBLE, left, tag,
                         MPI_COMM_WORLD, &st));
  int got = -1;
  MPI_Get_count(&st, MPI_DOUBLE, &got);
  CHECK(got == n, "count %d, expected %ld", got, n);
  expect_same(in, want, sizeof(double) * (size_t)n, "ring data", n);
  unsigned char guard[8];
  memset(guard, 0xa5, 8);
  expect_same(in + n, guard, 8, "bytes past the message", n);
  free(out);
  free(in);
  free(want);
}

/* Rank 0 sends a series of messages to rank 1 that arrive unexpected; rank 1 receives
 * them in reverse order, with a non-double message in between. */
static void unexpected_reverse(void) {
  const long ns[] = {200, 9000, 3000, 70000, 129, 20000};
  const int k = 6;
  if (rank == 0) {
    MPI_Request req[7];
    double* bufs[6];
    for (int i = 0; i < k; ++i) {
      bufs[i] = malloc(sizeof(double) * (size_t)ns[i]);
      fill(bufs[i], ns[i], 40 + i, i == 3 ? 2 : 0);
      CHECK_MPI(MPI_Isend(bufs[i], (int)ns[i], MPI_DOUBLE, 1, 100 + i, MPI_COMM_WORLD, &req[i]));
    }
    int ints[1000];
    for (int i = 0; i < 1000; ++i) ints[i] = i * 3;
    CHECK_MPI(MPI_Isend(ints, 1000, MPI_INT, 1, 99, MPI_COMM_WORLD, &req[6]));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Waitall(7, req, MPI_STATUSES_IGNORE));
    for (int i = 0; i < k; ++i) free(bufs[i]);
  } else if (rank == 1) {
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = k - 1; i >= 0; --i) {
      double* got = malloc(sizeof(double) * (size_t)ns[i]);
      double* want = malloc(sizeof(double) * (size_t)ns[i]);
      fill(want, ns[i], 40 + i, i == 3 ? 2 : 0);
      CHECK_MPI(
          MPI_Recv(got, (int)ns[i], MPI_DOUBLE, 0, 100 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      expect_same(got, want, sizeof(double) * (size_t)ns[i], "reverse-order receive", ns[i]);
      free(got);
      free(want);
      if (i == 2) {
        int ints[1000];
        CHECK_MPI(MPI_Recv(ints, 1000, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int j = 0; j < 1000; ++j) CHECK(ints[j] == j * 3, "int %d", j);
      }
    }
  } else {
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  }
}

/* A strided column of doubles sent to a contiguous receive and back into a strided one. */
static void derived(long rows) {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  double* m = malloc(sizeof(double) * (size_t)rows * 3);
  double* col = malloc(sizeof(double) * (size_t)rows);
  double* m2 = calloc((size_t)rows * 3, sizeof(double));
  for (long i = 0; i < rows * 3; ++i) m[i] = smooth(rank, i / 3) + (double)(i % 3);
  MPI_Datatype column;
  CHECK_MPI(MPI_Type_vector((int)rows, 1, 3, MPI_DOUBLE, &column));
  CHECK_MPI(MPI_Type_commit(&column));
  CHECK_MPI(MPI_Sendrecv(m + 1, 1, column, right, 7, col, (int)rows, MPI_DOUBLE, left, 7,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  for (long i = 0; i < rows; ++i)
    CHECK(col[i] == smooth(left, i) + 1.0, "column element %ld of %ld", i, rows);
  CHECK_MPI(MPI_Sendrecv(col, (int)rows, MPI_DOUBLE, left, 8, m2 + 2, 1, column, right, 8,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  for (long i = 0; i < rows * 3; ++i) {
    const double want = i % 3 == 2 ? smooth(rank, i / 3) + 1.0 : 0.0;
    CHECK(m2[i] == want, "strided receive element %ld of %ld", i, rows * 3);
  }
  MPI_Type_free(&column);
  free(m);
  free(col);
  free(m2);
}

/* MPI_FLOAT (odd counts) and double complex. */
static void other_types(long n) {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  float* f = malloc(sizeof(float) * (size_t)n);
  float* fin = malloc(sizeof(float) * (size_t)n);
  for (long i = 0; i < n; ++i) f[i] = (float)smooth(rank, i);
  CHECK_MPI(MPI_Sendrecv(f, (int)n, MPI_FLOAT, right, 11, fin, (int)n, MPI_FLOAT, left, 11,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  for (long i = 0; i < n; ++i) {
    const float want = (float)smooth(left, i);
    CHECK(memcmp(&fin[i], &want, 4) == 0, "float %ld of %ld", i, n);
  }
  double* z = malloc(sizeof(double) * 2 * (size_t)n);
  double* zin = malloc(sizeof(double) * 2 * (size_t)n);
  for (long i = 0; i < 2 * n; ++i) z[i] = smooth(rank + 5, i);
  CHECK_MPI(MPI_Sendrecv(z, (int)n, MPI_C_DOUBLE_COMPLEX, right, 12, zin, (int)n,
                         MPI_C_DOUBLE_COMPLEX, left, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  for (long i = 0; i < 2 * n; ++i) CHECK(zin[i] == smooth(left + 5, i), "complex part %ld", i);
  free(f);
  free(fin);
  free(z);
  free(zin);
}

/* Every rank but 0 sends to rank 0, which receives with MPI_ANY_SOURCE. */
static void wildcard(long n, int tag) {
  if (rank == 0) {
    double* in = malloc(sizeof(double) * (size_t)n);
    double* want = malloc(sizeof(double) * (size_t)n);
    for (int k = 1; k < size; ++k) {
      MPI_Status st;
      CHECK_MPI(MPI_Recv(in, (int)n, MPI_DOUBLE, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &st));
      fill(want, n, 60 + st.MPI_SOURCE, 0);
      expect_same(in, want, sizeof(double) * (size_t)n, "wildcard receive", n);
    }
    free(in);
    free(want);
  } else {
    double* out = malloc(sizeof(double) * (size_t)n);
    fill(out, n, 60 + rank, 0);
    CHECK_MPI(MPI_Send(out, (int)n, MPI_DOUBLE, 0, tag, MPI_COMM_WORLD));
    free(out);
  }
}

/* Synchronous and persistent sends of doubles; a truncated receive with
 * MPI_ERRORS_RETURN, after which the channel still works. */
static void modes_and_truncation(void) {
  const long n = 30000;
  double* a = malloc(sizeof(double) * n);
  double* b = malloc(sizeof(double) * n);
  fill(a, n, 70 + rank, 0);
  if (rank == 0) {
    CHECK_MPI(MPI_Ssend(a, (int)n, MPI_DOUBLE, 1, 30, MPI_COMM_WORLD));
    MPI_Request p;
    CHECK_MPI(MPI_Send_init(a, 5000, MPI_DOUBLE, 1, 31, MPI_COMM_WORLD, &p));
    for (int it = 0; it < 4; ++it) {
      a[0] = it;
      CHECK_MPI(MPI_Start(&p));
      CHECK_MPI(MPI_Wait(&p, MPI_STATUS_IGNORE));
    }
    MPI_Request_free(&p);
    CHECK_MPI(MPI_Send(a, 5000, MPI_DOUBLE, 1, 32, MPI_COMM_WORLD));   /* eager, truncated */
    CHECK_MPI(MPI_Send(a, (int)n, MPI_DOUBLE, 1, 33, MPI_COMM_WORLD)); /* rendezvous, truncated */
    CHECK_MPI(MPI_Send(a, (int)n, MPI_DOUBLE, 1, 34, MPI_COMM_WORLD));
  } else if (rank == 1) {
    double* want = malloc(sizeof(double) * n);
    fill(want, n, 70, 0);
    CHECK_MPI(MPI_Recv(b, (int)n, MPI_DOUBLE, 0, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    expect_same(b, want, sizeof(double) * n, "ssend", n);
    MPI_Request p;
    CHECK_MPI(MPI_Recv_init(b, 5000, MPI_DOUBLE, 0, 31, MPI_COMM_WORLD, &p));
    for (int it = 0; it < 4; ++it) {
      CHECK_MPI(MPI_Start(&p));
      CHECK_MPI(MPI_Wait(&p, MPI_STATUS_IGNORE));
      want[0] = it;
      expect_same(b, want, sizeof(double) * 5000, "persistent", it);
    }
    MPI_Request_free(&p);
    want[0] = 3;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Recv(b, 4000, MPI_DOUBLE, 0, 32, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE, "eager truncation gave class %d", cls);
    expect_same(b, want, sizeof(double) * 4000, "truncated eager", 4000);
    rc = MPI_Recv(b, 20000, MPI_DOUBLE, 0, 33, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE, "rendezvous truncation gave class %d", cls);
    expect_same(b, want, sizeof(double) * 20000, "truncated rendezvous", 20000);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    CHECK_MPI(MPI_Recv(b, (int)n, MPI_DOUBLE, 0, 34, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    expect_same(b, want, sizeof(double) * n, "after truncation", n);
    free(want);
  }
  free(a);
  free(b);
}

/* MPI_Bsend: the attached buffer's copy of a double message is coded like a standard
 * send (with "on", rank 0's coded frame count grows by the eager message and the
 * rendezvous chunks), and arrives bit for bit. */
static void buffered(int want_mode) {
  const long n = 30000;
  double* a = malloc(sizeof(double) * n);
  const int bufBytes = (int)(sizeof(double) * (n + 1000)) + 2 * MPI_BSEND_OVERHEAD;
  void* attached = malloc((size_t)bufBytes);
  if (rank == 0) {
    fill(a, n, 80, 0);
    MPIX_Compress_stats before, after;
    CHECK_MPI(MPIX_Compress_get_stats(&before));
    CHECK_MPI(MPI_Buffer_attach(attached, bufBytes));
    CHECK_MPI(MPI_Bsend(a, 1000, MPI_DOUBLE, 1, 40, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Bsend(a, (int)n, MPI_DOUBLE, 1, 41, MPI_COMM_WORLD));
    void* back;
    int backBytes;
    CHECK_MPI(MPI_Buffer_detach(&back, &backBytes));
    CHECK(back == attached && backBytes == bufBytes, "detach gave %p/%d", back, backBytes);
    CHECK_MPI(MPIX_Compress_get_stats(&after));
    if (want_mode == 1)
      CHECK(after.sent_frames >= before.sent_frames + 2, "buffered sends not coded (%llu -> %llu)",
            before.sent_frames, after.sent_frames);
  } else if (rank == 1) {
    double* want = malloc(sizeof(double) * n);
    fill(want, n, 80, 0);
    CHECK_MPI(MPI_Recv(a, 1000, MPI_DOUBLE, 0, 40, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    expect_same(a, want, sizeof(double) * 1000, "bsend eager", 1000);
    CHECK_MPI(MPI_Recv(a, (int)n, MPI_DOUBLE, 0, 41, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    expect_same(a, want, sizeof(double) * n, "bsend rendezvous", n);
    free(want);
  }
  free(attached);
  free(a);
}

static void collectives(void) {
  const int n = 20000;
  double* a = malloc(sizeof(double) * n);
  double* r = malloc(sizeof(double) * n);
  for (int i = 0; i < n; ++i) a[i] = (double)((i % 1000) * (rank + 1));
  CHECK_MPI(MPI_Allreduce(a, r, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  const double f = size * (size + 1) / 2.0;
  for (int i = 0; i < n; ++i) CHECK(r[i] == (double)(i % 1000) * f, "allreduce %d", i);
  const int per = 3000;
  double* s = malloc(sizeof(double) * per * (size_t)size);
  double* t = malloc(sizeof(double) * per * (size_t)size);
  for (int j = 0; j < size; ++j)
    for (int i = 0; i < per; ++i) s[j * per + i] = smooth(rank * 100 + j, i);
  CHECK_MPI(MPI_Alltoall(s, per, MPI_DOUBLE, t, per, MPI_DOUBLE, MPI_COMM_WORLD));
  for (int j = 0; j < size; ++j)
    for (int i = 0; i < per; ++i)
      CHECK(t[j * per + i] == smooth(j * 100 + rank, i), "alltoall from %d element %d", j, i);
  if (rank == 0) fill(a, n, 90, 2);
  CHECK_MPI(MPI_Bcast(a, n, MPI_DOUBLE, 0, MPI_COMM_WORLD));
  fill(r, n, 90, 2);
  expect_same(a, r, sizeof(double) * n, "bcast", n);
  free(a);
  free(r);
  free(s);
  free(t);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(argc > 1, "usage: compress_p2p off|on|auto|local");
  const int local = strcmp(argv[1], "local") == 0;
  const int want_mode = strcmp(argv[1], "on") == 0 || local ? 1
                        : strcmp(argv[1], "auto") == 0      ? 2
                                                            : 0;
  MPIX_Compress_stats st0;
  CHECK_MPI(MPIX_Compress_get_stats(&st0));
  CHECK(st0.mode == want_mode, "mode %d, expected %d (%s)", st0.mode, want_mode, argv[1]);

  const long sizes[] = {0, 1, 127, 128, 129, 1000, 2047, 8191, 8192, 8193, 20000, 100001};
  for (int k = 0; k < 3; ++k)
    for (int i = 0; i < (int)(sizeof(sizes) / sizeof(sizes[0])); ++i) ring(sizes[i], k, i);
  if (size >= 2) {
    unexpected_reverse();
    modes_and_truncation();
    buffered(local ? 0 : want_mode);
  }
  derived(5);
  derived(3000);
  derived(70001);
  other_types(1001);
  other_types(40001);
  wildcard(5000, 20);
  wildcard(60000, 21);
  collectives();
  /* Many rounds of one size: the channel's predictor carries across messages. */
  for (int it = 0; it < 20; ++it) ring(4096, 0, 200 + it);

  MPIX_Compress_stats st;
  CHECK_MPI(MPIX_Compress_get_stats(&st));
  unsigned long long mine[6] = {st.sent_frames, st.sent_bytes, st.sent_wire,
                                st.recv_frames, st.recv_bytes, st.recv_wire};
  unsigned long long sum[6];
  CHECK_MPI(MPI_Allreduce(mine, sum, 6, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
  CHECK(sum[0] == sum[3] && sum[1] == sum[4] && sum[2] == sum[5],
        "counters do not balance: sent %llu frames %llu bytes %llu wire, received %llu %llu "
        "%llu",
        sum[0], sum[1], sum[2], sum[3], sum[4], sum[5]);
  if (want_mode == 0 || size == 1 || local) {
    CHECK(sum[0] == 0 && sum[3] == 0, "frames coded with compression off or one rank: %llu",
          sum[0]);
  } else if (want_mode == 1) {
    CHECK(st.sent_frames > 0 && st.recv_frames > 0, "rank coded %llu and decoded %llu frames",
          st.sent_frames, st.recv_frames);
    CHECK(sum[2] * 10 < sum[1] * 9, "smooth data did not shrink: %llu bytes to %llu", sum[1],
          sum[2]);
  } else {
    CHECK(st.sent_frames > 0, "auto mode never tried to code (rank sent %llu frames)",
          st.sent_frames);
  }
  if (rank == 0) printf("frames %llu, %llu bytes -> %llu on the wire\n", sum[0], sum[1], sum[2]);
  test_pass("compress_p2p");
  MPI_Finalize();
  return 0;
}
