/* Nonblocking collectives in flight together and with other traffic:
 *  - many collectives outstanding at once on one communicator, completed in reverse order
 *    (Waitall on a reversed array) and in arrival order (Testany loop), each result
 *    checked element by element;
 *  - blocking collectives started while nonblocking ones on the same communicator are
 *    still outstanding;
 *  - collectives on several communicators (a duplicate, an even/odd split, a reversed
 *    split) completed in an order that differs from rank to rank; a communicator freed
 *    while its collective is still running;
 *  - point-to-point traffic, including MPI_ANY_SOURCE/MPI_ANY_TAG receives, between the
 *    start and the completion of collectives: it never sees a collective's message;
 *  - progress in the background: a rank blocks in MPI_Recv / MPI_Probe for a message that
 *    a peer sends only once its own copy of the collective has completed, which needs the
 *    blocked rank's schedule to advance inside those unrelated calls. */
#include "coll_nb_util.h"

enum { NCOLL = 6 };

/* Results of one batch of six different collectives on `comm` (size n, rank r). */
typedef struct {
  int count;
  int *bc, *ar_in, *ar_out, *a2a_in, *a2a_out, *ga_out, *sc_out;
} Batch;

static void batch_init(Batch* b, int count, int n, int r, int salt) {
  b->count = count;
  b->bc = ialloc(count, SENTINEL);
  b->ar_in = ialloc(count, 0);
  b->ar_out = ialloc(count, SENTINEL);
  b->a2a_in = ialloc((long)count * n, 0);
  b->a2a_out = ialloc((long)count * n, SENTINEL);
  b->ga_out = ialloc((long)count * n, SENTINEL);
  b->sc_out = ialloc(count, SENTINEL);
  for (int i = 0; i < count; ++i) {
    if (r == 0) b->bc[i] = val(salt, i);
    b->ar_in[i] = val(r + salt, i);
  }
  for (int p = 0; p < n; ++p)
    for (int i = 0; i < count; ++i) b->a2a_in[(long)p * count + i] = val3(r, p, i) + salt;
}

/* Starts the batch's six collectives: bcast, allreduce, alltoall, barrier, gather, scan. */
static void batch_start(Batch* b, MPI_Comm comm, MPI_Request* req) {
  const int c = b->count;
  CHECK_MPI(MPI_Ibcast(b->bc, c, MPI_INT, 0, comm, &req[0]));
  CHECK_MPI(MPI_Iallreduce(b->ar_in, b->ar_out, c, MPI_INT, MPI_SUM, comm, &req[1]));
  CHECK_MPI(MPI_Ialltoall(b->a2a_in, c, MPI_INT, b->a2a_out, c, MPI_INT, comm, &req[2]));
  CHECK_MPI(MPI_Ibarrier(comm, &req[3]));
  CHECK_MPI(MPI_Igather(b->ar_in, c, MPI_INT, b->ga_out, c, MPI_INT, 0, comm, &req[4]));
  CHECK_MPI(MPI_Iscan(b->ar_in, b->sc_out, c, MPI_INT, MPI_SUM, comm, &req[5]));
}

static void batch_check(Batch* b, int n, int r, int salt, const char* what) {
  for (int i = 0; i < b->count; ++i) {
    CHECK(b->bc[i] == val(salt, i), "%s: ibcast element %d", what, i);
    int sum = 0, prefix = 0;
    for (int p = 0; p < n; ++p) {
      sum += val(p + salt, i);
      if (p <= r) prefix += val(p + salt, i);
    }
    CHECK(b->ar_out[i] == sum, "%s: iallreduce element %d", what, i);
    CHECK(b->sc_out[i] == prefix, "%s: iscan element %d", what, i);
    for (int p = 0; p < n; ++p) {
      CHECK(b->a2a_out[(long)p * b->count + i] == val3(p, r, i) + salt,
            "%s: ialltoall block %d element %d", what, p, i);
      if (r == 0)
        CHECK(b->ga_out[(long)p * b->count + i] == val(p + salt, i), "%s: igather block %d elem %d",
              what, p, i);
    }
  }
}

static void batch_free(Batch* b) {
  free(b->bc);
  free(b->ar_in);
  free(b->ar_out);
  free(b->a2a_in);
  free(b->a2a_out);
  free(b->ga_out);
  free(b->sc_out);
}

/* Several batches on one communicator, all outstanding, finished in reverse order or by
 * Testany; with blocking collectives and p2p traffic in between. */
static void check_same_comm(void) {
  const int counts[3] = {1, 777, 20000};
  Batch b[3];
  MPI_Request req[3 * NCOLL], rev[3 * NCOLL];
  for (int k = 0; k < 3; ++k) {
    batch_init(&b[k], counts[k], g_size, g_rank, 10 * k);
    batch_start(&b[k], MPI_COMM_WORLD, &req[NCOLL * k]);
  }
  /* Blocking collectives while all of these are outstanding. */
  int x = g_rank + 1, sum = 0;
  CHECK_MPI(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(sum == g_size * (g_size + 1) / 2, "blocking allreduce among nonblocking ones: %d", sum);
  int token = g_rank == g_size - 1 ? 4242 : 0;
  CHECK_MPI(MPI_Bcast(&token, 1, MPI_INT, g_size - 1, MPI_COMM_WORLD));
  CHECK(token == 4242, "blocking bcast among nonblocking ones: %d", token);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  /* Ring traffic with wildcard receives: only the p2p message may match. */
  const int right = (g_rank + 1) % g_size, left = (g_rank - 1 + g_size) % g_size;
  int got = -1;
  MPI_Status st;
  MPI_Request rr, sr;
  CHECK_MPI(MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rr));
  const int mine = 1000 + g_rank;
  CHECK_MPI(MPI_Isend(&mine, 1, MPI_INT, right, 64, MPI_COMM_WORLD, &sr));
  CHECK_MPI(MPI_Wait(&rr, &st));
  CHECK_MPI(MPI_Wait(&sr, MPI_STATUS_IGNORE));
  CHECK(got == 1000 + left && st.MPI_SOURCE == left && st.MPI_TAG == 64,
        "wildcard receive got %d from %d tag %d", got, st.MPI_SOURCE, st.MPI_TAG);

  /* Batch 2 and 1 in reverse order with Waitall, batch 0 by Testany. */
  for (int i = 0; i < 2 * NCOLL; ++i) rev[i] = req[3 * NCOLL - 1 - i];
  CHECK_MPI(MPI_Waitall(2 * NCOLL, rev, MPI_STATUSES_IGNORE));
  for (int i = 0; i < 2 * NCOLL; ++i) CHECK(rev[i] == MPI_REQUEST_NULL, "Waitall left a request");
  batch_check(&b[2], g_size, g_rank, 20, "batch 2");
  batch_check(&b[1], g_size, g_rank, 10, "batch 1");
  int done = 0, seen[NCOLL] = {0};
  while (done < NCOLL) {
    int idx = -1, flag = 0;
    CHECK_MPI(MPI_Testany(NCOLL, req, &idx, &flag, MPI_STATUS_IGNORE));
    if (!flag) continue;
    CHECK(idx >= 0 && idx < NCOLL && !seen[idx], "Testany index %d", idx);
    CHECK(req[idx] == MPI_REQUEST_NULL, "Testany did not free request %d", idx);
    seen[idx] = 1;
    ++done;
  }
  int idx = 0, flag = 0;
  CHECK_MPI(MPI_Testany(NCOLL, req, &idx, &flag, MPI_STATUS_IGNORE));
  CHECK(flag == 1 && idx == MPI_UNDEFINED, "Testany on all-null requests: flag %d index %d", flag,
        idx);
  batch_check(&b[0], g_size, g_rank, 0, "batch 0");
  for (int k = 0; k < 3; ++k) batch_free(&b[k]);
}

/* Many small allreduces outstanding at once: each must keep its own messages. */
static void check_many(void) {
  enum { N = 64 };
  int in[N], out[N];
  MPI_Request req[N];
  for (int k = 0; k < N; ++k) {
    in[k] = (g_rank + 1) * (k + 1);
    out[k] = SENTINEL;
    CHECK_MPI(MPI_Iallreduce(&in[k], &out[k], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[k]));
  }
  for (int k = N - 1; k >= 0; k -= 2) CHECK_MPI(MPI_Wait(&req[k], MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Waitall(N, req, MPI_STATUSES_IGNORE));
  for (int k = 0; k < N; ++k)
    CHECK(out[k] == (k + 1) * g_size * (g_size + 1) / 2, "allreduce %d of %d: %d", k, N, out[k]);
}

/* Collectives on four communicators at once, completed in a rank-dependent order. */
static void check_comms(void) {
  MPI_Comm comms[4];
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comms[0]));
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, g_rank % 2, g_rank, &comms[1]));
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, g_size - g_rank, &comms[2]));
  comms[3] = MPI_COMM_WORLD;
  Batch b[4];
  int n[4], r[4];
  MPI_Request req[4 * NCOLL];
  for (int k = 0; k < 4; ++k) {
    MPI_Comm_size(comms[k], &n[k]);
    MPI_Comm_rank(comms[k], &r[k]);
    batch_init(&b[k], 100 + 31 * k, n[k], r[k], 5 * k);
    batch_start(&b[k], comms[k], &req[NCOLL * k]);
  }
  /* The duplicate is freed while its collectives run. */
  CHECK_MPI(MPI_Comm_free(&comms[0]));
  for (int j = 0; j < 4; ++j) {
    const int k = (j + g_rank) % 4;
    if (g_rank % 2) {
      CHECK_MPI(MPI_Waitall(NCOLL, &req[NCOLL * k], MPI_STATUSES_IGNORE));
    } else {
      for (int i = NCOLL - 1; i >= 0; --i) complete_req(&req[NCOLL * k + i], i, "comms batch");
    }
    char what[32];
    snprintf(what, sizeof what, "communicator %d", k);
    batch_check(&b[k], n[k], r[k], 5 * k, what);
  }
  for (int k = 0; k < 4; ++k) batch_free(&b[k]);
  CHECK_MPI(MPI_Comm_free(&comms[1]));
  CHECK_MPI(MPI_Comm_free(&comms[2]));
}

/* Background progress: rank 0 blocks in MPI_Recv (and MPI_Probe) for a token that rank
 * `sender` sends only after completing the collective, and `sender` can complete only after
 * rank 0 passed something on in a later round of its schedule: the ring allgather's
 * forwarding (sender 1), the dissemination barrier's second round (sender 2), the binomial
 * broadcast from root n-2, where rank 0 relays to rank 1. Rank 0 never tests its request
 * before the token arrives. */
static void check_background(void) {
  if (g_size < 2) return;
  for (int kind = 0; kind < 3; ++kind) {
    enum { C = 3000 };
    int sender = 1, root = g_size - 2;
    if (kind == 0 && g_size >= 3) sender = 2;
    int* in = ialloc(C, 0);
    int* out = ialloc((long)C * g_size, SENTINEL);
    for (int i = 0; i < C; ++i) in[i] = val(g_rank, i);
    MPI_Request req;
    if (kind == 0) CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &req));
    if (kind == 1) CHECK_MPI(MPI_Iallgather(in, C, MPI_INT, out, C, MPI_INT, MPI_COMM_WORLD, &req));
    if (kind == 2) {
      if (g_rank == root) memcpy(out, in, sizeof(int) * C);
      CHECK_MPI(MPI_Ibcast(out, C, MPI_INT, root, MPI_COMM_WORLD, &req));
    }
    if (g_rank == sender) {
      CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
      CHECK_MPI(MPI_Send(&kind, 1, MPI_INT, 0, 7, MPI_COMM_WORLD));
    } else if (g_rank == 0) {
      MPI_Status st;
      if (kind == 1) CHECK_MPI(MPI_Probe(sender, 7, MPI_COMM_WORLD, &st));
      int token = -1;
      CHECK_MPI(MPI_Recv(&token, 1, MPI_INT, sender, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK(token == kind, "token %d, want %d", token, kind);
      CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    } else {
      CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    }
    if (kind == 1)
      for (int p = 0; p < g_size; ++p)
        for (int i = 0; i < C; ++i)
          CHECK(out[(long)p * C + i] == val(p, i), "background iallgather block %d elem %d", p, i);
    if (kind == 2)
      for (int i = 0; i < C; ++i) CHECK(out[i] == val(root, i), "background ibcast element %d", i);
    free(in);
    free(out);
  }
}

int main(int argc, char** argv) {
  coll_init(&argc, &argv);
  check_same_comm();
  check_many();
  check_comms();
  check_background();
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  test_pass("coll_nb_overlap");
  MPI_Finalize();
  return 0;
}
