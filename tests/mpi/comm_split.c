/* Communicator constructors: Comm_split (ordering by key, MPI_UNDEFINED), Comm_create,
 * Comm_create_group, Comm_split_type(SHARED), Comm_dup, Comm_compare, names, and
 * context-id recycling (more create/free cycles than there are ids) and exhaustion. */
#include <string.h>

#include "check.h"

/* Passes a token around comm and checks that it visited every rank in order. */
static void ring_check(MPI_Comm comm, const char* what) {
  int rank, size;
  CHECK_MPI(MPI_Comm_rank(comm, &rank));
  CHECK_MPI(MPI_Comm_size(comm, &size));
  int token = rank * 1000, got = -1;
  CHECK_MPI(MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 7, &got, 1, MPI_INT,
                         (rank + size - 1) % size, 7, comm, MPI_STATUS_IGNORE));
  CHECK(got == ((rank + size - 1) % size) * 1000, "%s: ring got %d", what, got);
}

/* World rank of comm rank r of comm. */
static int world_of(MPI_Comm comm, int r) {
  MPI_Group g, w;
  int out = -1;
  CHECK_MPI(MPI_Comm_group(comm, &g));
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &w));
  CHECK_MPI(MPI_Group_translate_ranks(g, 1, &r, w, &out));
  CHECK_MPI(MPI_Group_free(&g));
  CHECK_MPI(MPI_Group_free(&w));
  return out;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  /* Names. */
  char name[MPI_MAX_OBJECT_NAME];
  int len;
  CHECK_MPI(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
  CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14, "world name '%s'", name);
  CHECK_MPI(MPI_Comm_get_name(MPI_COMM_SELF, name, &len));
  CHECK(strcmp(name, "MPI_COMM_SELF") == 0, "self name '%s'", name);
  int flag = -1;
  CHECK_MPI(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag));
  CHECK(flag == 0, "world is not an intercommunicator");

  /* Split by parity, reversed by key. */
  MPI_Comm half;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half));
  int hr, hs;
  CHECK_MPI(MPI_Comm_rank(half, &hr));
  CHECK_MPI(MPI_Comm_size(half, &hs));
  const int expect_size = (rank % 2 == 0) ? (size + 1) / 2 : size / 2;
  CHECK(hs == expect_size, "half size %d, expected %d", hs, expect_size);
  /* Members of my parity in decreasing world rank order. */
  for (int r = 0; r < hs; ++r) {
    int top = (rank % 2 == 0) ? ((size - 1) / 2) * 2 : ((size - 2) / 2) * 2 + 1;
    CHECK(world_of(half, r) == top - 2 * r, "half rank %d is world %d", r, world_of(half, r));
  }
  CHECK(world_of(half, hr) == rank, "my half rank %d maps back to %d", hr, world_of(half, hr));
  ring_check(half, "half");
  CHECK_MPI(MPI_Comm_set_name(half, "half"));
  CHECK_MPI(MPI_Comm_get_name(half, name, &len));
  CHECK(strcmp(name, "half") == 0 && len == 4, "half name '%s'", name);

  /* Equal keys keep parent order; MPI_UNDEFINED yields MPI_COMM_NULL. */
  MPI_Comm low;
  const int color = rank < size / 2 ? 0 : MPI_UNDEFINED;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, 0, &low));
  if (color == MPI_UNDEFINED) {
    CHECK(low == MPI_COMM_NULL, "undefined color must give MPI_COMM_NULL");
  } else {
    int lr;
    CHECK_MPI(MPI_Comm_rank(low, &lr));
    CHECK(lr == rank, "low rank %d != world rank %d", lr, rank);
    ring_check(low, "low");
    CHECK_MPI(MPI_Comm_free(&low));
    CHECK(low == MPI_COMM_NULL, "free sets MPI_COMM_NULL");
  }

  /* Compare. */
  int result;
  MPI_Comm dup, same, rev;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  CHECK_MPI(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &result));
  CHECK(result == MPI_IDENT, "world vs world: %d", result);
  CHECK_MPI(MPI_Comm_compare(MPI_COMM_WORLD, dup, &result));
  CHECK(result == MPI_CONGRUENT, "world vs dup: %d", result);
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &same));
  CHECK_MPI(MPI_Comm_compare(same, dup, &result));
  CHECK(result == MPI_CONGRUENT, "split(same order) vs dup: %d", result);
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &rev));
  CHECK_MPI(MPI_Comm_compare(rev, MPI_COMM_WORLD, &result));
  CHECK(result == (size > 1 ? MPI_SIMILAR : MPI_CONGRUENT), "reversed vs world: %d", result);
  CHECK_MPI(MPI_Comm_compare(half, MPI_COMM_WORLD, &result));
  CHECK(result == (size > 1 ? MPI_UNEQUAL : MPI_SIMILAR) || size == 1, "half vs world: %d", result);
  ring_check(dup, "dup");
  ring_check(rev, "rev");
  /* Traffic on dup and world does not mix: send on both with the same tag. */
  if (size > 1) {
    int a = 1, b = 2, ra = 0, rb = 0;
    const int to = (rank + 1) % size, from = (rank + size - 1) % size;
    MPI_Request rq[4];
    MPI_Status st[4];
    CHECK_MPI(MPI_Irecv(&rb, 1, MPI_INT, from, 5, dup, &rq[0]));
    CHECK_MPI(MPI_Irecv(&ra, 1, MPI_INT, from, 5, MPI_COMM_WORLD, &rq[1]));
    CHECK_MPI(MPI_Isend(&a, 1, MPI_INT, to, 5, MPI_COMM_WORLD, &rq[2]));
    CHECK_MPI(MPI_Isend(&b, 1, MPI_INT, to, 5, dup, &rq[3]));
    CHECK_MPI(MPI_Waitall(4, rq, st));
    CHECK(ra == 1 && rb == 2, "context isolation: world got %d, dup got %d", ra, rb);
  }

  /* Comm_create with the even ranks of world, in reverse order. */
  MPI_Group wg, evens;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
  int ranges[1][3] = {{((size - 1) / 2) * 2, 0, -2}};
  CHECK_MPI(MPI_Group_range_incl(wg, 1, ranges, &evens));
  MPI_Comm ec;
  CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, evens, &ec));
  if (rank % 2 == 0) {
    int er, es;
    CHECK(ec != MPI_COMM_NULL, "even rank must be in the created comm");
    CHECK_MPI(MPI_Comm_rank(ec, &er));
    CHECK_MPI(MPI_Comm_size(ec, &es));
    CHECK(es == (size + 1) / 2, "created size %d", es);
    CHECK(world_of(ec, er) == rank && er == (((size - 1) / 2) * 2 - rank) / 2, "created rank %d",
          er);
    ring_check(ec, "create");
    CHECK_MPI(MPI_Comm_free(&ec));
  } else {
    CHECK(ec == MPI_COMM_NULL, "odd rank must get MPI_COMM_NULL from Comm_create");
  }

  /* Comm_create_group: only the odd ranks call. */
  if (rank % 2 == 1) {
    MPI_Group odds;
    int r1[1][3] = {{1, size - 1, 2}};
    CHECK_MPI(MPI_Group_range_incl(wg, 1, r1, &odds));
    MPI_Comm oc;
    CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, odds, 42, &oc));
    int orank;
    CHECK_MPI(MPI_Comm_rank(oc, &orank));
    CHECK(orank == rank / 2, "create_group rank %d", orank);
    ring_check(oc, "create_group");
    CHECK_MPI(MPI_Comm_free(&oc));
    CHECK_MPI(MPI_Group_free(&odds));
  }
  CHECK_MPI(MPI_Group_free(&evens));
  CHECK_MPI(MPI_Group_free(&wg));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  /* Split by host: every process of this test runs on one host. */
  MPI_Comm node;
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
  int ns;
  CHECK_MPI(MPI_Comm_size(node, &ns));
  CHECK(ns == size, "shared split size %d, world %d", ns, size);
  ring_check(node, "shared");
  CHECK_MPI(MPI_Comm_free(&node));
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED, 0,
                                MPI_INFO_NULL, &node));
  if (rank == 0) {
    CHECK(node == MPI_COMM_NULL, "MPI_UNDEFINED split_type gives MPI_COMM_NULL");
  } else {
    CHECK_MPI(MPI_Comm_size(node, &ns));
    CHECK(ns == size - 1, "shared split without rank 0: size %d", ns);
    CHECK_MPI(MPI_Comm_free(&node));
  }

  /* More create/free cycles than context ids: ids must be recycled. */
  for (int i = 0; i < 2100; ++i) {
    MPI_Comm c;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CHECK_MPI(MPI_Comm_free(&c));
  }

  /* Exhaustion: dup until the library runs out of ids, then free them all. */
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  static MPI_Comm many[4096];
  int n = 0, err = MPI_SUCCESS;
  while (n < 4096) {
    err = MPI_Comm_dup(MPI_COMM_WORLD, &many[n]);
    if (err != MPI_SUCCESS) break;
    ++n;
  }
  int cls = -1;
  MPI_Error_class(err, &cls);
  CHECK(cls == MPI_ERR_INTERN, "exhaustion after %d dups: class %d", n, cls);
  CHECK(n > 1000, "only %d communicators could be created", n);
  for (int i = 0; i < n; ++i) CHECK_MPI(MPI_Comm_free(&many[i]));
  MPI_Comm again;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &again));
  ring_check(again, "after exhaustion");
  CHECK_MPI(MPI_Comm_free(&again));

  /* No parent; disconnect waits for pending traffic and frees. */
  MPI_Comm parent = MPI_COMM_WORLD;
  CHECK_MPI(MPI_Comm_get_parent(&parent));
  CHECK(parent == MPI_COMM_NULL, "MPI_Comm_get_parent");
  MPI_Comm disc;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &disc));
  {
    int s = rank, r = -1;
    MPI_Request rq[2];
    CHECK_MPI(MPI_Irecv(&r, 1, MPI_INT, (rank + size - 1) % size, 1, disc, &rq[0]));
    CHECK_MPI(MPI_Isend(&s, 1, MPI_INT, (rank + 1) % size, 1, disc, &rq[1]));
    CHECK_MPI(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    CHECK(r == (rank + size - 1) % size, "traffic before disconnect");
  }
  CHECK_MPI(MPI_Comm_disconnect(&disc));
  CHECK(disc == MPI_COMM_NULL, "disconnect sets MPI_COMM_NULL");

  CHECK_MPI(MPI_Comm_free(&half));
  CHECK_MPI(MPI_Comm_free(&dup));
  CHECK_MPI(MPI_Comm_free(&same));
  CHECK_MPI(MPI_Comm_free(&rev));
  test_pass("comm_split");
  MPI_Finalize();
  return 0;
}
