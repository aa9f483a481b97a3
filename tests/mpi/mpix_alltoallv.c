/* Compiled communication for Alltoallv (include/mpix_ccmpi.h): the four methods of CC-MPI
 * (data_trans1; control1 + data_trans2; control2 + data_trans2; a ccmpi-schedule file +
 * data_trans2) and MPI_Alltoallv_init with the ccmpi_alltoallv_level, ccmpi_pattern_file
 * and ccmpi_schedule_file info keys, each on a sparse pattern of mixed sizes (empty,
 * small, above the eager limit), in place and with a derived type once; every element is
 * checked; a schedule made on MPI_COMM_WORLD also serves a communicator of the same size
 * whose ranks are in reverse order. Then the errors: counts that do not match the
 * schedule, a negative pattern entry, a missing file, all under MPI_ERRORS_RETURN.
 * argv[1]: the ccmpi-schedule program. */
#include <mpi.h>
#include <mpix_ccmpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size, failures;

#define CHECK(cond, ...)                        \
  do {                                          \
    if (!(cond)) {                              \
      fprintf(stderr, "rank %d: FAIL: ", rank); \
      fprintf(stderr, __VA_ARGS__);             \
      fprintf(stderr, "\n");                    \
      ++failures;                               \
    }                                           \
  } while (0)

/* ints rank s sends to rank d */
static int count(int s, int d) {
  if (s == d) return 3;
  if ((s * 5 + d * 3) % 7 == 0) return 0;
  if ((s + 2 * d) % 4 == 0) return 20000; /* 80 KB: rendezvous, a phase of its own */
  return (s * d) % 50 + 1;                /* small: the final phase */
}
static int value(int s, int d, int j, int it) {
  return s * 1000000 + d * 10000 + j % 10000 + it;
}

struct layout {
  int sc[64], sd[64], rc[64], rd[64], stotal, rtotal;
};
/* the layout of rank `me` (of a communicator of `size` ranks) */
static void make_layout_of(struct layout* l, int me) {
  l->stotal = l->rtotal = 0;
  for (int p = 0; p < size; ++p) {
    l->sc[p] = count(me, p);
    l->rc[p] = count(p, me);
    l->sd[p] = l->stotal;
    l->rd[p] = l->rtotal;
    l->stotal += l->sc[p];
    l->rtotal += l->rc[p];
  }
}
static void fill_of(const struct layout* l, int* s, int it, int me) {
  for (int p = 0; p < size; ++p)
    for (int j = 0; j < l->sc[p]; ++j) s[l->sd[p] + j] = value(me, p, j, it);
}
static void verify_of(const struct layout* l, const int* r, int it, const char* what, int me) {
  int bad = 0;
  for (int p = 0; p < size; ++p)
    for (int j = 0; j < l->rc[p]; ++j)
      if (r[l->rd[p] + j] != value(p, me, j, it) && bad++ < 3)
        CHECK(0, "%s: from %d element %d is %d, expected %d", what, p, j, r[l->rd[p] + j],
              value(p, me, j, it));
}
static void make_layout(struct layout* l) {
  make_layout_of(l, rank);
}
static void fill(const struct layout* l, int* s, int it) {
  fill_of(l, s, it, rank);
}
static void verify(const struct layout* l, const int* r, int it, const char* what) {
  verify_of(l, r, it, what, rank);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size > 64 || argc < 2) {
    fprintf(stderr, "usage: mpix_alltoallv CCMPI_SCHEDULE (at most 64 ranks)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  struct layout l;
  make_layout(&l);
  int* s = malloc(sizeof(int) * (l.stotal + 1));
  int* r = malloc(sizeof(int) * (l.rtotal + 1));

  /* point-to-point */
  fill(&l, s, 1);
  MPIX_Alltoallv_data_trans1(s, l.sc, l.sd, MPI_INT, r, l.rc, l.rd, MPI_INT, MPI_COMM_WORLD);
  verify(&l, r, 1, "data_trans1");

  /* Level 1 */
  MPIX_Schedule s1 = MPIX_SCHEDULE_NULL;
  MPIX_Alltoallv_control1(l.sc, MPI_INT, MPI_COMM_WORLD, &s1);
  int nph = -1, small = -1;
  MPIX_Schedule_get_info(s1, &nph, &small);
  CHECK(size == 1 || (nph >= 1 && nph <= size), "Level 1: %d phases for %d ranks", nph, size);
  for (int it = 2; it < 5; ++it) {
    fill(&l, s, it);
    MPIX_Alltoallv_data_trans2(s, l.sc, l.sd, MPI_INT, r, l.rc, l.rd, MPI_INT, MPI_COMM_WORLD, s1);
    verify(&l, r, it, "Level 1");
  }

  /* Level 2: every rank builds the global pattern */
  MPI_Count* pattern = malloc(sizeof(MPI_Count) * size * size);
  for (int a = 0; a < size; ++a)
    for (int b = 0; b < size; ++b) pattern[a * size + b] = (MPI_Count)count(a, b) * sizeof(int);
  MPIX_Schedule s2 = MPIX_SCHEDULE_NULL;
  MPIX_Alltoallv_control2(pattern, MPI_COMM_WORLD, &s2);
  int nph2 = -2;
  MPIX_Schedule_get_info(s2, &nph2, NULL);
  CHECK(nph2 == nph, "Level 2 made %d phases, Level 1 %d, from the same pattern", nph2, nph);
  fill(&l, s, 5);
  MPIX_Alltoallv_data_trans2(s, l.sc, l.sd, MPI_INT, r, l.rc, l.rd, MPI_INT, MPI_COMM_WORLD, s2);
  verify(&l, r, 5, "Level 2");

  /* Level 3: rank 0 writes the pattern file and runs ccmpi-schedule on it */
  char pat[256], sch[300];
  snprintf(pat, sizeof pat, "/tmp/mpix_alltoallv_%d_%ld.pattern", size, (long)getpid());
  MPI_Bcast(pat, sizeof pat, MPI_CHAR, 0, MPI_COMM_WORLD);
  snprintf(sch, sizeof sch, "%s.schedule", pat);
  if (rank == 0) {
    FILE* f = fopen(pat, "w");
    CHECK(f != NULL, "cannot write %s", pat);
    for (int a = 0; a < size; ++a)
      for (int b = 0; b < size; ++b)
        if (a != b && count(a, b) > 0) fprintf(f, "%d %d %zu\n", a, b, count(a, b) * sizeof(int));
    fclose(f);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s --hosts %d -o %s %s 2>/dev/null", argv[1], size, sch, pat);
    CHECK(system(cmd) == 0, "%s failed", cmd);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPIX_Schedule s3 = MPIX_SCHEDULE_NULL;
  MPIX_Schedule_load(sch, MPI_COMM_WORLD, &s3);
  fill(&l, s, 6);
  MPIX_Alltoallv_data_trans2(s, l.sc, l.sd, MPI_INT, r, l.rc, l.rd, MPI_INT, MPI_COMM_WORLD, s3);
  verify(&l, r, 6, "Level 3");

  /* The Level 2 schedule on a communicator of the same size with the ranks reversed:
   * this process is rank size-1-rank there and moves that rank's blocks. */
  {
    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - 1 - rank, &rev);
    int me;
    MPI_Comm_rank(rev, &me);
    CHECK(me == size - 1 - rank, "reversed communicator: rank %d", me);
    struct layout lr;
    make_layout_of(&lr, me);
    int* sr = malloc(sizeof(int) * (lr.stotal + 1));
    int* rr = malloc(sizeof(int) * (lr.rtotal + 1));
    fill_of(&lr, sr, 9, me);
    memset(rr, 0xff, sizeof(int) * (lr.rtotal + 1));
    int rc =
        MPIX_Alltoallv_data_trans2(sr, lr.sc, lr.sd, MPI_INT, rr, lr.rc, lr.rd, MPI_INT, rev, s2);
    CHECK(rc == MPI_SUCCESS, "data_trans2 on the reversed communicator: %d", rc);
    verify_of(&lr, rr, 9, "Level 2 on the reversed communicator", me);
    MPI_Comm_free(&rev);
    free(sr);
    free(rr);
  }

  /* In place (send = receive layout): counts symmetric by construction for this part */
  {
    int c2[64], d2[64], tot = 0;
    for (int p = 0; p < size; ++p) {
      c2[p] = (rank + p) % 3 == 0 ? 0 : 17000 + (rank + p);
      d2[p] = tot;
      tot += c2[p];
    }
    int* b = malloc(sizeof(int) * (tot + 1));
    for (int p = 0; p < size; ++p)
      for (int j = 0; j < c2[p]; ++j) b[d2[p] + j] = value(rank, p, j, 7);
    MPIX_Schedule si = MPIX_SCHEDULE_NULL;
    MPIX_Alltoallv_control1(c2, MPI_INT, MPI_COMM_WORLD, &si);
    MPIX_Alltoallv_data_trans2(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, b, c2, d2, MPI_INT,
                               MPI_COMM_WORLD, si);
    int bad = 0;
    for (int p = 0; p < size; ++p)
      for (int j = 0; j < c2[p]; ++j)
        if (b[d2[p] + j] != value(p, rank, j, 7) && bad++ < 3)
          CHECK(0, "in place: from %d element %d is %d", p, j, b[d2[p] + j]);
    /* point-to-point in place */
    for (int p = 0; p < size; ++p)
      for (int j = 0; j < c2[p]; ++j) b[d2[p] + j] = value(rank, p, j, 17);
    MPIX_Alltoallv_data_trans1(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, b, c2, d2, MPI_INT,
                               MPI_COMM_WORLD);
    bad = 0;
    for (int p = 0; p < size; ++p)
      for (int j = 0; j < c2[p]; ++j)
        if (b[d2[p] + j] != value(p, rank, j, 17) && bad++ < 3)
          CHECK(0, "data_trans1 in place: from %d element %d is %d", p, j, b[d2[p] + j]);
    MPIX_Schedule_free(&si);
    free(b);
  }

  /* A derived type (pairs of ints) on the receive side, plain ints on the send side */
  {
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    /* each int block sent arrives as pairs: twice the ints, half the count in pairs */
    int rc2[64], rd2[64];
    int sc2[64], sd2[64], tot = 0, rtot = 0;
    for (int p = 0; p < size; ++p) {
      sc2[p] = 2 * l.sc[p];
      sd2[p] = tot;
      tot += sc2[p];
      rc2[p] = l.rc[p];
      rd2[p] = rtot / 2; /* in pairs */
      rtot += 2 * l.rc[p];
    }
    int* sb = malloc(sizeof(int) * (tot + 1));
    int* rb = malloc(sizeof(int) * (rtot + 1));
    for (int p = 0; p < size; ++p)
      for (int j = 0; j < sc2[p]; ++j) sb[sd2[p] + j] = value(rank, p, j, 8);
    MPIX_Schedule sdt = MPIX_SCHEDULE_NULL;
    MPIX_Alltoallv_control1(sc2, MPI_INT, MPI_COMM_WORLD, &sdt);
    MPIX_Alltoallv_data_trans2(sb, sc2, sd2, MPI_INT, rb, rc2, rd2, pair, MPI_COMM_WORLD, sdt);
    int bad = 0;
    for (int p = 0; p < size; ++p)
      for (int j = 0; j < 2 * rc2[p]; ++j)
        if (rb[2 * rd2[p] + j] != value(p, rank, j, 8) && bad++ < 3)
          CHECK(0, "derived type: from %d element %d is %d", p, j, rb[2 * rd2[p] + j]);
    MPIX_Schedule_free(&sdt);
    MPI_Type_free(&pair);
    free(sb);
    free(rb);
  }

  /* MPI_Alltoallv_init with each level: starts replay, data changes between starts */
  const char* levels[4][2] = {{"ccmpi_alltoallv_level", "p2p"},
                              {"ccmpi_alltoallv_level", "1"},
                              {"ccmpi_pattern_file", pat},
                              {"ccmpi_schedule_file", sch}};
  for (int k = 0; k < 4; ++k) {
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, levels[k][0], levels[k][1]);
    MPI_Request req;
    int rc = MPI_Alltoallv_init(s, l.sc, l.sd, MPI_INT, r, l.rc, l.rd, MPI_INT, MPI_COMM_WORLD,
                                info, &req);
    CHECK(rc == MPI_SUCCESS, "MPI_Alltoallv_init with %s=%s: %d", levels[k][0], levels[k][1], rc);
    for (int it = 10; it < 13; ++it) {
      fill(&l, s, it + 10 * k);
      memset(r, 0xff, sizeof(int) * (l.rtotal + 1));
      MPI_Start(&req);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
      char what[64];
      snprintf(what, sizeof what, "persistent %s=%s", levels[k][0],
               k == 0 || k == 1 ? levels[k][1] : "file");
      verify(&l, r, it + 10 * k, what);
    }
    MPI_Request_free(&req);
    MPI_Info_free(&info);
  }

  /* errors */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  char msg[MPI_MAX_ERROR_STRING];
  int len, cls;
  if (size > 1) {
    /* every rank sends one int more to its right neighbour than the schedule says */
    int sc3[64], rc3[64];
    memcpy(sc3, l.sc, sizeof sc3);
    memcpy(rc3, l.rc, sizeof rc3);
    sc3[(rank + 1) % size] += 1;
    rc3[(rank - 1 + size) % size] += 1;
    int* s4 = malloc(sizeof(int) * (l.stotal + 2));
    int* r4 = malloc(sizeof(int) * (l.rtotal + 2));
    int sd3[64], rd3[64], a = 0, b = 0;
    for (int p = 0; p < size; ++p) {
      sd3[p] = a;
      a += sc3[p];
      rd3[p] = b;
      b += rc3[p];
    }
    int rc = MPIX_Alltoallv_data_trans2(s4, sc3, sd3, MPI_INT, r4, rc3, rd3, MPI_INT,
                                        MPI_COMM_WORLD, s1);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG, "mismatched counts: class %d, expected MPI_ERR_ARG", cls);
    MPI_Error_string(rc, msg, &len);
    CHECK(strstr(msg, "MPIX_Alltoallv_data_trans2") && strstr(msg, "MPI_ERR_ARG") &&
              strstr(msg, "bytes") && strstr(msg, "but the schedule has"),
          "mismatched counts: message '%s'", msg);
    free(s4);
    free(r4);
  }
  pattern[0 * size + (size > 1 ? 1 : 0)] = -5;
  MPIX_Schedule bad = MPIX_SCHEDULE_NULL;
  int rc = MPIX_Alltoallv_control2(pattern, MPI_COMM_WORLD, &bad);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_ARG && bad == MPIX_SCHEDULE_NULL, "negative pattern entry: class %d", cls);
  MPI_Error_string(rc, msg, &len);
  CHECK(strstr(msg, "MPIX_Alltoallv_control2") && strstr(msg, "negative"), "message '%s'", msg);
  rc = MPIX_Schedule_load("/nonexistent/ccmpi.schedule", MPI_COMM_WORLD, &bad);
  CHECK(rc != MPI_SUCCESS && bad == MPIX_SCHEDULE_NULL, "missing schedule file accepted");
  MPI_Error_string(rc, msg, &len);
  CHECK(strstr(msg, "MPIX_Schedule_load") && strstr(msg, "/nonexistent/ccmpi.schedule"),
        "message '%s'", msg);
  {
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "ccmpi_schedule_file", "/nonexistent/ccmpi.schedule");
    MPI_Request req = MPI_REQUEST_NULL;
    rc = MPI_Alltoallv_init(s, l.sc, l.sd, MPI_INT, r, l.rc, l.rd, MPI_INT, MPI_COMM_WORLD, info,
                            &req);
    CHECK(rc != MPI_SUCCESS, "MPI_Alltoallv_init with a missing schedule file succeeded");
    MPI_Info_free(&info);
  }

  MPIX_Schedule_free(&s1);
  MPIX_Schedule_free(&s2);
  MPIX_Schedule_free(&s3);
  CHECK(s1 == MPIX_SCHEDULE_NULL, "MPIX_Schedule_free left the handle set");
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    remove(pat);
    remove(sch);
  }
  free(pattern);
  free(s);
  free(r);
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf(total ? "FAIL mpix_alltoallv (%d)\n" : "PASS mpix_alltoallv\n", total);
  MPI_Finalize();
  return total ? 1 : 0;
}
