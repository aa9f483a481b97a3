/* Collective benchmarks of the seed papers' section 5 (CC-MPI, and the CM-5 paper's
 * unstructured all-to-many patterns), in plain MPI so the same source is built with
 * ccmpi's mpicc, Open MPI's and MPICH's and run side by side by ccmpi-bench
 * (tools/ccmpi_tools/bench).
 *
 *   coll_bench TEST [options]
 *
 * TEST (one MPI operation each, MPI_BYTE, root 0 where there is one):
 *   allgather         MPI_Allgather of s bytes per rank                  (CC-MPI Table 1)
 *   alltoall          MPI_Alltoall of s bytes per pair                   (Figures 11-12)
 *   alltoallv         MPI_Alltoallv, every pair s bytes                  (Table 2)
 *   alltoallv-random  MPI_Alltoallv, every ordered pair one message; of the N(N-1) pairs
 *                     2/3 carry 64 KiB, 1/12 16 KiB, the rest 100 B (on 16 ranks exactly
 *                     160 x 64 KiB, 20 x 16 KiB, 60 x 100 B as in Table 3), shuffled with
 *                     --seed; "size" is printed as 0
 *   alltoallv-random-p2p, -l1, -l2, -l3
 *                     the random pattern through ccmpi's split of network control and
 *                     data transmission (mpix_ccmpi.h; CC-MPI Tables 2-3), every iteration:
 *                     p2p: MPIX_Alltoallv_data_trans1 (no schedule); l1:
 *                     MPIX_Alltoallv_control1 (allgather of the counts + scheduling),
 *                     MPIX_Alltoallv_data_trans2, MPIX_Schedule_free; l2: the same with
 *                     MPIX_Alltoallv_control2 (every rank holds the global pattern:
 *                     scheduling only); l3: MPIX_Alltoallv_data_trans2 alone, the schedule
 *                     made once per size before the warm-up (not timed) as a compiler or
 *                     ccmpi-schedule would. ccmpi only (status 4 elsewhere)
 *   alltoallv-random-c1, -c2  the network control of Level 1 / Level 2 alone:
 *                     MPIX_Alltoallv_control1 / control2 + MPIX_Schedule_free, no data
 *                     (what Level 1 and 2 add to Level 3's data transmission)
 *   bcast             MPI_Bcast of s bytes                               (Figures 7-8)
 *   scatter           MPI_Scatter of s bytes per rank                    (Figure 9)
 *   incast            every rank but 0 sends s bytes to rank 0 at once (MPI_Send; rank 0
 *                     posts its n - 1 MPI_Irecv, then MPI_Waitall): TCP flows meeting at one
 *                     switch port, which ccmpi-sim's tail-drop model is calibrated on
 *   scatterv5         MPI_Scatterv: s bytes to 5 ranks spread over the communicator,
 *                     0 to the others (the root sends to itself nothing) (Figure 10)
 *   scatterv5-mpix    the same Scatterv with ccmpi's compiler-assisted group management
 *                     (mpix_ccmpi.h): MPIX_Scatterv_open_group once per size before the
 *                     warm-up (not timed), MPIX_Scatterv_data_movement as the operation
 *                     (called by the root and the 5 receivers only; the other ranks'
 *                     iteration is the barrier alone), MPIX_Scatterv_close_group after the
 *                     last iteration. Built only where mpix_ccmpi.h exists (ccmpi); other
 *                     MPIs print that it is unsupported and exit with status 4. ccmpi moves
 *                     the blocks by multicast or by TCP, whichever puts fewer bytes on
 *                     the root's cable (CCMPI_MPIX_SCATTERV_DATA=auto)
 *   scatterv5-mpix-mcast  scatterv5-mpix with the blocks always multicast (sets
 *                     CCMPI_MPIX_SCATTERV_DATA=mcast before MPI_Init unless it is set)
 *   scatterv5-init    the same Scatterv as an MPI-4 persistent collective: MPI_Scatterv_init
 *                     once per size before the warm-up (not timed), MPI_Start + MPI_Wait as
 *                     the operation, MPI_Request_free after the last iteration (ccmpi with
 *                     CCMPI_ISCATTERV_ALGORITHM=mcast_group: the request owns the receivers'
 *                     multicast group). MPIs before MPI 4.0 (except ccmpi, which has the
 *                     persistent collectives) exit with status 4
 *   uniform           MPI_Alltoallv with the CM-5 paper's test set 1: every rank sends
 *                     to --degree d others and receives from d others (a union of d
 *                     random derangements, --seed), each message s bytes ("size" = the
 *                     paper's msg_unit)
 *   nonuniform        as uniform, but the message i->j is s x (1 + r % 32) bytes with a
 *                     random r per pair (test set 2: msg_unit .. 32 msg_unit)
 *   mesh              test set 3: the halo exchange of an unstructured mesh, a random
 *                     geometric graph of --points P points in the unit square (radius for
 *                     an average degree of 6, like a triangulation's) split into NPROCS
 *                     parts by recursive coordinate bisection; part p sends part q one
 *                     msg_unit per point of p with a neighbour in q. Rank 0 prints the
 *                     pattern's statistics first ("stats ..." : messages per rank, message
 *                     sizes in points)
 *   generate-recv     MPIX_Generate_recv (ccmpi only; the CM-5 paper's Table 3) on the uniform
 *                     pattern of --degree d: each rank gives its send counts and gets its
 *                     receive counts; no data moves ("size" is the count unit)
 *   The three test sets take --form alltoallv (default: MPI_Alltoallv), neighbor
 *   (MPI_Neighbor_alltoallv on a distributed graph of the pattern: MPI_Dist_graph_create_
 *   adjacent, not reordered) or persistent (MPI_Alltoallv_init once, MPI_Start + MPI_Wait;
 *   MPI 4.0), and --pattern reused (default: one pattern, the graph or request made once
 *   outside the timing) or fresh (8 patterns from seeds --seed + k, a different one at
 *   every iteration; with neighbor the graph is created and freed inside the timing, as a
 *   program whose pattern changes must)
 *
 * Options: --sizes a,b,c (bytes; default 1024), --target-ms T (default 1000): after
 * --warmup W iterations (default 2) the number of timed iterations is T / (time of the
 * last warm-up iteration), clamped to [--min-iters 3, --max-iters 200]; --degree d
 * (default 4), --seed S (default 20031), --points P (default 2800), --form, --pattern,
 * --print-pattern PREFIX (the matrix tests: rank 0 writes each size's pattern to
 * PREFIX-SIZE.pattern, or PREFIX-SIZE-K.pattern for the 8 of --pattern fresh, as "SRC DST
 * BYTES" lines, the format of ccmpi-schedule and ccmpi-sim); with --ranks N it only writes
 * the patterns (of the first seed) for N ranks and exits, however many processes run it.
 *
 * Method: every timed iteration is a synchronization, then the operation between two
 * MPI_Wtime calls on every rank; the iteration's time is the maximum over ranks (an MPI_Reduce of
 * the per-iteration times after the loop, outside the timing). Results are validated
 * (byte patterns depending on source, destination and offset, receive buffers cleared
 * first) in the first warm-up and the last timed iteration; a wrong byte aborts with
 * exit status 3. The synchronization is not MPI_Barrier but the same dissemination
 * barrier of zero-byte MPI_Sendrecv calls in every MPI (ceil(log2 N) rounds on a
 * duplicate of MPI_COMM_WORLD): each rank times from its own exit, so an MPI whose
 * barrier released the root of a rooted collective before its receivers would have its
 * operation measured from a head start.
 *
 * Output (rank 0), one line per size, then "coll_bench: done" before MPI_Finalize:
 *   result TEST NPROCS SIZE MEDIAN_US MEAN_US MIN_US BOUND_BYTES ITERS
 * MEDIAN/MEAN/MIN are over the iterations' maximum-over-ranks times. BOUND_BYTES is what
 * the busiest cable must carry (link bound = BOUND_BYTES / payload rate): allgather,
 * alltoall(v) (N-1)s into every host; bcast s into every receiver; incast (N-1)s into rank
 * 0; scatter (N-1)s out of
 * the root; scatterv5(-mpix) 5s out of the root; matrix patterns the largest sum of bytes out of
 * or into one host. */
#include <mpi.h>
/* ccmpi's extensions, for scatterv5-mpix (CCMPI is defined by ccmpi's mpi.h). */
#if defined(CCMPI) && defined(__has_include)
#if __has_include(<mpix_ccmpi.h>)
#include <mpix_ccmpi.h>
#define COLL_BENCH_MPIX 1
#endif
#endif
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const char* test;
  int n, rank;
  int degree;
  uint64_t seed;
  int points;
  int form;  /* 0 alltoallv, 1 neighbor, 2 persistent */
  int fresh; /* a new pattern every iteration */
  int warmup, min_iters, max_iters;
  double target_ms;
  const char* print_pattern; /* --print-pattern PREFIX: matrix tests write their patterns */
  int pattern_ranks;         /* --ranks N: only print the patterns, for N ranks */
} Config;

/* The byte sent from src to dst at offset k: never 0, so a cleared buffer never passes. */
static unsigned char pattern(int src, int dst, size_t k) {
  return (unsigned char)(1 + (src * 131u + dst * 17u + k * 7u + (k >> 8) * 3u) % 255u);
}

static void fill(unsigned char* p, size_t len, int src, int dst) {
  for (size_t k = 0; k < len; ++k) p[k] = pattern(src, dst, k);
}

static void check(const unsigned char* p, size_t len, int src, int dst, const Config* c,
                  size_t size) {
  for (size_t k = 0; k < len; ++k) {
    if (p[k] != pattern(src, dst, k)) {
      fprintf(stderr,
              "coll_bench: %s size %zu: rank %d got byte %zu from rank %d wrong "
              "(0x%02x, expected 0x%02x)\n",
              c->test, size, c->rank, k, src, p[k], pattern(src, dst, k));
      MPI_Abort(MPI_COMM_WORLD, 3);
      exit(3);
    }
  }
}

static uint64_t rng_next(uint64_t* s) { /* xorshift64* */
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 2685821657736338717ull;
}

/* A random permutation of 0..n-1 (Fisher-Yates). */
static void shuffle_ints(int* a, int n, uint64_t* s) {
  for (int i = 0; i < n; ++i) a[i] = i;
  for (int i = n - 1; i > 0; --i) {
    int j = (int)(rng_next(s) % (uint64_t)(i + 1)), t = a[i];
    a[i] = a[j];
    a[j] = t;
  }
}

/* Test set 3's mesh (see "mesh" above). */
static const double* g_coord; /* x, y of every point: the sort key of rcb */
static int g_axis;
static int cmp_axis(const void* a, const void* b) {
  double x = g_coord[2 * *(const int*)a + g_axis], y = g_coord[2 * *(const int*)b + g_axis];
  return x < y ? -1 : x > y ? 1 : *(const int*)a - *(const int*)b;
}
/* Recursive coordinate bisection of idx[0..count) into parts first .. first + parts - 1,
 * cut across the longer side of the points' box, in proportion to the parts each side. */
static void rcb(int* idx, int count, int first, int parts, const double* xy, int* part) {
  if (parts == 1 || count == 0) {
    for (int i = 0; i < count; ++i) part[idx[i]] = first;
    return;
  }
  double lo[2] = {1e300, 1e300}, hi[2] = {-1e300, -1e300};
  for (int i = 0; i < count; ++i)
    for (int a = 0; a < 2; ++a) {
      double v = xy[2 * idx[i] + a];
      if (v < lo[a]) lo[a] = v;
      if (v > hi[a]) hi[a] = v;
    }
  g_coord = xy, g_axis = hi[0] - lo[0] >= hi[1] - lo[1] ? 0 : 1;
  qsort(idx, (size_t)count, sizeof(int), cmp_axis);
  int left = parts / 2, cut = (int)((long long)count * left / parts);
  rcb(idx, cut, first, left, xy, part);
  rcb(idx + cut, count - cut, first + left, parts - left, xy, part);
}
/* m[p * n + q] += unit for every point of part p with a neighbour in part q; returns the
 * number of graph edges. */
static long long mesh_matrix(int n, int points, uint64_t* st, long long unit, long long* m) {
  double* xy = malloc(sizeof(double) * 2 * (size_t)points);
  int *idx = malloc(sizeof(int) * (size_t)points), *part = malloc(sizeof(int) * (size_t)points);
  for (int i = 0; i < 2 * points; ++i) xy[i] = (double)(rng_next(st) >> 11) / 9007199254740992.0;
  for (int i = 0; i < points; ++i) idx[i] = i;
  rcb(idx, points, 0, n, xy, part);
  const double radius = sqrt(6.0 / (3.141592653589793 * points));
  const int g = (int)(1.0 / radius) > 0 ? (int)(1.0 / radius) : 1;
  int *head = malloc(sizeof(int) * (size_t)g * (size_t)g),
      *next = malloc(sizeof(int) * (size_t)points);
  for (int i = 0; i < g * g; ++i) head[i] = -1;
  for (int i = 0; i < points; ++i) {
    int cx = (int)(xy[2 * i] * g), cy = (int)(xy[2 * i + 1] * g);
    cx = cx < g ? cx : g - 1, cy = cy < g ? cy : g - 1;
    next[i] = head[cy * g + cx], head[cy * g + cx] = i;
  }
  int* seen = malloc(sizeof(int) * (size_t)n);
  for (int q = 0; q < n; ++q) seen[q] = -1;
  long long edges = 0;
  for (int u = 0; u < points; ++u) {
    int cx = (int)(xy[2 * u] * g), cy = (int)(xy[2 * u + 1] * g);
    cx = cx < g ? cx : g - 1, cy = cy < g ? cy : g - 1;
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        int x = cx + dx, y = cy + dy;
        if (x < 0 || y < 0 || x >= g || y >= g) continue;
        for (int v = head[y * g + x]; v >= 0; v = next[v]) {
          double ex = xy[2 * u] - xy[2 * v], ey = xy[2 * u + 1] - xy[2 * v + 1];
          if (v == u || ex * ex + ey * ey > radius * radius) continue;
          edges += u < v;
          int q = part[v];
          if (q != part[u] && seen[q] != u) seen[q] = u, m[part[u] * n + q] += unit;
        }
      }
  }
  free(xy), free(idx), free(part), free(head), free(next), free(seen);
  return edges;
}

/* Fills the n x n byte matrix m (m[i*n+j] = bytes from i to j) for the matrix tests.
 * Every rank computes the same matrix from the same seed. Returns the mesh's edges (mesh)
 * or 0. */
static long long make_matrix(const Config* c, size_t s, uint64_t seed, long long* m) {
  const int n = c->n;
  uint64_t st = seed * 0x9E3779B97F4A7C15ull + 1;
  memset(m, 0, sizeof(long long) * (size_t)n * (size_t)n);
  if (!strcmp(c->test, "mesh")) return mesh_matrix(n, c->points, &st, (long long)s, m);
  if (!strncmp(c->test, "alltoallv-random", 16)) {
    const int pairs = n * (n - 1);
    const int n64 = pairs * 160 / 240, n16 = pairs * 20 / 240;
    long long* sizes = malloc(sizeof(long long) * (size_t)(pairs > 0 ? pairs : 1));
    int* order = malloc(sizeof(int) * (size_t)(pairs > 0 ? pairs : 1));
    for (int p = 0; p < pairs; ++p) sizes[p] = p < n64 ? 65536 : p < n64 + n16 ? 16384 : 100;
    shuffle_ints(order, pairs, &st);
    for (int i = 0, p = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        if (i != j) m[i * n + j] = sizes[order[p++]];
    free(sizes);
    free(order);
    return 0;
  }
  /* uniform / nonuniform: a union of d derangements that share no pair. A random
   * permutation is drawn until it fits (bounded); if none fits, a shift i -> i + k of a
   * random relabelling is used, which always exists for d <= n - 1. */
  int d = c->degree < n - 1 ? c->degree : n - 1;
  int* perm = malloc(sizeof(int) * (size_t)n);
  int* label = malloc(sizeof(int) * (size_t)n);
  shuffle_ints(label, n, &st);
  for (int round = 0; round < d; ++round) {
    int placed = 0;
    for (int attempt = 0; attempt < 2000 && !placed; ++attempt) {
      shuffle_ints(perm, n, &st);
      int ok = 1;
      for (int i = 0; i < n && ok; ++i) ok = perm[i] != i && m[i * n + perm[i]] == 0;
      if (ok) {
        for (int i = 0; i < n; ++i) m[i * n + perm[i]] = 1;
        placed = 1;
      }
    }
    for (int k = 1; k < n && !placed; ++k) {
      int ok = 1;
      for (int i = 0; i < n && ok; ++i) ok = m[label[i] * n + label[(i + k) % n]] == 0;
      if (ok) {
        for (int i = 0; i < n; ++i) m[label[i] * n + label[(i + k) % n]] = 1;
        placed = 1;
      }
    }
  }
  const int nonuniform = !strcmp(c->test, "nonuniform");
  for (int i = 0; i < n * n; ++i)
    if (m[i]) m[i] = (long long)s * (nonuniform ? (long long)(1 + rng_next(&st) % 32) : 1);
  free(perm);
  free(label);
  return 0;
}

/* The matrix of a matrix test: alltoallv's every pair s bytes, else make_matrix's. */
static void fill_matrix(const Config* c, size_t s, uint64_t seed, long long* m) {
  const int n = c->n;
  if (!strcmp(c->test, "alltoallv"))
    for (long long i = 0; i < (long long)n * n; ++i) m[i] = (i / n == i % n) ? 0 : (long long)s;
  else
    make_matrix(c, s, seed, m);
}

static int is_matrix_test(const char* t) {
  return !strcmp(t, "alltoallv") || !strcmp(t, "alltoallv-random") || !strcmp(t, "uniform") ||
         !strcmp(t, "nonuniform") || !strcmp(t, "mesh");
}

/* --print-pattern PREFIX: pattern k of size s as PREFIX-S.pattern (PREFIX-S-K.pattern when
 * the test draws several), one "SRC DST BYTES" line per message, as ccmpi-schedule and
 * ccmpi-sim read it. */
static void print_pattern(const Config* c, size_t s, int k, int npat, const long long* m) {
  char name[4096];
  if (npat > 1)
    snprintf(name, sizeof name, "%s-%zu-%d.pattern", c->print_pattern, s, k);
  else
    snprintf(name, sizeof name, "%s-%zu.pattern", c->print_pattern, s);
  FILE* f = fopen(name, "w");
  if (!f) {
    fprintf(stderr, "coll_bench: --print-pattern: cannot write %s\n", name);
    MPI_Abort(MPI_COMM_WORLD, 2);
    exit(2);
  }
  for (int i = 0; i < c->n; ++i)
    for (int j = 0; j < c->n; ++j)
      if (m[i * c->n + j]) fprintf(f, "%d %d %lld\n", i, j, m[i * c->n + j]);
  fclose(f);
}

typedef struct {
  int kind;  /* 0 allgather 1 alltoall 2 alltoallv(matrix) 3 bcast 4 scatter 5 scatterv
                6 scatterv with MPIX_Scatterv_data_movement, 7 persistent scatterv,
                8 alltoallv(matrix) by the MPIX levels, 9 MPIX_Generate_recv, 10 incast */
  int level; /* kind 8: 0 p2p, 1-3 Levels 1-3, 4/5 control1/control2 alone */
  size_t size;
  unsigned char *sbuf, *rbuf;
  int *scounts, *sdispls, *rcounts, *rdispls;
  long long bound;
#ifdef COLL_BENCH_MPIX
  MPIX_Mcast_group group; /* kind 6: opened in bench_size */
  MPI_Count* pattern;     /* kind 8, levels 2, 5: the global pattern, every rank alike */
  MPIX_Schedule sched;    /* kind 8, level 3: made in bench_size */
#endif
  MPI_Request req;   /* kind 7 and kind 2's persistent form: made in bench_size */
  MPI_Request* reqs; /* kind 10, rank 0: one per sender */
  /* kind 2: npat patterns (counts of pattern k at [k * n, (k + 1) * n)), all with the
   * same displacements (each block's largest count over the patterns), so the send
   * buffer is filled once; cur is the pattern of the next run. */
  int n, npat, cur, form, fresh;
  size_t rbytes;
  MPI_Comm graph;                           /* neighbor form, reused pattern: made in bench_size */
  int *nsrc, *ndst, *nsc, *nsd, *nrc, *nrd; /* neighbor form: this run's compact lists */
} Op;

static int is_receiver5(int r, int n) { /* the 5 (or n-1) ranks scatterv5 sends to */
  if (n <= 6) return r != 0;
  for (int k = 1; k <= 5; ++k)
    if (r == k * n / 6 + (k * n / 6 == 0)) return 1;
  return 0;
}

static int setup(const Config* c, size_t s, Op* op) {
  const int n = c->n, r = c->rank;
  memset(op, 0, sizeof *op);
  op->size = s;
  op->npat = 1; /* the matrix tests may have several patterns; every other test has one */
  op->graph = MPI_COMM_NULL;
  size_t sb = 0, rb = 0;
  if (!strcmp(c->test, "allgather")) {
    op->kind = 0, sb = s, rb = s * n, op->bound = (long long)(n - 1) * (long long)s;
  } else if (!strcmp(c->test, "alltoall")) {
    op->kind = 1, sb = rb = s * n, op->bound = (long long)(n - 1) * (long long)s;
  } else if (!strcmp(c->test, "bcast")) {
    op->kind = 3, sb = rb = s, op->bound = (long long)s;
  } else if (!strcmp(c->test, "incast")) {
    op->kind = 10, sb = s, rb = r == 0 ? s * n : 0, op->bound = (long long)(n - 1) * (long long)s;
    if (r == 0 && !(op->reqs = malloc(sizeof(MPI_Request) * (size_t)n))) return -2;
  } else if (!strcmp(c->test, "scatter")) {
    op->kind = 4, sb = r == 0 ? s * n : 0, rb = s, op->bound = (long long)(n - 1) * (long long)s;
  } else if (!strncmp(c->test, "scatterv5", 9)) {
    op->kind = !strcmp(c->test, "scatterv5") ? 5 : !strncmp(c->test, "scatterv5-mpix", 14) ? 6 : 7;
    op->scounts = calloc((size_t)n, sizeof(int));
    op->sdispls = calloc((size_t)n, sizeof(int));
    int receivers = 0;
    for (int j = 0; j < n; ++j)
      if (is_receiver5(j, n)) op->scounts[j] = (int)s, op->sdispls[j] = (int)(s * receivers++);
    sb = r == 0 ? s * (size_t)receivers : 0, rb = is_receiver5(r, n) ? s : 0;
    op->bound = (long long)receivers * (long long)s;
  } else if (!strcmp(c->test, "alltoallv") || !strcmp(c->test, "alltoallv-random") ||
             !strcmp(c->test, "uniform") || !strcmp(c->test, "nonuniform") ||
             !strcmp(c->test, "mesh") || !strcmp(c->test, "alltoallv-random-p2p") ||
             !strcmp(c->test, "alltoallv-random-l1") || !strcmp(c->test, "alltoallv-random-l2") ||
             !strcmp(c->test, "alltoallv-random-l3") || !strcmp(c->test, "alltoallv-random-c1") ||
             !strcmp(c->test, "alltoallv-random-c2") || !strcmp(c->test, "generate-recv")) {
    op->kind = strlen(c->test) > 16 && !strncmp(c->test, "alltoallv-random-", 17) ? 8
               : !strcmp(c->test, "generate-recv")                                ? 9
                                                                                  : 2;
    /* level 0 p2p, 1-3 Levels 1-3, 4 and 5 the control of Level 1 and 2 alone */
    op->level = op->kind != 8        ? 0
                : c->test[17] == 'l' ? c->test[18] - '0'
                : c->test[17] == 'c' ? 3 + (c->test[18] - '0')
                                     : 0;
    const int sets =
        !strcmp(c->test, "uniform") || !strcmp(c->test, "nonuniform") || !strcmp(c->test, "mesh");
    op->n = n;
    op->form = sets ? c->form : 0;
    op->fresh = sets && c->fresh;
    op->npat = op->fresh ? 8 : 1;
    long long* m = malloc(sizeof(long long) * (size_t)n * (size_t)n);
    op->scounts = calloc((size_t)n * op->npat, sizeof(int));
    op->rcounts = calloc((size_t)n * op->npat, sizeof(int));
    op->sdispls = calloc((size_t)n, sizeof(int)), op->rdispls = calloc((size_t)n, sizeof(int));
    long long bounds = 0;
    for (int k = 0; k < op->npat; ++k) {
      fill_matrix(c, s, c->seed + (uint64_t)k, m);
      for (int j = 0; j < n; ++j) {
        op->scounts[k * n + j] = (int)m[r * n + j];
        op->rcounts[k * n + j] = (int)m[j * n + r];
      }
      if (c->print_pattern && r == 0) print_pattern(c, s, k, op->npat, m);
#ifdef COLL_BENCH_MPIX
      if (op->kind == 8 && (op->level == 2 || op->level == 5)) {
        op->pattern = malloc(sizeof(MPI_Count) * (size_t)n * (size_t)n);
        for (int i = 0; i < n * n; ++i) op->pattern[i] = (MPI_Count)m[i];
      }
#endif
      long long bound = 0;
      for (int i = 0; i < n; ++i) {
        long long out = 0, in = 0;
        for (int j = 0; j < n; ++j)
          if (i != j) out += m[i * n + j], in += m[j * n + i];
        if (out > bound) bound = out;
        if (in > bound) bound = in;
      }
      bounds += bound;
    }
    op->bound = bounds / op->npat; /* the patterns' mean */
    for (int j = 0; j < n; ++j) {
      int smax = 0, rmax = 0;
      for (int k = 0; k < op->npat; ++k) {
        if (op->scounts[k * n + j] > smax) smax = op->scounts[k * n + j];
        if (op->rcounts[k * n + j] > rmax) rmax = op->rcounts[k * n + j];
      }
      op->sdispls[j] = (int)sb, sb += (size_t)smax;
      op->rdispls[j] = (int)rb, rb += (size_t)rmax;
    }
    op->rbytes = rb;
    if (op->kind == 9) {
      op->bound = 0, sb = rb = 0;
      op->nrc = malloc(sizeof(int) * (size_t)n); /* what MPIX_Generate_recv returns */
    }
    if (op->form == 1) {
      op->nsrc = malloc(sizeof(int) * (size_t)n), op->ndst = malloc(sizeof(int) * (size_t)n);
      op->nsc = malloc(sizeof(int) * (size_t)n), op->nsd = malloc(sizeof(int) * (size_t)n);
      op->nrc = malloc(sizeof(int) * (size_t)n), op->nrd = malloc(sizeof(int) * (size_t)n);
    }
    op->graph = MPI_COMM_NULL;
    free(m);
  } else {
    return -1;
  }
  op->sbuf = malloc(sb ? sb : 1);
  op->rbuf = malloc(rb ? rb : 1);
  if (!op->sbuf || !op->rbuf) return -2;
  /* Send data: the block for destination j carries pattern(r, j, .). */
  switch (op->kind) {
    case 0:
      fill(op->sbuf, s, r, 0);
      break;
    case 1:
      for (int j = 0; j < n; ++j) fill(op->sbuf + (size_t)j * s, s, r, j);
      break;
    case 3:
      if (r == 0) fill(op->sbuf, s, 0, 0);
      break;
    case 10:
      fill(op->sbuf, s, r, 0);
      break;
    case 4:
      if (r == 0)
        for (int j = 0; j < n; ++j) fill(op->sbuf + (size_t)j * s, s, 0, j);
      break;
    case 5:
    case 6:
    case 7:
      if (r == 0)
        for (int j = 0; j < n; ++j)
          if (op->scounts[j]) fill(op->sbuf + op->sdispls[j], s, 0, j);
      break;
    case 2:
    case 8:
      for (int j = 0; j < n; ++j) {
        int most = 0;
        for (int k = 0; k < op->npat; ++k)
          if (op->scounts[k * n + j] > most) most = op->scounts[k * n + j];
        fill(op->sbuf + op->sdispls[j], (size_t)most, r, j);
      }
      break;
  }
  return 0;
}

static void teardown(Op* op) {
#ifdef COLL_BENCH_MPIX
  free(op->pattern);
#endif
  free(op->sbuf), free(op->rbuf);
  free(op->scounts), free(op->sdispls), free(op->rcounts), free(op->rdispls);
  free(op->nsrc), free(op->ndst), free(op->nsc), free(op->nsd), free(op->nrc), free(op->nrd);
  free(op->reqs);
}

static void clear_recv(const Config* c, Op* op) {
  size_t rb = 0;
  switch (op->kind) {
    case 0:
      rb = op->size * c->n;
      break;
    case 1:
      rb = op->size * c->n;
      break;
    case 3:
      rb = c->rank == 0 ? 0 : op->size;
      break;
    case 10:
      rb = c->rank == 0 ? op->size * c->n : 0;
      break;
    case 4:
      rb = op->size;
      break;
    case 5:
    case 6:
    case 7:
      rb = is_receiver5(c->rank, c->n) ? op->size : 0;
      break;
    case 2:
    case 8:
      rb = op->rbytes;
      break;
  }
  memset(op->rbuf, 0, rb);
}

static void run(const Op* op) {
  const int s = (int)op->size;
  switch (op->kind) {
    case 0:
      MPI_Allgather(op->sbuf, s, MPI_BYTE, op->rbuf, s, MPI_BYTE, MPI_COMM_WORLD);
      break;
    case 1:
      MPI_Alltoall(op->sbuf, s, MPI_BYTE, op->rbuf, s, MPI_BYTE, MPI_COMM_WORLD);
      break;
    case 2: {
      const int n = op->n, *sc = op->scounts + op->cur * n, *rc = op->rcounts + op->cur * n;
      if (op->form == 0) {
        MPI_Alltoallv(op->sbuf, sc, op->sdispls, MPI_BYTE, op->rbuf, rc, op->rdispls, MPI_BYTE,
                      MPI_COMM_WORLD);
      } else if (op->form == 1) {
        int in = 0, out = 0;
        for (int j = 0; j < n; ++j) {
          if (rc[j]) op->nsrc[in] = j, op->nrc[in] = rc[j], op->nrd[in++] = op->rdispls[j];
          if (sc[j]) op->ndst[out] = j, op->nsc[out] = sc[j], op->nsd[out++] = op->sdispls[j];
        }
        MPI_Comm g = op->graph;
        if (op->fresh)
          MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, in, op->nsrc, MPI_UNWEIGHTED, out,
                                         op->ndst, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g);
        MPI_Neighbor_alltoallv(op->sbuf, op->nsc, op->nsd, MPI_BYTE, op->rbuf, op->nrc, op->nrd,
                               MPI_BYTE, g);
        if (op->fresh) MPI_Comm_free(&g);
      } else {
#if MPI_VERSION >= 4 || defined(CCMPI)
        MPI_Request req = op->req;
        MPI_Start(&req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
#endif
      }
      break;
    }
    case 3: {
      int rank;
      MPI_Comm_rank(MPI_COMM_WORLD, &rank);
      MPI_Bcast(rank == 0 ? op->sbuf : op->rbuf, s, MPI_BYTE, 0, MPI_COMM_WORLD);
      break;
    }
    case 4:
      MPI_Scatter(op->sbuf, s, MPI_BYTE, op->rbuf, s, MPI_BYTE, 0, MPI_COMM_WORLD);
      break;
    case 10: {
      int rank, n;
      MPI_Comm_rank(MPI_COMM_WORLD, &rank);
      MPI_Comm_size(MPI_COMM_WORLD, &n);
      if (rank != 0) {
        MPI_Send(op->sbuf, s, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        break;
      }
      for (int j = 1; j < n; ++j)
        MPI_Irecv(op->rbuf + (size_t)j * op->size, s, MPI_BYTE, j, 0, MPI_COMM_WORLD,
                  &op->reqs[j - 1]);
      MPI_Waitall(n - 1, op->reqs, MPI_STATUSES_IGNORE);
      break;
    }
    case 5: {
      int rank, n;
      MPI_Comm_rank(MPI_COMM_WORLD, &rank);
      MPI_Comm_size(MPI_COMM_WORLD, &n);
      MPI_Scatterv(op->sbuf, op->scounts, op->sdispls, MPI_BYTE, op->rbuf,
                   is_receiver5(rank, n) ? s : 0, MPI_BYTE, 0, MPI_COMM_WORLD);
      break;
    }
#ifdef COLL_BENCH_MPIX
    case 6: {
      int rank, n;
      MPI_Comm_rank(MPI_COMM_WORLD, &rank);
      MPI_Comm_size(MPI_COMM_WORLD, &n);
      if (rank == 0 || is_receiver5(rank, n))
        MPIX_Scatterv_data_movement(op->sbuf, op->scounts, op->sdispls, MPI_BYTE, op->rbuf,
                                    is_receiver5(rank, n) ? s : 0, MPI_BYTE, op->group);
      break;
    }
#endif
#ifdef COLL_BENCH_MPIX
    case 8: {
      MPIX_Schedule sched = op->sched;
      if (op->level == 1 || op->level == 4)
        MPIX_Alltoallv_control1(op->scounts, MPI_BYTE, MPI_COMM_WORLD, &sched);
      else if (op->level == 2 || op->level == 5)
        MPIX_Alltoallv_control2(op->pattern, MPI_COMM_WORLD, &sched);
      if (op->level >= 4)
        MPIX_Schedule_free(&sched);
      else if (op->level == 0)
        MPIX_Alltoallv_data_trans1(op->sbuf, op->scounts, op->sdispls, MPI_BYTE, op->rbuf,
                                   op->rcounts, op->rdispls, MPI_BYTE, MPI_COMM_WORLD);
      else
        MPIX_Alltoallv_data_trans2(op->sbuf, op->scounts, op->sdispls, MPI_BYTE, op->rbuf,
                                   op->rcounts, op->rdispls, MPI_BYTE, MPI_COMM_WORLD, sched);
      if (op->level == 1 || op->level == 2) MPIX_Schedule_free(&sched);
      break;
    }
#endif
#ifdef COLL_BENCH_MPIX
    case 9:
      MPIX_Generate_recv(op->scounts, op->nrc, MPI_COMM_WORLD);
      break;
#endif
#if MPI_VERSION >= 4 || defined(CCMPI)
    case 7: {
      MPI_Request req = op->req;
      MPI_Start(&req);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
      break;
    }
#endif
  }
}

static void validate(const Config* c, const Op* op) {
  const int n = c->n, r = c->rank;
  const size_t s = op->size;
  switch (op->kind) {
    case 0:
      for (int j = 0; j < n; ++j) check(op->rbuf + (size_t)j * s, s, j, 0, c, s);
      break;
    case 1:
      for (int j = 0; j < n; ++j) check(op->rbuf + (size_t)j * s, s, j, r, c, s);
      break;
    case 2:
    case 8:
      if (op->level >= 4) break; /* control only: nothing received */
      for (int j = 0; j < n; ++j)
        check(op->rbuf + op->rdispls[j], (size_t)op->rcounts[op->cur * n + j], j, r, c, s);
      break;
    case 3:
      if (r != 0) check(op->rbuf, s, 0, 0, c, s);
      break;
    case 10:
      if (r == 0)
        for (int j = 1; j < n; ++j) check(op->rbuf + (size_t)j * s, s, j, 0, c, s);
      break;
    case 9:
      for (int j = 0; j < n; ++j)
        if (op->nrc[j] != op->rcounts[j]) {
          fprintf(stderr, "coll_bench: generate-recv: rank %d: recvcounts[%d] = %d, expected %d\n",
                  r, j, op->nrc[j], op->rcounts[j]);
          MPI_Abort(MPI_COMM_WORLD, 3);
          exit(3);
        }
      break;
    case 4:
      check(op->rbuf, s, 0, r, c, s);
      break;
    case 5:
    case 6:
    case 7:
      if (is_receiver5(r, n)) check(op->rbuf, s, 0, r, c, s);
      break;
  }
}

static MPI_Comm sync_comm = MPI_COMM_NULL;
/* The iterations' synchronization (see Method): round k, rank r signals r + 2^k and
 * waits for r - 2^k. */
static void sync_ranks(void) {
  int rank, n;
  MPI_Comm_rank(sync_comm, &rank);
  MPI_Comm_size(sync_comm, &n);
  for (int d = 1; d < n; d *= 2)
    MPI_Sendrecv(NULL, 0, MPI_BYTE, (rank + d) % n, 0, NULL, 0, MPI_BYTE, (rank - d + n) % n, 0,
                 sync_comm, MPI_STATUS_IGNORE);
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static void bench_size(const Config* c, size_t s) {
  Op op;
  if (setup(c, s, &op) != 0) {
    if (c->rank == 0) fprintf(stderr, "coll_bench: cannot set up %s of %zu bytes\n", c->test, s);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
#ifdef COLL_BENCH_MPIX
  /* The compiler-assisted group: made once per size, outside the timing (what CC-MPI's
   * compiler hoists out of the loop); closed after the last iteration. */
  if (op.kind == 6 &&
      MPIX_Scatterv_open_group(op.scounts, MPI_BYTE, is_receiver5(c->rank, c->n) ? (int)s : 0,
                               MPI_BYTE, 0, MPI_COMM_WORLD, &op.group) != MPI_SUCCESS) {
    fprintf(stderr, "coll_bench: rank %d: MPIX_Scatterv_open_group failed\n", c->rank);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
#endif
#ifdef COLL_BENCH_MPIX
  /* Level 3: the schedule made once per size, outside the timing (what a compiler or
   * ccmpi-schedule does before the program runs). MPI_ERRORS_ARE_FATAL stops on failure. */
  if (op.kind == 8 && op.level == 3) {
    MPI_Count* pat = malloc(sizeof(MPI_Count) * (size_t)c->n * (size_t)c->n);
    long long* m = malloc(sizeof(long long) * (size_t)c->n * (size_t)c->n);
    make_matrix(c, s, c->seed, m);
    for (int i = 0; i < c->n * c->n; ++i) pat[i] = (MPI_Count)m[i];
    MPIX_Alltoallv_control2(pat, MPI_COMM_WORLD, &op.sched);
    free(m);
    free(pat);
  }
#endif
#if MPI_VERSION >= 4 || defined(CCMPI)
  /* The persistent request: made once per size, outside the timing. */
  if (op.kind == 7 && MPI_Scatterv_init(op.sbuf, op.scounts, op.sdispls, MPI_BYTE, op.rbuf,
                                        is_receiver5(c->rank, c->n) ? (int)s : 0, MPI_BYTE, 0,
                                        MPI_COMM_WORLD, MPI_INFO_NULL, &op.req) != MPI_SUCCESS) {
    fprintf(stderr, "coll_bench: rank %d: MPI_Scatterv_init failed\n", c->rank);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
#endif
  if (op.kind == 2 && op.form == 1 && !op.fresh) {
    int in = 0, out = 0;
    for (int j = 0; j < c->n; ++j) {
      if (op.rcounts[j]) op.nsrc[in++] = j;
      if (op.scounts[j]) op.ndst[out++] = j;
    }
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, in, op.nsrc, MPI_UNWEIGHTED, out, op.ndst,
                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &op.graph);
  }
#if MPI_VERSION >= 4 || defined(CCMPI)
  if (op.kind == 2 && op.form == 2 &&
      MPI_Alltoallv_init(op.sbuf, op.scounts, op.sdispls, MPI_BYTE, op.rbuf, op.rcounts, op.rdispls,
                         MPI_BYTE, MPI_COMM_WORLD, MPI_INFO_NULL, &op.req) != MPI_SUCCESS) {
    fprintf(stderr, "coll_bench: rank %d: MPI_Alltoallv_init failed\n", c->rank);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
#endif
  if (!strcmp(c->test, "mesh") && c->rank == 0) {
    /* Test set 3's statistics (pattern 0; sizes in points = bytes / msg_unit). */
    long long* m = malloc(sizeof(long long) * (size_t)c->n * (size_t)c->n);
    const long long edges = make_matrix(c, 1, c->seed, m);
    long long msgs = 0, lo = -1, hi = 0, sum = 0;
    int dmin = c->n, dmax = 0;
    for (int i = 0; i < c->n; ++i) {
      int d = 0;
      for (int j = 0; j < c->n; ++j)
        if (m[i * c->n + j]) {
          ++d, ++msgs, sum += m[i * c->n + j];
          if (lo < 0 || m[i * c->n + j] < lo) lo = m[i * c->n + j];
          if (m[i * c->n + j] > hi) hi = m[i * c->n + j];
        }
      if (d < dmin) dmin = d;
      if (d > dmax) dmax = d;
    }
    printf(
        "stats mesh %d points=%d edges=%lld messages=%lld per-rank=%.2f min=%d max=%d "
        "size-points mean=%.1f min=%lld max=%lld\n",
        c->n, c->points, edges, msgs, (double)msgs / c->n, dmin, dmax,
        msgs ? (double)sum / msgs : 0.0, lo < 0 ? 0 : lo, hi);
    fflush(stdout);
    free(m);
  }
  double last = 0, t;
  for (int w = 0; w < c->warmup; ++w) {
    op.cur = w % op.npat;
    if (w == 0) clear_recv(c, &op);
    sync_ranks();
    t = MPI_Wtime();
    run(&op);
    last = MPI_Wtime() - t;
    if (w == 0) validate(c, &op);
  }
  double slowest;
  MPI_Allreduce(&last, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  int iters = slowest > 0 ? (int)(c->target_ms / 1e3 / slowest) : c->max_iters;
  if (iters < c->min_iters) iters = c->min_iters;
  if (iters > c->max_iters) iters = c->max_iters;
  double* times = malloc(sizeof(double) * (size_t)iters);
  double* maxt = malloc(sizeof(double) * (size_t)iters);
  for (int i = 0; i < iters; ++i) {
    op.cur = (c->warmup + i) % op.npat;
    if (i == iters - 1) clear_recv(c, &op);
    sync_ranks();
    t = MPI_Wtime();
    run(&op);
    times[i] = MPI_Wtime() - t;
  }
  validate(c, &op);
#ifdef COLL_BENCH_MPIX
  if (op.kind == 6) MPIX_Scatterv_close_group(&op.group);
  if (op.kind == 8 && op.level == 3) MPIX_Schedule_free(&op.sched);
#endif
#if MPI_VERSION >= 4 || defined(CCMPI)
  if (op.kind == 7 || (op.kind == 2 && op.form == 2)) MPI_Request_free(&op.req);
#endif
  if (op.graph != MPI_COMM_NULL) MPI_Comm_free(&op.graph);
  MPI_Reduce(times, maxt, iters, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (c->rank == 0) {
    double sum = 0;
    for (int i = 0; i < iters; ++i) sum += maxt[i];
    qsort(maxt, (size_t)iters, sizeof(double), cmp_double);
    double med = iters % 2 ? maxt[iters / 2] : (maxt[iters / 2 - 1] + maxt[iters / 2]) / 2;
    printf("result %s %d %zu %.2f %.2f %.2f %lld %d\n", c->test, c->n,
           strncmp(c->test, "alltoallv-random", 16) ? s : (size_t)0, med * 1e6, sum / iters * 1e6,
           maxt[0] * 1e6, op.bound, iters);
    fflush(stdout);
  }
  free(times);
  free(maxt);
  teardown(&op);
}

int main(int argc, char** argv) {
  Config c = {0};
  c.degree = 4, c.seed = 20031, c.warmup = 2, c.min_iters = 3, c.max_iters = 200;
  c.points = 2800;
  c.target_ms = 1000;
  const char* sizes = "1024";
  /* Read by ccmpi at MPI_Init. */
  if (argc > 1 && !strcmp(argv[1], "scatterv5-mpix-mcast"))
    setenv("CCMPI_MPIX_SCATTERV_DATA", "mcast", 0);
  MPI_Init(&argc, &argv);
  MPI_Comm_dup(MPI_COMM_WORLD, &sync_comm);
  MPI_Comm_size(MPI_COMM_WORLD, &c.n);
  MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
  if (argc < 2) {
    if (c.rank == 0) fprintf(stderr, "usage: coll_bench TEST [--sizes a,b] [options]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  c.test = argv[1];
  for (int i = 2; i + 1 < argc; i += 2) {
    const char *k = argv[i], *v = argv[i + 1];
    if (!strcmp(k, "--sizes"))
      sizes = v;
    else if (!strcmp(k, "--print-pattern"))
      c.print_pattern = v;
    else if (!strcmp(k, "--ranks"))
      c.pattern_ranks = atoi(v) > 0 ? atoi(v) : -1;
    else if (!strcmp(k, "--target-ms"))
      c.target_ms = atof(v);
    else if (!strcmp(k, "--warmup"))
      c.warmup = atoi(v) > 0 ? atoi(v) : 1;
    else if (!strcmp(k, "--min-iters"))
      c.min_iters = atoi(v) > 0 ? atoi(v) : 1;
    else if (!strcmp(k, "--max-iters"))
      c.max_iters = atoi(v) > 0 ? atoi(v) : 1;
    else if (!strcmp(k, "--degree"))
      c.degree = atoi(v);
    else if (!strcmp(k, "--seed"))
      c.seed = strtoull(v, NULL, 10);
    else if (!strcmp(k, "--points"))
      c.points = atoi(v) > 0 ? atoi(v) : 1;
    else if (!strcmp(k, "--form") &&
             (!strcmp(v, "alltoallv") || !strcmp(v, "neighbor") || !strcmp(v, "persistent")))
      c.form = !strcmp(v, "alltoallv") ? 0 : !strcmp(v, "neighbor") ? 1 : 2;
    else if (!strcmp(k, "--pattern") && (!strcmp(v, "reused") || !strcmp(v, "fresh")))
      c.fresh = !strcmp(v, "fresh");
    else {
      if (c.rank == 0) fprintf(stderr, "coll_bench: unknown option %s\n", k);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  if (c.max_iters < c.min_iters) c.max_iters = c.min_iters;
  if (c.pattern_ranks) { /* --ranks N: the patterns alone, for N ranks; nothing runs */
    if (c.pattern_ranks < 0 || !c.print_pattern || !is_matrix_test(c.test)) {
      if (c.rank == 0)
        fprintf(stderr,
                "coll_bench: --ranks N takes a positive N, --print-pattern and a matrix test "
                "(alltoallv, alltoallv-random, uniform, nonuniform, mesh)\n");
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (c.rank == 0) {
      Config pc = c;
      pc.n = c.pattern_ranks;
      long long* m = malloc(sizeof(long long) * (size_t)pc.n * (size_t)pc.n);
      if (!m) {
        fprintf(stderr, "coll_bench: --ranks %d: no memory for the %d x %d matrix\n", pc.n, pc.n,
                pc.n);
        MPI_Abort(MPI_COMM_WORLD, 2);
      }
      char* list = strdup(sizes);
      for (char* tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        const size_t s = strtoull(tok, NULL, 10);
        fill_matrix(&pc, s, pc.seed, m);
        print_pattern(&pc, s, 0, 1, m);
      }
      free(list);
      free(m);
    }
    MPI_Finalize();
    return 0;
  }
#ifndef COLL_BENCH_MPIX
  if (!strncmp(c.test, "alltoallv-random-", 17)) {
    if (c.rank == 0)
      fprintf(stderr,
              "coll_bench: %s is unsupported by this MPI: it needs ccmpi's mpix_ccmpi.h "
              "(MPIX_Alltoallv_control1/2, MPIX_Alltoallv_data_trans1/2)\n",
              c.test);
    MPI_Finalize();
    return 4;
  }
  if (!strcmp(c.test, "generate-recv")) {
    if (c.rank == 0)
      fprintf(stderr,
              "coll_bench: generate-recv is unsupported by this MPI: it needs ccmpi's "
              "mpix_ccmpi.h (MPIX_Generate_recv)\n");
    MPI_Finalize();
    return 4;
  }
  if (!strncmp(c.test, "scatterv5-mpix", 14)) {
    if (c.rank == 0)
      fprintf(stderr,
              "coll_bench: scatterv5-mpix(-mcast) is unsupported by this MPI: it needs ccmpi's "
              "mpix_ccmpi.h (MPIX_Scatterv_open_group / _data_movement / _close_group)\n");
    MPI_Finalize();
    return 4;
  }
#endif
  if (c.form == 2 && c.fresh) {
    if (c.rank == 0) fprintf(stderr, "coll_bench: --form persistent takes --pattern reused\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
#if MPI_VERSION < 4 && !defined(CCMPI)
  if (c.form == 2) {
    if (c.rank == 0)
      fprintf(stderr,
              "coll_bench: --form persistent is unsupported by this MPI: it needs MPI 4.0 "
              "(MPI_Alltoallv_init)\n");
    MPI_Finalize();
    return 4;
  }
  if (!strcmp(c.test, "scatterv5-init")) {
    if (c.rank == 0)
      fprintf(stderr,
              "coll_bench: scatterv5-init is unsupported by this MPI: it needs MPI 4.0 "
              "(MPI_Scatterv_init)\n");
    MPI_Finalize();
    return 4;
  }
#endif
  Op probe;
  const char* print = c.print_pattern;
  c.print_pattern = NULL; /* the probe's pattern is no size asked for */
  if (setup(&c, 1, &probe) != 0) {
    if (c.rank == 0) fprintf(stderr, "coll_bench: unknown test %s\n", c.test);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  teardown(&probe);
  c.print_pattern = print;
  char* list = strdup(sizes);
  for (char* tok = strtok(list, ","); tok; tok = strtok(NULL, ","))
    bench_size(&c, strtoull(tok, NULL, 10));
  free(list);
  if (c.rank == 0) {
    printf("coll_bench: done\n"); /* the harness's cue that only MPI_Finalize is left */
    fflush(stdout);
  }
  MPI_Comm_free(&sync_comm);
  MPI_Finalize();
  return 0;
}
