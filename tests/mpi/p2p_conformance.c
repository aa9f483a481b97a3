/* Point-to-point rules of the standard that ccmpi once broke (NP 2):
 *  - zero-byte messages with NULL buffers (every send mode, a posted receive, zero-count
 *    derived types, nonzero counts of a zero-size type);
 *  - datatypes and ops freed while a request still uses them (persistent and nonblocking
 *    point-to-point, persistent and nonblocking collectives): the request keeps them;
 *  - single-completion calls leave status.MPI_ERROR alone; the multiple-completion calls
 *    set it only when they return MPI_ERR_IN_STATUS;
 *  - MPI_Comm_disconnect with an inactive persistent request on the communicator. */
#include <string.h>

#include "check.h"

#define SENTINEL 12345

static void zero_byte_null_buffers(int rank) {
  const int peer = 1 - rank;
  MPI_Datatype empty, empty_vec;
  CHECK_MPI(MPI_Type_contiguous(0, MPI_INT, &empty));
  CHECK_MPI(MPI_Type_commit(&empty));
  CHECK_MPI(MPI_Type_vector(0, 1, 2, MPI_DOUBLE, &empty_vec));
  CHECK_MPI(MPI_Type_commit(&empty_vec));
  static char bsend_buf[4 * MPI_BSEND_OVERHEAD + 64];
  CHECK_MPI(MPI_Buffer_attach(bsend_buf, sizeof bsend_buf));
  for (int mode = 0; mode < 6; ++mode) {
    for (int kind = 0; kind < 3; ++kind) {
      /* kind 0: MPI_INT count 0; 1: zero-size type, count 5; 2: zero-count vector, count 3 */
      const MPI_Datatype type = kind == 0 ? MPI_INT : kind == 1 ? empty : empty_vec;
      const int count = kind == 0 ? 0 : kind == 1 ? 5 : 3;
      const int tag = 10 * mode + kind;
      if (rank == 1) {
        MPI_Request r;
        MPI_Status st;
        CHECK_MPI(MPI_Irecv(NULL, count, type, peer, tag, MPI_COMM_WORLD, &r));
        CHECK_MPI(MPI_Send(NULL, 0, MPI_INT, peer, 1000 + tag, MPI_COMM_WORLD)); /* posted */
        CHECK_MPI(MPI_Wait(&r, &st));
        int n = -1;
        CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &n));
        CHECK(n == 0 && st.MPI_SOURCE == peer && st.MPI_TAG == tag, "mode %d kind %d: n=%d", mode,
              kind, n);
      } else {
        CHECK_MPI(MPI_Recv(NULL, 0, MPI_INT, peer, 1000 + tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_Request r = MPI_REQUEST_NULL;
        switch (mode) {
          case 0:
            CHECK_MPI(MPI_Send(NULL, count, type, peer, tag, MPI_COMM_WORLD));
            break;
          case 1:
            CHECK_MPI(MPI_Ssend(NULL, count, type, peer, tag, MPI_COMM_WORLD));
            break;
          case 2:
            CHECK_MPI(MPI_Rsend(NULL, count, type, peer, tag, MPI_COMM_WORLD));
            break;
          case 3:
            CHECK_MPI(MPI_Bsend(NULL, count, type, peer, tag, MPI_COMM_WORLD));
            break;
          case 4:
            CHECK_MPI(MPI_Isend(NULL, count, type, peer, tag, MPI_COMM_WORLD, &r));
            break;
          case 5:
            CHECK_MPI(MPI_Issend(NULL, count, type, peer, tag, MPI_COMM_WORLD, &r));
            break;
        }
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
      }
    }
  }
  /* An empty message may name no datatype (MPI_DATATYPE_NULL), as MPICH's tests expect. */
  {
    MPI_Request r;
    MPI_Status st;
    CHECK_MPI(MPI_Irecv(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 10, MPI_COMM_WORLD, &r));
    CHECK_MPI(MPI_Wait(&r, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG, "PROC_NULL status");
    CHECK_MPI(MPI_Recv(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 10, MPI_COMM_WORLD, &st));
    CHECK_MPI(MPI_Send(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 10, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Send_init(NULL, 0, MPI_DATATYPE_NULL, peer, 11, MPI_COMM_WORLD, &r));
    CHECK_MPI(MPI_Start(&r));
    CHECK_MPI(MPI_Recv(NULL, 0, MPI_DATATYPE_NULL, peer, 11, MPI_COMM_WORLD, &st));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Request_free(&r));
  }
  /* Unexpected (not yet posted) zero-byte synchronous send with a NULL buffer. */
  if (rank == 0) {
    CHECK_MPI(MPI_Ssend(NULL, 0, MPI_BYTE, peer, 99, MPI_COMM_WORLD));
  } else {
    CHECK_MPI(MPI_Probe(peer, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, peer, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  }
  void* detached;
  int size;
  CHECK_MPI(MPI_Buffer_detach(&detached, &size));
  CHECK_MPI(MPI_Type_free(&empty));
  CHECK_MPI(MPI_Type_free(&empty_vec));
}

static MPI_Datatype make_pair_type(void) {
  MPI_Datatype t;
  CHECK_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &t));
  CHECK_MPI(MPI_Type_commit(&t));
  return t;
}

/* Sums elements of the pair type (ints 0 and 2 of every 3). */
static void sum_pairs(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  for (int i = 0; i < *len; ++i) {
    ((int*)inout)[3 * i] += ((int*)in)[3 * i];
    ((int*)inout)[3 * i + 2] += ((int*)in)[3 * i + 2];
  }
}

static void freed_types_and_ops(int rank) {
  const int peer = 1 - rank;
  /* Persistent send/receive whose datatype is freed right after init. */
  int sbuf[4] = {1, -1, 2, -1}, rbuf[4] = {0, 0, 0, 0};
  MPI_Datatype t = make_pair_type();
  MPI_Request r;
  if (rank == 0)
    CHECK_MPI(MPI_Send_init(sbuf, 1, t, peer, 5, MPI_COMM_WORLD, &r));
  else
    CHECK_MPI(MPI_Recv_init(rbuf, 1, t, peer, 5, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Type_free(&t));
  for (int iter = 0; iter < 2; ++iter) {
    CHECK_MPI(MPI_Start(&r));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  }
  CHECK_MPI(MPI_Request_free(&r));
  if (rank == 1)
    CHECK(rbuf[0] == 1 && rbuf[1] == 0 && rbuf[2] == 2, "persistent recv got %d %d %d", rbuf[0],
          rbuf[1], rbuf[2]);

  /* Nonblocking send/receive with the type freed before the wait. */
  memset(rbuf, 0, sizeof rbuf);
  t = make_pair_type();
  if (rank == 0)
    CHECK_MPI(MPI_Isend(sbuf, 1, t, peer, 6, MPI_COMM_WORLD, &r));
  else
    CHECK_MPI(MPI_Irecv(rbuf, 1, t, peer, 6, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Type_free(&t));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  if (rank == 1)
    CHECK(rbuf[0] == 1 && rbuf[2] == 2, "nonblocking recv got %d %d", rbuf[0], rbuf[2]);

  /* Persistent and nonblocking reductions with a user op and a derived type, both freed. */
  for (int persistent = 0; persistent < 2; ++persistent) {
    int in[4] = {rank + 1, 7, 10 * (rank + 1), 7}, out[4] = {0, -5, 0, -5};
    MPI_Op op;
    CHECK_MPI(MPI_Op_create(sum_pairs, 1, &op));
    t = make_pair_type();
    if (persistent)
      CHECK_MPI(MPI_Allreduce_init(in, out, 1, t, op, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    else
      CHECK_MPI(MPI_Iallreduce(in, out, 1, t, op, MPI_COMM_WORLD, &r));
    CHECK_MPI(MPI_Type_free(&t));
    CHECK_MPI(MPI_Op_free(&op));
    if (persistent) CHECK_MPI(MPI_Start(&r));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    if (persistent) CHECK_MPI(MPI_Request_free(&r));
    CHECK(out[0] == 3 && out[2] == 30 && out[1] == -5, "reduction %d got %d %d %d", persistent,
          out[0], out[1], out[2]);
  }
}

static void status_error_untouched(int rank) {
  const int peer = 1 - rank;
  MPI_Status st;
  int v = 0, flag = 0;
  if (rank == 0) {
    for (int i = 0; i < 9; ++i) CHECK_MPI(MPI_Send(&i, 1, MPI_INT, peer, 20 + i, MPI_COMM_WORLD));
  } else {
    MPI_Message m;
    MPI_Request r, rs[2];
    MPI_Status sts[2];
    st.MPI_ERROR = SENTINEL;
    CHECK_MPI(MPI_Probe(peer, 20, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_ERROR == SENTINEL, "MPI_Probe set MPI_ERROR to %d", st.MPI_ERROR);
    do {
      st.MPI_ERROR = SENTINEL;
      CHECK_MPI(MPI_Iprobe(peer, 20, MPI_COMM_WORLD, &flag, &st));
    } while (!flag);
    CHECK(st.MPI_ERROR == SENTINEL, "MPI_Iprobe set MPI_ERROR to %d", st.MPI_ERROR);
    st.MPI_ERROR = SENTINEL;
    CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, peer, 20, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_ERROR == SENTINEL, "MPI_Recv set MPI_ERROR to %d", st.MPI_ERROR);
    st.MPI_ERROR = SENTINEL;
    CHECK_MPI(MPI_Mprobe(peer, 21, MPI_COMM_WORLD, &m, &st));
    CHECK(st.MPI_ERROR == SENTINEL, "MPI_Mprobe set MPI_ERROR to %d", st.MPI_ERROR);
    st.MPI_ERROR = SENTINEL;
    CHECK_MPI(MPI_Mrecv(&v, 1, MPI_INT, &m, &st));
    CHECK(st.MPI_ERROR == SENTINEL && v == 1, "MPI_Mrecv set MPI_ERROR to %d", st.MPI_ERROR);
    do {
      st.MPI_ERROR = SENTINEL;
      CHECK_MPI(MPI_Improbe(peer, 22, MPI_COMM_WORLD, &flag, &m, &st));
    } while (!flag);
    CHECK(st.MPI_ERROR == SENTINEL, "MPI_Improbe set MPI_ERROR to %d", st.MPI_ERROR);
    CHECK_MPI(MPI_Imrecv(&v, 1, MPI_INT, &m, &r));
    st.MPI_ERROR = SENTINEL;
    CHECK_MPI(MPI_Wait(&r, &st));
    CHECK(st.MPI_ERROR == SENTINEL && v == 2, "MPI_Wait set MPI_ERROR to %d", st.MPI_ERROR);
    CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, peer, 23, MPI_COMM_WORLD, &r));
    do {
      st.MPI_ERROR = SENTINEL;
      CHECK_MPI(MPI_Test(&r, &flag, &st));
    } while (!flag);
    CHECK(st.MPI_ERROR == SENTINEL, "MPI_Test set MPI_ERROR to %d", st.MPI_ERROR);
    CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, peer, 24, MPI_COMM_WORLD, &r));
    int idx = -1;
    st.MPI_ERROR = SENTINEL;
    CHECK_MPI(MPI_Waitany(1, &r, &idx, &st));
    CHECK(st.MPI_ERROR == SENTINEL, "MPI_Waitany set MPI_ERROR to %d", st.MPI_ERROR);
    CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, peer, 25, MPI_COMM_WORLD, &rs[0]));
    CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, peer, 26, MPI_COMM_WORLD, &rs[1]));
    sts[0].MPI_ERROR = sts[1].MPI_ERROR = SENTINEL;
    CHECK_MPI(MPI_Waitall(2, rs, sts));
    CHECK(sts[0].MPI_ERROR == SENTINEL && sts[1].MPI_ERROR == SENTINEL,
          "MPI_Waitall without error set MPI_ERROR to %d %d", sts[0].MPI_ERROR, sts[1].MPI_ERROR);
    CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, peer, 27, MPI_COMM_WORLD, &rs[0]));
    int out = 0, idxs[1];
    sts[0].MPI_ERROR = SENTINEL;
    CHECK_MPI(MPI_Waitsome(1, rs, &out, idxs, sts));
    CHECK(out == 1 && sts[0].MPI_ERROR == SENTINEL, "MPI_Waitsome set MPI_ERROR to %d",
          sts[0].MPI_ERROR);
    CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, peer, 28, MPI_COMM_WORLD, &rs[0]));
    do {
      sts[0].MPI_ERROR = SENTINEL;
      CHECK_MPI(MPI_Testall(1, rs, &flag, sts));
    } while (!flag);
    CHECK(sts[0].MPI_ERROR == SENTINEL, "MPI_Testall set MPI_ERROR to %d", sts[0].MPI_ERROR);
  }
  /* Sendrecv, and a receive from MPI_PROC_NULL. */
  st.MPI_ERROR = SENTINEL;
  CHECK_MPI(
      MPI_Sendrecv(&rank, 1, MPI_INT, peer, 30, &v, 1, MPI_INT, peer, 30, MPI_COMM_WORLD, &st));
  CHECK(st.MPI_ERROR == SENTINEL && v == peer, "MPI_Sendrecv set MPI_ERROR to %d", st.MPI_ERROR);
  st.MPI_ERROR = SENTINEL;
  CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
  CHECK(st.MPI_ERROR == SENTINEL && st.MPI_SOURCE == MPI_PROC_NULL,
        "MPI_Recv from MPI_PROC_NULL set MPI_ERROR to %d", st.MPI_ERROR);
}

static void disconnect_with_inactive_persistent(int rank) {
  MPI_Comm dup;
  MPI_Request r;
  int v = 0;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  /* Created, never started: an inactive persistent request is complete. */
  CHECK_MPI(MPI_Send_init(&v, 1, MPI_INT, 1 - rank, 0, dup, &r));
  MPI_Request coll;
  CHECK_MPI(MPI_Barrier_init(dup, MPI_INFO_NULL, &coll));
  CHECK_MPI(MPI_Comm_disconnect(&dup));
  CHECK(dup == MPI_COMM_NULL, "disconnect did not set MPI_COMM_NULL");
  CHECK_MPI(MPI_Request_free(&r));
  CHECK_MPI(MPI_Request_free(&coll));

  /* A request freed while active still counts as pending communication. */
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  int got = -1;
  if (rank == 0) {
    v = 42;
    CHECK_MPI(MPI_Issend(&v, 1, MPI_INT, 1, 3, dup, &r));
    CHECK_MPI(MPI_Request_free(&r));
  } else {
    CHECK_MPI(MPI_Irecv(&got, 1, MPI_INT, 0, 3, dup, &r));
    CHECK_MPI(MPI_Request_free(&r));
  }
  CHECK_MPI(MPI_Comm_disconnect(&dup));
  if (rank == 1) CHECK(got == 42, "freed receive done before disconnect returned: got %d", got);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size == 2, "needs 2 processes");
  zero_byte_null_buffers(rank);
  freed_types_and_ops(rank);
  status_error_untouched(rank);
  disconnect_with_inactive_persistent(rank);
  MPI_Barrier(MPI_COMM_WORLD);
  test_pass("p2p_conformance");
  MPI_Finalize();
  return 0;
}
