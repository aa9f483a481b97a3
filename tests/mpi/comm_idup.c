/* MPI_Comm_idup and MPI_Comm_idup_with_info: truly nonblocking (an idup overlapped with
 * communication that the other side needs first must not hang), several idups
 * outstanding at once on one and on different communicators (in different orders on
 * different ranks) give distinct communicators, the handle is returned at once and the
 * attributes are copied at the call, info hints, idup of a communicator from
 * MPI_Comm_create_group, and an idup overlapped by a blocking MPI_Comm_dup. */
#include <string.h>

#include "check.h"

static int copies = 0;

static int copy_attr(MPI_Comm comm, int keyval, void* extra, void* in, void* out, int* flag) {
  (void)comm;
  (void)keyval;
  (void)extra;
  ++copies;
  *(void**)out = in;
  *flag = 1;
  return MPI_SUCCESS;
}

/* Each communicator in comms[0..n) carries its own messages: rank 0 sends 100 + i on
 * comms[i] (same tag everywhere), rank 1 receives them in reverse order. Two
 * communicators sharing a context would swap the values. */
static void check_distinct(MPI_Comm* comms, int n, int rank) {
  for (int i = 0; i < n; ++i) {
    int sz;
    CHECK_MPI(MPI_Comm_size(comms[i], &sz));
    int sum = 0, one = 1;
    CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comms[i]));
    CHECK(sum == sz, "allreduce on comm %d gave %d, size %d", i, sum, sz);
  }
  if (rank == 0) {
    for (int i = 0; i < n; ++i) {
      int v = 100 + i;
      CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 1, 7, comms[i]));
    }
  } else if (rank == 1) {
    for (int i = n - 1; i >= 0; --i) {
      int v = -1;
      CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, 0, 7, comms[i], MPI_STATUS_IGNORE));
      CHECK(v == 100 + i, "communicator %d received %d: contexts collide", i, v);
    }
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2, "needs at least 2 processes");

  /* 1. Overlap: rank 0 idups, then synchronously sends to rank 1, which calls idup only
   *    after receiving. A blocking idup deadlocks here. */
  {
    MPI_Comm dup = MPI_COMM_NULL;
    MPI_Request req;
    int v = 5;
    if (rank == 1) {
      CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req));
    } else {
      CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req));
      if (rank == 0) CHECK_MPI(MPI_Ssend(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD));
    }
    CHECK(dup != MPI_COMM_NULL, "MPI_Comm_idup did not return the handle at once");
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    int result;
    CHECK_MPI(MPI_Comm_compare(dup, MPI_COMM_WORLD, &result));
    CHECK(result == MPI_CONGRUENT, "idup is not congruent to its parent (%d)", result);
    CHECK_MPI(MPI_Comm_free(&dup));
  }

  /* 2. Several outstanding on one and on different communicators, issued in different
   *    orders on even and odd ranks (different communicators need no common order), a
   *    blocking dup of another communicator in the middle. */
  {
    MPI_Comm a, b, out[6], extra;
    MPI_Request reqs[6];
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &b));
    if (rank % 2 == 0) {
      CHECK_MPI(MPI_Comm_idup(a, &out[0], &reqs[0]));
      CHECK_MPI(MPI_Comm_idup(a, &out[1], &reqs[1]));
      CHECK_MPI(MPI_Comm_idup(b, &out[2], &reqs[2]));
      CHECK_MPI(MPI_Comm_idup(b, &out[3], &reqs[3]));
    } else {
      CHECK_MPI(MPI_Comm_idup(b, &out[2], &reqs[2]));
      CHECK_MPI(MPI_Comm_idup(b, &out[3], &reqs[3]));
      CHECK_MPI(MPI_Comm_idup(a, &out[0], &reqs[0]));
      CHECK_MPI(MPI_Comm_idup(a, &out[1], &reqs[1]));
    }
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &extra));
    CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &out[4], &reqs[4]));
    CHECK_MPI(MPI_Comm_idup(extra, &out[5], &reqs[5]));
    CHECK_MPI(MPI_Waitall(6, reqs, MPI_STATUSES_IGNORE));
    MPI_Comm all[9] = {out[0], out[1], out[2], out[3], out[4], out[5], a, b, extra};
    check_distinct(all, 9, rank);
    for (int i = 0; i < 6; ++i) CHECK_MPI(MPI_Comm_free(&out[i]));
    CHECK_MPI(MPI_Comm_free(&a));
    CHECK_MPI(MPI_Comm_free(&b));
    CHECK_MPI(MPI_Comm_free(&extra));
  }

  /* 3. Attributes are copied at the call; info hints of idup_with_info. */
  {
    int keyval;
    static int before = 1, after = 2;
    CHECK_MPI(MPI_Comm_create_keyval(copy_attr, MPI_COMM_NULL_DELETE_FN, &keyval, NULL));
    MPI_Comm parent;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &parent));
    CHECK_MPI(MPI_Comm_set_attr(parent, keyval, &before));
    MPI_Comm dup, dup2;
    MPI_Request reqs[2];
    copies = 0;
    CHECK_MPI(MPI_Comm_idup(parent, &dup, &reqs[0]));
    CHECK(copies == 1, "the copy callback ran %d times during MPI_Comm_idup", copies);
    CHECK_MPI(MPI_Comm_set_attr(parent, keyval, &after));
    MPI_Info info;
    CHECK_MPI(MPI_Info_create(&info));
    CHECK_MPI(MPI_Info_set(info, "mpi_assert_no_any_tag", "true"));
    CHECK_MPI(MPI_Comm_idup_with_info(parent, info, &dup2, &reqs[1]));
    CHECK_MPI(MPI_Info_free(&info));
    CHECK_MPI(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
    void* val;
    int flag = 0;
    CHECK_MPI(MPI_Comm_get_attr(dup, keyval, &val, &flag));
    CHECK(flag && val == &before, "idup's attribute is not the value at the call");
    CHECK_MPI(MPI_Comm_get_attr(dup2, keyval, &val, &flag));
    CHECK(flag && val == &after, "idup_with_info's attribute is not the value at the call");
    MPI_Info used;
    char value[MPI_MAX_INFO_VAL];
    CHECK_MPI(MPI_Comm_get_info(dup2, &used));
    CHECK_MPI(MPI_Info_get(used, "mpi_assert_no_any_tag", MPI_MAX_INFO_VAL - 1, value, &flag));
    CHECK(flag && strcmp(value, "true") == 0, "idup_with_info lost the hint");
    CHECK_MPI(MPI_Info_free(&used));
    MPI_Comm pair[2] = {dup, dup2};
    check_distinct(pair, 2, rank);
    CHECK_MPI(MPI_Comm_free(&dup));
    CHECK_MPI(MPI_Comm_free(&dup2));
    CHECK_MPI(MPI_Comm_free(&parent));
    CHECK_MPI(MPI_Comm_free_keyval(&keyval));
  }

  /* 4. idup of a communicator made by MPI_Comm_create_group (ranks 0 and 1), overlapped
   *    with a nonblocking barrier on MPI_COMM_WORLD. */
  {
    MPI_Group world, pair;
    int ranks[2] = {0, 1};
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
    CHECK_MPI(MPI_Group_incl(world, 2, ranks, &pair));
    MPI_Request barrier;
    CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &barrier));
    if (rank < 2) {
      MPI_Comm sub, dup[2];
      MPI_Request reqs[2];
      CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, pair, 3, &sub));
      CHECK_MPI(MPI_Comm_idup(sub, &dup[0], &reqs[0]));
      CHECK_MPI(MPI_Comm_idup(sub, &dup[1], &reqs[1]));
      CHECK_MPI(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
      check_distinct(dup, 2, rank);
      CHECK_MPI(MPI_Comm_free(&dup[0]));
      CHECK_MPI(MPI_Comm_free(&dup[1]));
      CHECK_MPI(MPI_Comm_free(&sub));
    }
    CHECK_MPI(MPI_Wait(&barrier, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Group_free(&pair));
    CHECK_MPI(MPI_Group_free(&world));
  }

  MPI_Barrier(MPI_COMM_WORLD);
  test_pass("comm_idup");
  MPI_Finalize();
  return 0;
}
