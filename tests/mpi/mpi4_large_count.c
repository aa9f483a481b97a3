/* MPI-4.0 large-count functions (MPI_X_c): a sample of each family (point-to-point,
 * blocking, nonblocking and persistent collectives, v/w collectives) checked against the
 * int versions' results. Run as well with CCMPI_LARGE_COUNT_LIMIT=7, so that counts above
 * 7 take the general paths (derived types, chunks, the linear v/w algorithm) that counts
 * above INT_MAX take. A Gatherv_c places blocks at MPI_Aint displacements beyond 2^32
 * elements (a receive buffer pointer shifted back by as much), and errors name MPI_X_c. */
#include <stdint.h>
#include <string.h>

#include "check.h"

enum { N = 23 };

static int rank, size;

static void fill(int* a, int n, int seed) {
  for (int i = 0; i < n; ++i) a[i] = seed * 1000 + i;
}

static void same(const int* a, const int* b, int n, const char* what) {
  for (int i = 0; i < n; ++i) CHECK(a[i] == b[i], "%s: [%d] %d != %d", what, i, a[i], b[i]);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  /* size + 1 blocks: the Reduce_local check reads a second block even on one rank. */
  const size_t bytes = sizeof(int) * N * (size_t)(size + 1);
  int *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes), *d = malloc(bytes);

  /* Point-to-point. */
  {
    int in[N], out[N];
    fill(out, N, rank);
    MPI_Request rq[2];
    CHECK_MPI(MPI_Irecv_c(in, N, MPI_INT, left, 1, MPI_COMM_WORLD, &rq[0]));
    CHECK_MPI(MPI_Isend_c(out, N, MPI_INT, right, 1, MPI_COMM_WORLD, &rq[1]));
    CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    int want[N];
    fill(want, N, left);
    same(in, want, N, "Isend_c/Irecv_c");
    MPI_Status st;
    memset(in, 0, sizeof in);
    CHECK_MPI(
        MPI_Sendrecv_c(out, N, MPI_INT, right, 2, in, N, MPI_INT, left, 2, MPI_COMM_WORLD, &st));
    same(in, want, N, "Sendrecv_c");
    MPI_Count cnt = -1;
    MPI_Get_elements_x(&st, MPI_INT, &cnt);
    CHECK(cnt == N, "Sendrecv_c count %lld", (long long)cnt);
    MPI_Request ps, pr;
    CHECK_MPI(MPI_Send_init_c(out, N, MPI_INT, right, 3, MPI_COMM_WORLD, &ps));
    CHECK_MPI(MPI_Recv_init_c(in, N, MPI_INT, left, 3, MPI_COMM_WORLD, &pr));
    for (int k = 0; k < 2; ++k) {
      memset(in, 0, sizeof in);
      CHECK_MPI(MPI_Start(&pr));
      CHECK_MPI(MPI_Start(&ps));
      CHECK_MPI(MPI_Wait(&ps, MPI_STATUS_IGNORE));
      CHECK_MPI(MPI_Wait(&pr, MPI_STATUS_IGNORE));
      same(in, want, N, "Send_init_c/Recv_init_c");
    }
    MPI_Request_free(&ps);
    MPI_Request_free(&pr);
    MPI_Request sq;
    memset(in, 0, sizeof in);
    CHECK_MPI(MPI_Issend_c(out, N, MPI_INT, right, 4, MPI_COMM_WORLD, &sq));
    CHECK_MPI(MPI_Recv_c(in, N, MPI_INT, left, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&sq, MPI_STATUS_IGNORE));
    same(in, want, N, "Issend_c/Recv_c");
    int v[N];
    fill(v, N, rank);
    CHECK_MPI(MPI_Sendrecv_replace_c(v, N, MPI_INT, right, 5, left, 5, MPI_COMM_WORLD,
                                     MPI_STATUS_IGNORE));
    same(v, want, N, "Sendrecv_replace_c");
  }

  /* Blocking collectives against the int versions. */
  fill(a, N * (size + 1), rank + 1);
  memset(b, 0, sizeof(int) * N * size);
  memset(c, 0, sizeof(int) * N * size);
  CHECK_MPI(MPI_Allreduce_c(a, b, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Allreduce(a, c, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  same(b, c, N, "Allreduce_c");
  CHECK_MPI(MPI_Reduce_c(a, b, N, MPI_INT, MPI_MAX, size - 1, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Reduce(a, c, N, MPI_INT, MPI_MAX, size - 1, MPI_COMM_WORLD));
  if (rank == size - 1) same(b, c, N, "Reduce_c");
  CHECK_MPI(MPI_Scan_c(a, b, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Scan(a, c, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  same(b, c, N, "Scan_c");
  CHECK_MPI(MPI_Exscan_c(a, b, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Exscan(a, c, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  if (rank > 0) same(b, c, N, "Exscan_c");
  memcpy(b, a, sizeof(int) * N);
  memcpy(c, a, sizeof(int) * N);
  CHECK_MPI(MPI_Reduce_local_c(a + N, b, N, MPI_INT, MPI_PROD));
  CHECK_MPI(MPI_Reduce_local(a + N, c, N, MPI_INT, MPI_PROD));
  same(b, c, N, "Reduce_local_c");
  fill(b, N, rank == 1 % size ? 7 : 0);
  fill(c, N, rank == 1 % size ? 7 : 0);
  CHECK_MPI(MPI_Bcast_c(b, N, MPI_INT, 1 % size, MPI_COMM_WORLD));
  {
    int w[N];
    fill(w, N, 7);
    same(b, w, N, "Bcast_c value");
  }
  CHECK_MPI(MPI_Gather_c(a, N, MPI_INT, b, N, MPI_INT, 0, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Gather(a, N, MPI_INT, c, N, MPI_INT, 0, MPI_COMM_WORLD));
  if (rank == 0) same(b, c, N * size, "Gather_c");
  CHECK_MPI(MPI_Allgather_c(a, N, MPI_INT, b, N, MPI_INT, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Allgather(a, N, MPI_INT, c, N, MPI_INT, MPI_COMM_WORLD));
  same(b, c, N * size, "Allgather_c");
  CHECK_MPI(MPI_Alltoall_c(a, N, MPI_INT, b, N, MPI_INT, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Alltoall(a, N, MPI_INT, c, N, MPI_INT, MPI_COMM_WORLD));
  same(b, c, N * size, "Alltoall_c");
  CHECK_MPI(MPI_Scatter_c(a, N, MPI_INT, b, N, MPI_INT, size - 1, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Scatter(a, N, MPI_INT, c, N, MPI_INT, size - 1, MPI_COMM_WORLD));
  same(b, c, N, "Scatter_c");
  CHECK_MPI(MPI_Reduce_scatter_block_c(a, b, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Reduce_scatter_block(a, c, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  same(b, c, N, "Reduce_scatter_block_c");

  /* v/w collectives: block i has i+1 + (N - 5) elements, placed in reverse order. */
  {
    MPI_Count* cc = malloc(sizeof(MPI_Count) * size);
    MPI_Aint* dc = malloc(sizeof(MPI_Aint) * size);
    int* ci = malloc(sizeof(int) * size);
    int* di = malloc(sizeof(int) * size);
    int total = 0;
    for (int i = 0; i < size; ++i) total += ci[i] = i + 1 + (N - 5);
    int off = total;
    for (int i = 0; i < size; ++i) {
      off -= ci[i];
      di[i] = off;
      cc[i] = ci[i];
      dc[i] = off;
    }
    const int mine = ci[rank];
    memset(b, 0, sizeof(int) * N * size);
    memset(c, 0, sizeof(int) * N * size);
    CHECK_MPI(MPI_Gatherv_c(a, mine, MPI_INT, b, cc, dc, MPI_INT, 0, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Gatherv(a, mine, MPI_INT, c, ci, di, MPI_INT, 0, MPI_COMM_WORLD));
    if (rank == 0) same(b, c, total, "Gatherv_c");
    CHECK_MPI(MPI_Allgatherv_c(a, mine, MPI_INT, b, cc, dc, MPI_INT, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Allgatherv(a, mine, MPI_INT, c, ci, di, MPI_INT, MPI_COMM_WORLD));
    same(b, c, total, "Allgatherv_c");
    /* In place. */
    memcpy(d, b, sizeof(int) * total);
    for (int i = 0; i < total; ++i) b[i] = (i >= di[rank] && i < di[rank] + mine) ? b[i] : -9;
    CHECK_MPI(
        MPI_Allgatherv_c(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, cc, dc, MPI_INT, MPI_COMM_WORLD));
    same(b, d, total, "Allgatherv_c in place");
    memset(b, 0, sizeof(int) * N);
    memset(c, 0, sizeof(int) * N);
    CHECK_MPI(MPI_Scatterv_c(a, cc, dc, MPI_INT, b, mine, MPI_INT, 0, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Scatterv(a, ci, di, MPI_INT, c, mine, MPI_INT, 0, MPI_COMM_WORLD));
    same(b, c, mine, "Scatterv_c");
    /* Alltoallv: send ci[j] elements to j from offset j*N, receive ci[rank]... symmetric:
     * every pair exchanges min-free counts: rank i sends (i+j)%3+1 elements to j. */
    MPI_Count *sc = malloc(sizeof(MPI_Count) * size), *rc = malloc(sizeof(MPI_Count) * size);
    MPI_Aint *sd = malloc(sizeof(MPI_Aint) * size), *rd = malloc(sizeof(MPI_Aint) * size);
    int *sci = malloc(sizeof(int) * size), *rci = malloc(sizeof(int) * size);
    int *sdi = malloc(sizeof(int) * size), *rdi = malloc(sizeof(int) * size);
    for (int j = 0; j < size; ++j) {
      sc[j] = sci[j] = (rank + j) % 3 + 9;
      rc[j] = rci[j] = (rank + j) % 3 + 9;
      sd[j] = sdi[j] = j * N;
      rd[j] = rdi[j] = (size - 1 - j) * N;
    }
    memset(b, 0, sizeof(int) * N * size);
    memset(c, 0, sizeof(int) * N * size);
    CHECK_MPI(MPI_Alltoallv_c(a, sc, sd, MPI_INT, b, rc, rd, MPI_INT, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Alltoallv(a, sci, sdi, MPI_INT, c, rci, rdi, MPI_INT, MPI_COMM_WORLD));
    same(b, c, N * size, "Alltoallv_c");
    MPI_Datatype* ty = malloc(sizeof(MPI_Datatype) * size);
    for (int j = 0; j < size; ++j) {
      ty[j] = MPI_INT;
      sd[j] *= sizeof(int);
      rd[j] *= sizeof(int);
      sdi[j] *= sizeof(int);
      rdi[j] *= sizeof(int);
    }
    memset(b, 0, sizeof(int) * N * size);
    memset(c, 0, sizeof(int) * N * size);
    CHECK_MPI(MPI_Alltoallw_c(a, sc, sd, ty, b, rc, rd, ty, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Alltoallw(a, sci, sdi, ty, c, rci, rdi, ty, MPI_COMM_WORLD));
    same(b, c, N * size, "Alltoallw_c");
    /* Alltoallv_c in place (the same counts both ways). */
    memcpy(d, c, sizeof(int) * N * size);
    for (int j = 0; j < size; ++j) rd[j] /= sizeof(int);
    memcpy(b, a, sizeof(int) * N * size);
    memcpy(c, a, sizeof(int) * N * size);
    CHECK_MPI(MPI_Alltoallv_c(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, b, rc, rd, MPI_INT,
                              MPI_COMM_WORLD));
    for (int j = 0; j < size; ++j) rdi[j] /= sizeof(int);
    CHECK_MPI(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, c, rci, rdi, MPI_INT,
                            MPI_COMM_WORLD));
    same(b, c, N * size, "Alltoallv_c in place");
    MPI_Count* rsc = malloc(sizeof(MPI_Count) * size);
    int* rsi = malloc(sizeof(int) * size);
    for (int j = 0; j < size; ++j) rsc[j] = rsi[j] = j % 2 + 8;
    CHECK_MPI(MPI_Reduce_scatter_c(a, b, rsc, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Reduce_scatter(a, c, rsi, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    same(b, c, rsi[rank], "Reduce_scatter_c");

    /* Nonblocking and persistent forms. */
    MPI_Request r1;
    memset(b, 0, sizeof(int) * N * size);
    CHECK_MPI(MPI_Iallreduce_c(a, b, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r1));
    CHECK_MPI(MPI_Allreduce(a, c, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Wait(&r1, MPI_STATUS_IGNORE));
    same(b, c, N, "Iallreduce_c");
    memset(b, 0, sizeof(int) * N * size);
    CHECK_MPI(MPI_Igatherv_c(a, mine, MPI_INT, b, cc, dc, MPI_INT, 0, MPI_COMM_WORLD, &r1));
    CHECK_MPI(MPI_Wait(&r1, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Gatherv(a, mine, MPI_INT, c, ci, di, MPI_INT, 0, MPI_COMM_WORLD));
    if (rank == 0) same(b, c, total, "Igatherv_c");
    CHECK_MPI(MPI_Ialltoall_c(a, N, MPI_INT, b, N, MPI_INT, MPI_COMM_WORLD, &r1));
    CHECK_MPI(MPI_Wait(&r1, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Alltoall(a, N, MPI_INT, c, N, MPI_INT, MPI_COMM_WORLD));
    same(b, c, N * size, "Ialltoall_c");
    MPI_Request p1, p2;
    CHECK_MPI(MPI_Allreduce_init_c(a, b, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &p1));
    CHECK_MPI(MPI_Allgatherv_init_c(a, mine, MPI_INT, d, cc, dc, MPI_INT, MPI_COMM_WORLD,
                                    MPI_INFO_NULL, &p2));
    for (int k = 0; k < 3; ++k) {
      a[0] = k;
      memset(b, 0, sizeof(int) * N);
      memset(d, 0, sizeof(int) * total);
      MPI_Request both[2] = {p1, p2};
      CHECK_MPI(MPI_Startall(2, both));
      CHECK_MPI(MPI_Waitall(2, both, MPI_STATUSES_IGNORE));
      CHECK_MPI(MPI_Allreduce(a, c, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
      same(b, c, N, "Allreduce_init_c");
      CHECK_MPI(MPI_Allgatherv(a, mine, MPI_INT, c, ci, di, MPI_INT, MPI_COMM_WORLD));
      same(d, c, total, "Allgatherv_init_c");
    }
    MPI_Request_free(&p1);
    MPI_Request_free(&p2);

    /* Gatherv_c of bytes at displacements beyond 2^32: the root's buffer pointer is shifted
     * back by 2^32 + 8, every displacement forward by as much. */
    {
      const MPI_Aint shift = ((MPI_Aint)1 << 32) + 8;
      char* land = malloc((size_t)size * 16);
      memset(land, 0, (size_t)size * 16);
      char mineb[16];
      for (int i = 0; i < 16; ++i) mineb[i] = (char)(rank * 16 + i);
      for (int i = 0; i < size; ++i) {
        cc[i] = 16;
        dc[i] = shift + (MPI_Aint)i * 16;
      }
      char* base = (char*)((uintptr_t)land - (uintptr_t)shift);
      CHECK_MPI(MPI_Gatherv_c(mineb, 16, MPI_CHAR, base, cc, dc, MPI_CHAR, 0, MPI_COMM_WORLD));
      if (rank == 0)
        for (int i = 0; i < size * 16; ++i)
          CHECK(land[i] == (char)i, "large displacement: byte %d is %d", i, land[i]);
      free(land);
    }
    free(cc), free(dc), free(ci), free(di), free(sc), free(rc), free(sd), free(rd);
    free(sci), free(rci), free(sdi), free(rdi), free(ty), free(rsc), free(rsi);
  }

  /* Errors name the _c function. */
  {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    char msg[MPI_MAX_ERROR_STRING];
    int len, cls;
    int rc = MPI_Send_c(a, -3, MPI_INT, right, 0, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    MPI_Error_string(rc, msg, &len);
    CHECK(cls == MPI_ERR_COUNT && strstr(msg, "MPI_Send_c"), "Send_c: %d '%s'", cls, msg);
    rc = MPI_Bcast_c(a, -1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    MPI_Error_string(rc, msg, &len);
    CHECK(cls == MPI_ERR_COUNT && strstr(msg, "MPI_Bcast_c"), "Bcast_c: %d '%s'", cls, msg);
    rc = MPI_Allreduce_c(a, b, (MPI_Count)-5000000000LL, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    MPI_Error_string(rc, msg, &len);
    CHECK(cls == MPI_ERR_COUNT && strstr(msg, "MPI_Allreduce_c"), "Allreduce_c: %d '%s'", cls, msg);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  }
  free(a), free(b), free(c), free(d);
  MPI_Barrier(MPI_COMM_WORLD);
  test_pass("mpi4_large_count");
  MPI_Finalize();
  return 0;
}
