/* Node-aware collectives (src/coll/node/): the shared-memory segments leave nothing in
 * /dev/shm while the job runs (unlink after map), large vectors go through the shm
 * algorithms in several chunks (CCMPI_NODE_SHM_SLOT is set small by the test), a
 * non-commutative op keeps rank order on a communicator whose ranks are placed out of
 * host order (split with reversed keys), and communicators with hidden node
 * communicators are freed cleanly (many in a row). Runs on one host and on emulated
 * hosts (tests/mpi/CMakeLists.txt). */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "coll_util.h"

/* No /dev/shm entry named by any process of the job (ccmpi-<pid>-...). */
static void check_no_segments(MPI_Comm c) {
  int n;
  MPI_Comm_size(c, &n);
  int me = (int)getpid();
  int* pids = ialloc((size_t)n, 0);
  CHECK_MPI(MPI_Allgather(&me, 1, MPI_INT, pids, 1, MPI_INT, c));
  DIR* d = opendir("/dev/shm");
  if (d) {
    struct dirent* e;
    while ((e = readdir(d)) != NULL) {
      int pid;
      if (sscanf(e->d_name, "ccmpi-%d-", &pid) != 1) continue;
      for (int i = 0; i < n; ++i)
        CHECK(pid != pids[i], "/dev/shm/%s of this job is still there", e->d_name);
    }
    closedir(d);
  }
  free(pids);
}

static MPI_Comm forced(MPI_Comm parent, const char* coll, const char* alg) {
  MPI_Comm c;
  CHECK_MPI(MPI_Comm_dup(parent, &c));
  MPI_Info info;
  CHECK_MPI(MPI_Info_create(&info));
  char key[128];
  snprintf(key, sizeof key, "ccmpi_%s_algorithm", coll);
  CHECK_MPI(MPI_Info_set(info, key, alg));
  CHECK_MPI(MPI_Comm_set_info(c, info));
  CHECK_MPI(MPI_Info_free(&info));
  return c;
}

static void large_vectors(MPI_Comm parent, const char* alg) {
  const int count = 50000; /* 200 KB: several chunks of the small test slot */
  int n, r;
  MPI_Comm_size(parent, &n);
  MPI_Comm_rank(parent, &r);
  int* in = ialloc((size_t)count, 0);
  int* out = ialloc((size_t)count, 0);
  for (int i = 0; i < count; ++i) in[i] = val(r, i);
  MPI_Comm c = forced(parent, "allreduce", alg);
  CHECK_MPI(MPI_Allreduce(in, out, count, MPI_INT, MPI_SUM, c));
  for (int i = 0; i < count; ++i) {
    long want = 0;
    for (int k = 0; k < n; ++k) want += val(k, i);
    CHECK(out[i] == (int)want, "allreduce %s element %d: %d, want %ld", alg, i, out[i], want);
  }
  CHECK_MPI(MPI_Comm_free(&c));
  c = forced(parent, "bcast", alg);
  for (int i = 0; i < count; ++i) out[i] = r == n - 1 ? val(7, i) : 0;
  CHECK_MPI(MPI_Bcast(out, count, MPI_INT, n - 1, c));
  for (int i = 0; i < count; ++i)
    CHECK(out[i] == val(7, i), "bcast %s element %d: %d", alg, i, out[i]);
  CHECK_MPI(MPI_Comm_free(&c));
  free(in);
  free(out);
}

/* 2x2 integer matrices, row-major; the product is associative, not commutative. */
static void matmul(void* invec, void* inoutvec, int* len, MPI_Datatype* t) {
  (void)t;
  int* a = (int*)invec;
  int* b = (int*)inoutvec;
  for (int k = 0; k < *len; ++k, a += 4, b += 4) {
    int r0 = a[0] * b[0] + a[1] * b[2], r1 = a[0] * b[1] + a[1] * b[3];
    int r2 = a[2] * b[0] + a[3] * b[2], r3 = a[2] * b[1] + a[3] * b[3];
    b[0] = r0, b[1] = r1, b[2] = r2, b[3] = r3;
  }
}

static void noncommutative(MPI_Comm parent, const char* alg) {
  int n, r;
  MPI_Comm_size(parent, &n);
  MPI_Comm_rank(parent, &r);
  MPI_Op op;
  CHECK_MPI(MPI_Op_create(matmul, 0, &op));
  MPI_Datatype mat;
  CHECK_MPI(MPI_Type_contiguous(4, MPI_INT, &mat));
  CHECK_MPI(MPI_Type_commit(&mat));
  const char* colls[] = {"allreduce", "reduce"};
  for (int k = 0; k < 2; ++k) {
    MPI_Comm c = forced(parent, colls[k], alg);
    /* rank r's matrix [[1, r+1], [0, 1]] x [[1,0],[r%3,1]]: the product depends on order */
    int m[4] = {1 + (r + 1) * (r % 3), r + 1, r % 3, 1}, got[4] = {0, 0, 0, 0};
    if (k == 0)
      CHECK_MPI(MPI_Allreduce(m, got, 1, mat, op, c));
    else
      CHECK_MPI(MPI_Reduce(m, got, 1, mat, op, n / 2, c));
    if (k == 0 || r == n / 2) {
      int want[4] = {1, 0, 0, 1};
      for (int q = 0; q < n; ++q) {
        int x[4] = {1 + (q + 1) * (q % 3), q + 1, q % 3, 1}, len = 1;
        matmul(want, x, &len, NULL); /* x = want * x */
        memcpy(want, x, sizeof want);
      }
      for (int e = 0; e < 4; ++e)
        CHECK(got[e] == want[e], "%s %s non-commutative: element %d is %d, want %d", colls[k], alg,
              e, got[e], want[e]);
    }
    CHECK_MPI(MPI_Comm_free(&c));
  }
  CHECK_MPI(MPI_Type_free(&mat));
  CHECK_MPI(MPI_Op_free(&op));
}

int main(int argc, char** argv) {
  coll_init(&argc, &argv);
  const char* algs[] = {"shm", "node", "auto"};
  for (int a = 0; a < 3; ++a) {
    large_vectors(MPI_COMM_WORLD, algs[a]);
    noncommutative(MPI_COMM_WORLD, algs[a]);
    /* Reversed rank order: a host's ranks are still together, hosts in reverse. */
    MPI_Comm rev;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, g_size - g_rank, &rev));
    noncommutative(rev, algs[a]);
    large_vectors(rev, algs[a]);
    CHECK_MPI(MPI_Comm_free(&rev));
  }
  /* Many communicators in a row, each with its hidden communicators and segment. */
  for (int i = 0; i < 40; ++i) {
    MPI_Comm c = forced(MPI_COMM_WORLD, "barrier", i % 2 ? "node" : "shm");
    CHECK_MPI(MPI_Barrier(c));
    int x = 1, sum = 0;
    CHECK_MPI(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == g_size, "allreduce on communicator %d: %d", i, sum);
    CHECK_MPI(MPI_Comm_free(&c));
  }
  check_no_segments(MPI_COMM_WORLD);
  test_pass("coll_node");
  MPI_Finalize();
  return 0;
}
