/* MPI-4.0/4.1 additions around buffered sends and statuses, on 2 ranks:
 * MPI_Buffer_flush / MPI_Buffer_iflush, MPI_BUFFER_AUTOMATIC, MPI_Comm_attach_buffer
 * (a communicator's own buffer), MPI_Info_create_env before MPI_Init and after
 * MPI_Finalize, MPI_Status_set_source/_tag/_error, MPI_Request_get_status_any/_all/_some,
 * MPI_Type_get_value_index, and MPI_VERSION. */
#include <string.h>

#include "check.h"

static void same_info(MPI_Info x, MPI_Info y) {
  const char* keys[] = {"command", "argv", "host", "arch", "wdir"};
  for (int i = 0; i < 5; ++i) {
    char v1[MPI_MAX_INFO_VAL], v2[MPI_MAX_INFO_VAL];
    int n1 = MPI_MAX_INFO_VAL, n2 = MPI_MAX_INFO_VAL, f1 = 0, f2 = 0;
    MPI_Info_get_string(x, keys[i], &n1, v1, &f1);
    MPI_Info_get_string(y, keys[i], &n2, v2, &f2);
    if (f1 != f2 || (f1 && strcmp(v1, v2) != 0)) {
      fprintf(stderr, "info key %s differs\n", keys[i]);
      exit(4);
    }
  }
}

int main(int argc, char** argv) {
  MPI_Info before;
  if (MPI_Info_create_env(argc, argv, &before) != MPI_SUCCESS) return 5;
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size == 2, "needs 2 ranks");
  const int peer = 1 - rank;
  int version, subversion;
  MPI_Get_version(&version, &subversion);
  CHECK(version == MPI_VERSION && subversion == MPI_SUBVERSION && MPI_VERSION == 4, "version %d.%d",
        version, subversion);

  /* Info_create_env: command is argv[0]; the same keys inside MPI as before it. */
  {
    MPI_Info during;
    CHECK_MPI(MPI_Info_create_env(argc, argv, &during));
    char v[MPI_MAX_INFO_VAL];
    int n = MPI_MAX_INFO_VAL, f = 0;
    CHECK_MPI(MPI_Info_get_string(during, "command", &n, v, &f));
    CHECK(f && strcmp(v, argv[0]) == 0, "command '%s'", f ? v : "(none)");
    same_info(before, during);
    MPI_Info_free(&during);
  }

  /* Process buffer: Bsend then Buffer_flush, then Buffer_iflush. */
  {
    static char space[4096 + MPI_BSEND_OVERHEAD * 4];
    CHECK_MPI(MPI_Buffer_attach(space, sizeof space));
    int v = 10 + rank, got = -1;
    CHECK_MPI(MPI_Bsend(&v, 1, MPI_INT, peer, 1, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(got == 10 + peer, "bsend got %d", got);
    CHECK_MPI(MPI_Buffer_flush());
    CHECK_MPI(MPI_Bsend(&v, 1, MPI_INT, peer, 2, MPI_COMM_WORLD));
    MPI_Request fr;
    CHECK_MPI(MPI_Buffer_iflush(&fr));
    CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&fr, MPI_STATUS_IGNORE));
    void* addr;
    int sz;
    CHECK_MPI(MPI_Buffer_detach(&addr, &sz));
    CHECK(addr == space && sz == (int)sizeof space, "detach gave %p %d", addr, sz);
  }

  /* MPI_BUFFER_AUTOMATIC: a 1 MiB buffered send needs no attached space. */
  {
    CHECK_MPI(MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0));
    enum { BIG = 1 << 18 };
    static int big[BIG], in[BIG];
    for (int i = 0; i < BIG; ++i) big[i] = i ^ rank;
    CHECK_MPI(MPI_Bsend(big, BIG, MPI_INT, peer, 3, MPI_COMM_WORLD));
    for (int i = 0; i < BIG; ++i) big[i] = -1; /* the copy went, not the buffer */
    CHECK_MPI(MPI_Recv(in, BIG, MPI_INT, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int i = 0; i < BIG; i += 1001) CHECK(in[i] == (i ^ peer), "automatic [%d]", i);
    void* addr;
    MPI_Count sz = -1;
    CHECK_MPI(MPI_Buffer_detach_c(&addr, &sz));
    CHECK(addr == MPI_BUFFER_AUTOMATIC && sz == 0, "automatic detach %p %lld", addr, (long long)sz);
  }

  /* A communicator's buffer: used there, while the process has none (Bsend on another
   * communicator fails with MPI_ERR_BUFFER). */
  {
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    static char space[256 + MPI_BSEND_OVERHEAD];
    CHECK_MPI(MPI_Comm_attach_buffer(dup, space, sizeof space));
    int v = 7, got = 0;
    CHECK_MPI(MPI_Bsend(&v, 1, MPI_INT, peer, 4, dup));
    CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, peer, 4, dup, MPI_STATUS_IGNORE));
    CHECK(got == 7, "comm buffer got %d", got);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int cls = 0;
    MPI_Error_class(MPI_Bsend(&v, 1, MPI_INT, peer, 4, MPI_COMM_WORLD), &cls);
    CHECK(cls == MPI_ERR_BUFFER, "Bsend without a process buffer: class %d", cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    CHECK_MPI(MPI_Comm_flush_buffer(dup));
    void* addr;
    int sz;
    CHECK_MPI(MPI_Comm_detach_buffer(dup, &addr, &sz));
    CHECK(addr == space && sz == (int)sizeof space, "comm detach %p %d", addr, sz);
    MPI_Comm_free(&dup);
  }

  /* Status setters. */
  {
    MPI_Status st;
    CHECK_MPI(MPI_Status_set_source(&st, 3));
    CHECK_MPI(MPI_Status_set_tag(&st, 44));
    CHECK_MPI(MPI_Status_set_error(&st, MPI_ERR_TAG));
    CHECK(st.MPI_SOURCE == 3 && st.MPI_TAG == 44 && st.MPI_ERROR == MPI_ERR_TAG, "status set");
  }

  /* Request_get_status_any/all/some: never free the requests. */
  {
    int in[2] = {-1, -1}, out = 50 + rank;
    MPI_Request rq[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    CHECK_MPI(MPI_Irecv(&in[0], 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &rq[0]));
    CHECK_MPI(MPI_Irecv(&in[1], 1, MPI_INT, peer, 6, MPI_COMM_WORLD, &rq[2]));
    int idx = -2, flag = -1;
    CHECK_MPI(MPI_Request_get_status_any(3, rq, &idx, &flag, MPI_STATUS_IGNORE));
    CHECK(flag == 0 && idx == MPI_UNDEFINED, "nothing sent yet: flag %d index %d", flag, idx);
    MPI_Barrier(MPI_COMM_WORLD); /* both checked before anything is sent */
    CHECK_MPI(MPI_Send(&out, 1, MPI_INT, peer, 6, MPI_COMM_WORLD));
    MPI_Status st;
    do CHECK_MPI(MPI_Request_get_status_any(3, rq, &idx, &flag, &st));
    while (!flag);
    CHECK(idx == 2 && st.MPI_TAG == 6 && rq[2] != MPI_REQUEST_NULL, "any: index %d tag %d", idx,
          st.MPI_TAG);
    CHECK_MPI(MPI_Request_get_status_all(3, rq, &flag, MPI_STATUSES_IGNORE));
    CHECK(flag == 0, "all complete before the tag-5 send");
    int outcount = -1, indices[3];
    MPI_Status sts[3];
    CHECK_MPI(MPI_Request_get_status_some(3, rq, &outcount, indices, sts));
    CHECK(outcount == 1 && indices[0] == 2 && sts[0].MPI_SOURCE == peer, "some: %d", outcount);
    MPI_Barrier(MPI_COMM_WORLD); /* both checked before the tag-5 send */
    CHECK_MPI(MPI_Send(&out, 1, MPI_INT, peer, 5, MPI_COMM_WORLD));
    do CHECK_MPI(MPI_Request_get_status_all(3, rq, &flag, sts));
    while (!flag);
    CHECK(sts[0].MPI_TAG == 5 && sts[2].MPI_TAG == 6, "all: tags %d %d", sts[0].MPI_TAG,
          sts[2].MPI_TAG);
    CHECK(rq[0] != MPI_REQUEST_NULL && rq[2] != MPI_REQUEST_NULL, "requests were freed");
    CHECK_MPI(MPI_Waitall(3, rq, MPI_STATUSES_IGNORE));
    CHECK(in[0] == 50 + peer && in[1] == 50 + peer, "values %d %d", in[0], in[1]);
  }

  /* Type_get_value_index. */
  {
    MPI_Datatype t;
    CHECK_MPI(MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, &t));
    CHECK(t == MPI_DOUBLE_INT, "double/int pair");
    CHECK_MPI(MPI_Type_get_value_index(MPI_CHAR, MPI_INT, &t));
    CHECK(t == MPI_DATATYPE_NULL, "char/int has no pair type");
  }

  MPI_Barrier(MPI_COMM_WORLD);
  test_pass("mpi4_buffers");
  MPI_Finalize();
  MPI_Info after;
  if (MPI_Info_create_env(argc, argv, &after) != MPI_SUCCESS) return 6;
  same_info(before, after);
  MPI_Info_free(&after);
  MPI_Info_free(&before);
  return 0;
}
