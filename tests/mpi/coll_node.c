/* Node-aware collectives (src/coll/node/): the shared-memory segments leave nothing in
 * /dev/shm while the job runs (unlink after map), large vectors go through the shm
 * algorithms in several chunks (CCMPI_NODE_SHM_SLOT is set small by the test), a
 * non-commutative op keeps rank order on a communicator whose ranks are placed out of
 * host order (split with reversed keys), the hierarchical Alltoallv (uneven and empty
 * blocks, different datatypes of one signature at sender and receiver, MPI_IN_PLACE) and
 * Reduce_scatter(_block) (a commutative user op, MPI_DOUBLE MPI_MAX, uneven and empty
 * blocks, in place) give the reference results, and communicators with hidden node
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
  const char* colls[] = {"allreduce", "reduce", "reduce_scatter_block", "reduce_scatter"};
  for (int k = 0; k < 4; ++k) {
    if (k >= 2 && !strcmp(alg, "shm")) continue; /* no shm reduce_scatter */
    MPI_Comm c = forced(parent, colls[k], alg);
    /* rank r's matrix [[1, r+1], [0, 1]] x [[1,0],[r%3,1]]: the product depends on order */
    int m[4] = {1 + (r + 1) * (r % 3), r + 1, r % 3, 1}, got[4] = {0, 0, 0, 0};
    /* reduce_scatter(_block): every rank contributes m to every block */
    int* ms = ialloc(4 * (size_t)n, 0);
    int* rcounts = ialloc((size_t)n, 1);
    for (int q = 0; q < n; ++q) memcpy(ms + 4 * q, m, sizeof m);
    if (k == 0)
      CHECK_MPI(MPI_Allreduce(m, got, 1, mat, op, c));
    else if (k == 1)
      CHECK_MPI(MPI_Reduce(m, got, 1, mat, op, n / 2, c));
    else if (k == 2)
      CHECK_MPI(MPI_Reduce_scatter_block(ms, got, 1, mat, op, c));
    else
      CHECK_MPI(MPI_Reduce_scatter(ms, got, rcounts, mat, op, c));
    free(ms);
    free(rcounts);
    if (k != 1 || r == n / 2) {
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

/* Alltoallv: rank r sends (r + 2p) % 4 * 250 ints to rank p (some blocks empty) as
 * MPI_INT, received as pairs of ints (a contiguous type); then the same in place. */
static int a2av_count(int r, int p) {
  return ((r + 2 * p) % 4) * 250;
}
static void alltoallv_node(MPI_Comm parent, const char* alg) {
  int n, r;
  MPI_Comm_size(parent, &n);
  MPI_Comm_rank(parent, &r);
  MPI_Comm c = forced(parent, "alltoallv", alg);
  MPI_Datatype pair;
  CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &pair));
  CHECK_MPI(MPI_Type_commit(&pair));
  int *sc = ialloc((size_t)n, 0), *sd = ialloc((size_t)n, 0);
  int *rc = ialloc((size_t)n, 0), *rd = ialloc((size_t)n, 0);
  long st = 0, rt = 0;
  for (int p = n - 1; p >= 0; --p) { /* blocks laid out in reverse rank order, with gaps */
    sc[p] = a2av_count(r, p);
    sd[p] = (int)st;
    st += sc[p] + 3;
    rc[p] = a2av_count(p, r) / 2;
    rd[p] = (int)rt;
    rt += rc[p] + 1;
  }
  int* in = ialloc((size_t)st, SENTINEL);
  int* out = ialloc((size_t)rt * 2, SENTINEL);
  for (int p = 0; p < n; ++p)
    for (int j = 0; j < sc[p]; ++j) in[sd[p] + j] = val3(r, p, j);
  CHECK_MPI(MPI_Alltoallv(in, sc, sd, MPI_INT, out, rc, rd, pair, c));
  for (int p = 0; p < n; ++p) {
    for (int j = 0; j < 2 * rc[p]; ++j)
      CHECK(out[2 * rd[p] + j] == val3(p, r, j), "alltoallv %s from %d int %d: %d", alg, p, j,
            out[2 * rd[p] + j]);
    CHECK(out[2 * (rd[p] + rc[p])] == SENTINEL, "alltoallv %s: gap after block %d written", alg, p);
  }
  /* In place: the blocks are sent from, and received into, the receive buffer. */
  for (int p = 0; p < n; ++p) {
    rc[p] = a2av_count(p, r) + a2av_count(r, p); /* symmetric: what r sends p, p sends r */
    rd[p] = p == 0 ? 0 : rd[p - 1] + rc[p - 1] + 1;
  }
  free(out);
  out = ialloc((size_t)(rd[n - 1] + rc[n - 1] + 1), SENTINEL);
  for (int p = 0; p < n; ++p)
    for (int j = 0; j < rc[p]; ++j) out[rd[p] + j] = val3(r, p, j);
  CHECK_MPI(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, out, rc, rd, MPI_INT, c));
  for (int p = 0; p < n; ++p) {
    for (int j = 0; j < rc[p]; ++j)
      CHECK(out[rd[p] + j] == val3(p, r, j), "alltoallv %s in place from %d int %d: %d", alg, p, j,
            out[rd[p] + j]);
    CHECK(out[rd[p] + rc[p]] == SENTINEL, "alltoallv %s in place: gap after %d written", alg, p);
  }
  free(sc), free(sd), free(rc), free(rd), free(in), free(out);
  CHECK_MPI(MPI_Type_free(&pair));
  CHECK_MPI(MPI_Comm_free(&c));
}

/* A commutative user op: elementwise a * b + a + b mod 65521 on ints. */
static int mix(int a, int b) {
  return (int)(((long)a * b + a + b) % 65521);
}
static void mix_op(void* invec, void* inoutvec, int* len, MPI_Datatype* t) {
  (void)t;
  int* a = (int*)invec;
  int* b = (int*)inoutvec;
  for (int k = 0; k < *len; ++k) b[k] = mix(a[k], b[k]);
}
static int rs_count(int p) {
  return p % 3 == 1 ? 0 : 3000 + 17 * p;
}
static void reduce_scatter_node(MPI_Comm parent, const char* alg) {
  int n, r;
  MPI_Comm_size(parent, &n);
  MPI_Comm_rank(parent, &r);
  MPI_Op op;
  CHECK_MPI(MPI_Op_create(mix_op, 1, &op));
  int* counts = ialloc((size_t)n, 0);
  long total = 0, first = 0;
  for (int p = 0; p < n; ++p) {
    counts[p] = rs_count(p);
    if (p < r) first += counts[p];
    total += counts[p];
  }
  MPI_Comm c = forced(parent, "reduce_scatter", alg);
  int* in = ialloc((size_t)total, 0);
  int* out = ialloc((size_t)total, SENTINEL);
  for (int inplace = 0; inplace < 2; ++inplace) {
    int* src = inplace ? out : in;
    for (long i = 0; i < total; ++i) src[i] = (val(r, i) + 1000) % 977;
    CHECK_MPI(MPI_Reduce_scatter(inplace ? MPI_IN_PLACE : in, out, counts, MPI_INT, op, c));
    for (int j = 0; j < counts[r]; ++j) {
      int want = (val(0, first + j) + 1000) % 977;
      for (int q = 1; q < n; ++q) want = mix((val(q, first + j) + 1000) % 977, want);
      CHECK(out[j] == want, "reduce_scatter %s%s element %d: %d, want %d", alg,
            inplace ? " in place" : "", j, out[j], want);
    }
    if (!inplace && counts[r] < total) CHECK(out[counts[r]] == SENTINEL, "past my block written");
  }
  CHECK_MPI(MPI_Comm_free(&c));
  /* Block form: MPI_DOUBLE with MPI_MAX. */
  c = forced(parent, "reduce_scatter_block", alg);
  const int block = 2500;
  double* din = (double*)xmalloc(sizeof(double) * (size_t)n * block);
  double dout[2500];
  for (long i = 0; i < (long)n * block; ++i) din[i] = (double)val(r, i) / 4;
  CHECK_MPI(MPI_Reduce_scatter_block(din, dout, block, MPI_DOUBLE, MPI_MAX, c));
  for (int j = 0; j < block; ++j) {
    double want = (double)val(0, (long)r * block + j) / 4;
    for (int q = 1; q < n; ++q) {
      const double x = (double)val(q, (long)r * block + j) / 4;
      if (x > want) want = x;
    }
    CHECK(dout[j] == want, "reduce_scatter_block %s element %d: %g, want %g", alg, j, dout[j],
          want);
  }
  /* MPI_DOUBLE_INT (padded: not dense) with MPI_MAXLOC, in place. */
  struct {
    double v;
    int i;
  }* dl = xmalloc(sizeof *dl * (size_t)n * 300);
  for (long i = 0; i < (long)n * 300; ++i) dl[i].v = (double)(val(r, i) % 7), dl[i].i = r;
  CHECK_MPI(MPI_Reduce_scatter_block(MPI_IN_PLACE, dl, 300, MPI_DOUBLE_INT, MPI_MAXLOC, c));
  for (int j = 0; j < 300; ++j) {
    const long g = (long)r * 300 + j;
    double best = (double)(val(0, g) % 7);
    int at = 0;
    for (int q = 1; q < n; ++q)
      if ((double)(val(q, g) % 7) > best) best = (double)(val(q, g) % 7), at = q;
    CHECK(dl[j].v == best && dl[j].i == at,
          "reduce_scatter_block %s maxloc %d: (%g, %d), want (%g, %d)", alg, j, dl[j].v, dl[j].i,
          best, at);
  }
  free(dl);
  CHECK_MPI(MPI_Comm_free(&c));
  free(din), free(counts), free(in), free(out);
  CHECK_MPI(MPI_Op_free(&op));
}

/* An intercommunicator between two halves of a communicator spanning hosts, made before
 * any other collective on the halves: its context-id agreement runs the first collectives
 * there, which must not take (for hidden node communicators) an id the agreement is about
 * to hand out. Then a collective across it, and its merge. */
static void intercomm_on_fresh_halves(void) {
  if (g_size < 2) return;
  MPI_Comm half, inter, merged;
  const int color = g_rank % 2;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, g_rank, &half));
  CHECK_MPI(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - color, 7, &inter));
  int remote = 0, sum = -1, x = g_rank;
  CHECK_MPI(MPI_Comm_remote_size(inter, &remote));
  CHECK(remote == (color ? (g_size + 1) / 2 : g_size / 2), "remote size %d", remote);
  CHECK_MPI(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, inter));
  int want = 0; /* the sum over the other half */
  for (int q = 1 - color; q < g_size; q += 2) want += q;
  CHECK(sum == want, "allreduce over the intercommunicator: %d, want %d", sum, want);
  CHECK_MPI(MPI_Intercomm_merge(inter, color, &merged));
  CHECK_MPI(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, merged));
  CHECK(sum == g_size * (g_size - 1) / 2, "allreduce over the merged communicator: %d", sum);
  CHECK_MPI(MPI_Comm_free(&merged));
  CHECK_MPI(MPI_Comm_free(&inter));
  CHECK_MPI(MPI_Comm_free(&half));
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
    if (a > 0) { /* node and auto (alltoallv and reduce_scatter have no shm algorithm) */
      alltoallv_node(MPI_COMM_WORLD, algs[a]);
      alltoallv_node(rev, algs[a]);
      reduce_scatter_node(MPI_COMM_WORLD, algs[a]);
      reduce_scatter_node(rev, algs[a]);
    }
    CHECK_MPI(MPI_Comm_free(&rev));
  }
  intercomm_on_fresh_halves();
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
