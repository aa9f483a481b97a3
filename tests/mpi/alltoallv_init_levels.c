/* MPI_Alltoallv_init with the compiled-communication info keys (include/mpix_ccmpi.h):
 * ccmpi_alltoallv_level = p2p | 1 | 2 | 3, ccmpi_pattern_file alone (Level 2),
 * ccmpi_schedule_file alone (Level 3), a level that overrides a file, and no key at all.
 * All requests are made first, then the pattern and schedule files are deleted (they are
 * read once, at init), then every request is started several times with the data changed
 * between starts and every received element checked (holes of the receive buffer too).
 * The same for MPI_IN_PLACE and for a non-contiguous receive type. Then the errors under
 * MPI_ERRORS_RETURN, which every rank must report (a failure on one rank fails init on all,
 * nobody hangs): a level without its file, an unknown level, a file missing on one rank
 * only, a schedule for another number of hosts, a garbled schedule file, counts that do
 * not match the pattern on two ranks only (Level 2 and Level 3), receive counts that do
 * not match the senders' (Level 1) and a pattern with two messages for one pair. Afterwards
 * collectives still work. argv[1]: the ccmpi-schedule program. */
#include <mpi.h>
#include <mpix_ccmpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAXP 64
#define POISON (-7)

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

/* ints rank s sends to rank d: always even (so that pairs of ints can receive them);
 * empty, small (the final phase) or above 64 KiB (a phase of its own). */
static int count(int s, int d) {
  if (s == d) return 6;
  if ((3 * s + d) % 5 == 0) return 0;
  if ((s + 2 * d) % 3 != 1) return 17000 + 2 * s; /* 4 ranks: 2 phases, 7: 4 or more */
  return 2 * ((7 * s + d) % 20 + 1);
}
/* a symmetric pattern for MPI_IN_PLACE: what s sends to d is what d sends to s */
static int count_sym(int s, int d) {
  if (s == d) return 4;
  if ((s + d) % 4 == 1) return 0;
  if ((s * d) % 3 == 2) return 16500 + 2 * (s + d);
  return (s + d) % 9 + 1;
}
static int value(int s, int d, int j, int it) {
  return s * 1000000 + d * 10000 + j % 5000 + it * 3;
}

struct layout {
  int sc[MAXP], sd[MAXP], rc[MAXP], rd[MAXP], stotal, rtotal;
};
static void make_layout(struct layout* l, int (*cnt)(int, int)) {
  l->stotal = l->rtotal = 0;
  for (int p = 0; p < size; ++p) {
    l->sc[p] = cnt(rank, p);
    l->rc[p] = cnt(p, rank);
    l->sd[p] = l->stotal;
    l->rd[p] = l->rtotal;
    l->stotal += l->sc[p];
    l->rtotal += l->rc[p];
  }
}
static void fill(const struct layout* l, int* s, int it) {
  for (int p = 0; p < size; ++p)
    for (int j = 0; j < l->sc[p]; ++j) s[l->sd[p] + j] = value(rank, p, j, it);
}
static void verify(const struct layout* l, const int* r, int it, const char* what) {
  int bad = 0;
  for (int p = 0; p < size; ++p)
    for (int j = 0; j < l->rc[p]; ++j)
      if (r[l->rd[p] + j] != value(p, rank, j, it) && bad++ < 3)
        CHECK(0, "%s, start %d: from %d element %d is %d, expected %d", what, it, p, j,
              r[l->rd[p] + j], value(p, rank, j, it));
}

static void write_pattern(const char* path, int (*cnt)(int, int)) {
  FILE* f = fopen(path, "w");
  CHECK(f != NULL, "cannot write %s", path);
  if (!f) return;
  fprintf(f, "# SRC DST BYTES\n");
  for (int a = 0; a < size; ++a)
    for (int b = 0; b < size; ++b)
      if (a != b && cnt(a, b) > 0) fprintf(f, "%d %d %zu\n", a, b, cnt(a, b) * sizeof(int));
  fclose(f);
}
static void run_scheduler(const char* prog, int hosts, const char* out, const char* in) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "%s --hosts %d --threshold 4k -o %s %s 2>/dev/null", prog, hosts, out,
           in);
  CHECK(system(cmd) == 0, "%s failed", cmd);
}

/* MPI_Alltoallv_init with up to two info keys (NULL: none); returns the error code */
static int init2(const void* sb, const int* sc, const int* sd, MPI_Datatype st, void* rb,
                 const int* rc, const int* rd, MPI_Datatype rt, const char* k1, const char* v1,
                 const char* k2, const char* v2, MPI_Request* req) {
  MPI_Info info;
  MPI_Info_create(&info);
  if (k1) MPI_Info_set(info, k1, v1);
  if (k2) MPI_Info_set(info, k2, v2);
  *req = MPI_REQUEST_NULL;
  int err = MPI_Alltoallv_init(sb, sc, sd, st, rb, rc, rd, rt, MPI_COMM_WORLD, info, req);
  MPI_Info_free(&info);
  return err;
}

/* an init that must fail on every rank with class `want` here (any class if want < 0) */
static void expect_fail(int err, MPI_Request req, int want, const char* needle, const char* what) {
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0, cls = MPI_SUCCESS;
  MPI_Error_class(err, &cls);
  CHECK(err != MPI_SUCCESS, "%s: MPI_Alltoallv_init succeeded", what);
  if (err == MPI_SUCCESS) {
    if (req != MPI_REQUEST_NULL) MPI_Request_free(&req);
    return;
  }
  CHECK(want < 0 || cls == want, "%s: error class %d, expected %d", what, cls, want);
  MPI_Error_string(err, msg, &len);
  CHECK(strstr(msg, "MPI_Alltoallv_init") != NULL, "%s: message '%s' names no function", what, msg);
  CHECK(!needle || strstr(msg, needle), "%s: message '%s' lacks '%s'", what, msg, needle);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size > MAXP || argc < 2) {
    fprintf(stderr, "usage: alltoallv_init_levels CCMPI_SCHEDULE (at most %d ranks)\n", MAXP);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char* scheduler = argv[1];

  /* the files: rank 0 writes the patterns and runs ccmpi-schedule on them */
  char base[200], pat[256], sch[256], psym[256], ssym[256], swrong[256], sbad[256];
  snprintf(base, sizeof base, "/tmp/alltoallv_init_levels_%d_%ld", size, (long)getpid());
  MPI_Bcast(base, sizeof base, MPI_CHAR, 0, MPI_COMM_WORLD);
  snprintf(pat, sizeof pat, "%s.pattern", base);
  snprintf(sch, sizeof sch, "%s.schedule", base);
  snprintf(psym, sizeof psym, "%s.sym.pattern", base);
  snprintf(ssym, sizeof ssym, "%s.sym.schedule", base);
  snprintf(swrong, sizeof swrong, "%s.wrong.schedule", base);
  snprintf(sbad, sizeof sbad, "%s.bad.schedule", base);
  if (rank == 0) {
    write_pattern(pat, count);
    write_pattern(psym, count_sym);
    run_scheduler(scheduler, size, sch, pat);
    run_scheduler(scheduler, size, ssym, psym);
    run_scheduler(scheduler, size + 1, swrong, pat);
    FILE* f = fopen(sbad, "w");
    if (f) {
      fprintf(f, "ccmpi-schedule 1\nhosts %d\nphase\n0 zero 12\n", size);
      fclose(f);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);

  struct layout l;
  make_layout(&l, count);
  int* s = malloc(sizeof(int) * (l.stotal + 1));
  int* r = malloc(sizeof(int) * (l.rtotal + 1));

  /* every way to ask for a level, and no key: all requests made before any start */
  enum { NCASES = 9 };
  const char* cases[NCASES][4] = {
      {"ccmpi_alltoallv_level", "p2p", NULL, NULL},
      {"ccmpi_alltoallv_level", "1", NULL, NULL},
      {"ccmpi_alltoallv_level", "2", "ccmpi_pattern_file", pat},
      {"ccmpi_pattern_file", pat, NULL, NULL},
      {"ccmpi_alltoallv_level", "3", "ccmpi_schedule_file", sch},
      {"ccmpi_schedule_file", sch, NULL, NULL},
      {"ccmpi_alltoallv_level", "p2p", "ccmpi_schedule_file", sch}, /* the level decides */
      {"unrelated_key", "x", NULL, NULL},                           /* the default table */
      {NULL, NULL, NULL, NULL},                                     /* empty info */
  };
  MPI_Request req[NCASES];
  for (int k = 0; k < NCASES; ++k) {
    int err = init2(s, l.sc, l.sd, MPI_INT, r, l.rc, l.rd, MPI_INT, cases[k][0], cases[k][1],
                    cases[k][2], cases[k][3], &req[k]);
    CHECK(err == MPI_SUCCESS && req[k] != MPI_REQUEST_NULL, "init with %s=%s %s=%s: error %d",
          cases[k][0] ? cases[k][0] : "-", cases[k][1] ? cases[k][1] : "-",
          cases[k][2] ? cases[k][2] : "-", cases[k][3] ? cases[k][3] : "-", err);
  }

  /* in place (symmetric pattern): Level 1, Level 2 and Level 3 */
  struct layout ls;
  make_layout(&ls, count_sym);
  int* b = malloc(sizeof(int) * (ls.rtotal + 1));
  const char* ip[3][4] = {{"ccmpi_alltoallv_level", "1", NULL, NULL},
                          {"ccmpi_pattern_file", psym, NULL, NULL},
                          {"ccmpi_alltoallv_level", "3", "ccmpi_schedule_file", ssym}};
  MPI_Request ireq[3];
  for (int k = 0; k < 3; ++k) {
    int err = init2(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, b, ls.rc, ls.rd, MPI_INT, ip[k][0],
                    ip[k][1], ip[k][2], ip[k][3], &ireq[k]);
    CHECK(err == MPI_SUCCESS, "in place init with %s=%s: error %d", ip[k][0], ip[k][1], err);
  }

  /* A non-contiguous receive type of the same bytes (Level 3): the ints arrive as
   * elements of two ints at offsets 0 and 2 of a 4-int slot; offsets 1 and 3 stay. */
  MPI_Datatype vec, slot;
  MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
  MPI_Type_create_resized(vec, 0, 4 * sizeof(int), &slot);
  MPI_Type_commit(&slot);
  MPI_Type_free(&vec);
  int vrc[MAXP], vrd[MAXP], slots = 0;
  for (int p = 0; p < size; ++p) {
    vrc[p] = l.rc[p] / 2;
    vrd[p] = slots;
    slots += vrc[p];
  }
  int* vb = malloc(sizeof(int) * (4 * slots + 1));
  MPI_Request vreq;
  int err = init2(s, l.sc, l.sd, MPI_INT, vb, vrc, vrd, slot, "ccmpi_schedule_file", sch, NULL,
                  NULL, &vreq);
  CHECK(err == MPI_SUCCESS, "derived type init: error %d", err);
  MPI_Type_free(&slot); /* the request keeps what it needs */

  /* the files were read at init: from now on nothing may need them */
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    remove(pat);
    remove(sch);
    remove(psym);
    remove(ssym);
  }
  MPI_Barrier(MPI_COMM_WORLD);

  for (int it = 1; it <= 3; ++it) {
    for (int k = 0; k < NCASES; ++k) {
      const int tag = it * 100 + k;
      fill(&l, s, tag);
      for (int i = 0; i <= l.rtotal; ++i) r[i] = POISON;
      MPI_Start(&req[k]);
      MPI_Wait(&req[k], MPI_STATUS_IGNORE);
      char what[160];
      snprintf(what, sizeof what, "%s=%s %s=%s", cases[k][0] ? cases[k][0] : "(no key)",
               cases[k][1] ? cases[k][1] : "", cases[k][2] ? cases[k][2] : "",
               cases[k][3] ? "file" : "");
      verify(&l, r, tag, what);
      CHECK(r[l.rtotal] == POISON, "%s: wrote past the receive buffer", what);
    }
    for (int k = 0; k < 3; ++k) {
      const int tag = it * 100 + 50 + k;
      fill(&ls, b, tag); /* in place: the send blocks are where the receive blocks are */
      b[ls.rtotal] = POISON;
      MPI_Start(&ireq[k]);
      MPI_Wait(&ireq[k], MPI_STATUS_IGNORE);
      char what[80];
      snprintf(what, sizeof what, "in place %s=%s", ip[k][0], ip[k][1]);
      verify(&ls, b, tag, what);
      CHECK(b[ls.rtotal] == POISON, "%s: wrote past the buffer", what);
    }
    const int tag = it * 100 + 90;
    fill(&l, s, tag);
    for (int i = 0; i <= 4 * slots; ++i) vb[i] = POISON;
    MPI_Start(&vreq);
    MPI_Wait(&vreq, MPI_STATUS_IGNORE);
    int bad = 0;
    for (int p = 0; p < size; ++p)
      for (int j = 0; j < l.rc[p]; ++j) {
        const int at = 4 * (vrd[p] + j / 2) + 2 * (j % 2);
        if (vb[at] != value(p, rank, j, tag) && bad++ < 3)
          CHECK(0, "derived type, start %d: from %d int %d is %d, expected %d", it, p, j, vb[at],
                value(p, rank, j, tag));
      }
    for (int i = 0; i < slots; ++i)
      if ((vb[4 * i + 1] != POISON || vb[4 * i + 3] != POISON) && bad++ < 3)
        CHECK(0, "derived type, start %d: a hole of slot %d was written", it, i);
    CHECK(vb[4 * slots] == POISON, "derived type: wrote past the buffer");
  }
  for (int k = 0; k < NCASES; ++k)
    if (req[k] != MPI_REQUEST_NULL) MPI_Request_free(&req[k]);
  for (int k = 0; k < 3; ++k)
    if (ireq[k] != MPI_REQUEST_NULL) MPI_Request_free(&ireq[k]);
  if (vreq != MPI_REQUEST_NULL) MPI_Request_free(&vreq);

  /* ---- errors: every rank fails, none hangs ---- */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Request q;
  if (rank == 0) { /* files again, for the error cases */
    write_pattern(pat, count);
    run_scheduler(scheduler, size, sch, pat);
  }
  MPI_Barrier(MPI_COMM_WORLD);

  err = init2(s, l.sc, l.sd, MPI_INT, r, l.rc, l.rd, MPI_INT, "ccmpi_alltoallv_level", "2", NULL,
              NULL, &q);
  expect_fail(err, q, MPI_ERR_INFO_VALUE, "ccmpi_pattern_file", "level 2 without a file");
  err = init2(s, l.sc, l.sd, MPI_INT, r, l.rc, l.rd, MPI_INT, "ccmpi_alltoallv_level", "3",
              "ccmpi_pattern_file", pat, &q);
  expect_fail(err, q, MPI_ERR_INFO_VALUE, "ccmpi_schedule_file", "level 3 without its file");
  err = init2(s, l.sc, l.sd, MPI_INT, r, l.rc, l.rd, MPI_INT, "ccmpi_alltoallv_level", "4", NULL,
              NULL, &q);
  expect_fail(err, q, MPI_ERR_INFO_VALUE, "ccmpi_alltoallv_level=4", "unknown level");

  /* the pattern file is missing on the last rank only */
  err = init2(s, l.sc, l.sd, MPI_INT, r, l.rc, l.rd, MPI_INT, "ccmpi_pattern_file",
              rank == size - 1 ? "/nonexistent/ccmpi.pattern" : pat, NULL, NULL, &q);
  expect_fail(err, q, rank == size - 1 ? MPI_ERR_FILE : MPI_ERR_OTHER,
              rank == size - 1 ? "/nonexistent/ccmpi.pattern" : "another rank",
              "pattern file missing on one rank");

  err = init2(s, l.sc, l.sd, MPI_INT, r, l.rc, l.rd, MPI_INT, "ccmpi_schedule_file", swrong, NULL,
              NULL, &q);
  expect_fail(err, q, MPI_ERR_ARG, "hosts", "schedule for another number of hosts");
  err = init2(s, l.sc, l.sd, MPI_INT, r, l.rc, l.rd, MPI_INT, "ccmpi_schedule_file", sbad, NULL,
              NULL, &q);
  expect_fail(err, q, MPI_ERR_ARG, "line", "garbled schedule file");

  if (size > 1) {
    /* rank 0 sends 2 ints more to rank 1, which expects them: consistent counts, but not
     * those of the pattern file / schedule file; ranks 0 and 1 see it, the others not */
    struct layout lm = l;
    if (rank == 0) lm.sc[1] += 2;
    if (rank == 1) lm.rc[0] += 2;
    for (int p = 1; p < size; ++p) {
      lm.sd[p] = lm.sd[p - 1] + lm.sc[p - 1];
      lm.rd[p] = lm.rd[p - 1] + lm.rc[p - 1];
    }
    int* s2 = malloc(sizeof(int) * (l.stotal + 3));
    int* r2 = malloc(sizeof(int) * (l.rtotal + 3));
    const int want = rank <= 1 ? MPI_ERR_ARG : MPI_ERR_OTHER;
    const char* needle = rank <= 1 ? "schedule" : "another rank";
    err = init2(s2, lm.sc, lm.sd, MPI_INT, r2, lm.rc, lm.rd, MPI_INT, "ccmpi_pattern_file", pat,
                NULL, NULL, &q);
    expect_fail(err, q, want, needle, "counts unlike the pattern file");
    err = init2(s2, lm.sc, lm.sd, MPI_INT, r2, lm.rc, lm.rd, MPI_INT, "ccmpi_alltoallv_level", "3",
                "ccmpi_schedule_file", sch, &q);
    expect_fail(err, q, want, needle, "counts unlike the schedule file");

    /* Level 1 gathers the send counts, so these consistent counts are fine there ... */
    err = init2(s2, lm.sc, lm.sd, MPI_INT, r2, lm.rc, lm.rd, MPI_INT, "ccmpi_alltoallv_level", "1",
                NULL, NULL, &q);
    CHECK(err == MPI_SUCCESS, "Level 1 with changed counts: error %d", err);
    if (err == MPI_SUCCESS) {
      fill(&lm, s2, 77);
      MPI_Start(&q);
      MPI_Wait(&q, MPI_STATUS_IGNORE);
      int bad = 0;
      for (int p = 0; p < size; ++p)
        for (int j = 0; j < lm.rc[p]; ++j)
          if (r2[lm.rd[p] + j] != value(p, rank, j, 77) && bad++ < 3)
            CHECK(0, "Level 1 with changed counts: from %d element %d is %d", p, j,
                  r2[lm.rd[p] + j]);
      MPI_Request_free(&q);
    }
    /* ... but a receive count no sender matches is not (rank 1 only) */
    struct layout lr = l;
    if (rank == 1) {
      lr.rc[0] += 2;
      for (int p = 1; p < size; ++p) lr.rd[p] = lr.rd[p - 1] + lr.rc[p - 1];
    }
    err = init2(s, lr.sc, lr.sd, MPI_INT, r2, lr.rc, lr.rd, MPI_INT, "ccmpi_alltoallv_level", "1",
                NULL, NULL, &q);
    expect_fail(err, q, rank == 1 ? MPI_ERR_ARG : MPI_ERR_OTHER,
                rank == 1 ? "receives" : "another rank", "Level 1 with a wrong receive count");
    free(s2);
    free(r2);

    /* a pattern with two messages 0 -> 1 (an Alltoallv moves one block per pair) */
    if (rank == 0) {
      FILE* f = fopen(pat, "a");
      CHECK(f != NULL, "cannot append to %s", pat);
      if (f) {
        fprintf(f, "0 1 %zu\n", count(0, 1) * sizeof(int));
        fclose(f);
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    err = init2(s, l.sc, l.sd, MPI_INT, r, l.rc, l.rd, MPI_INT, "ccmpi_pattern_file", pat, NULL,
                NULL, &q);
    expect_fail(err, q, MPI_ERR_ARG, "more than one message 0 -> 1", "duplicate pattern entry");
  }

  /* the communicator is still in step: a blocking Alltoallv and a fresh Level 1 request */
  fill(&l, s, 500);
  for (int i = 0; i <= l.rtotal; ++i) r[i] = POISON;
  err = MPI_Alltoallv(s, l.sc, l.sd, MPI_INT, r, l.rc, l.rd, MPI_INT, MPI_COMM_WORLD);
  CHECK(err == MPI_SUCCESS, "MPI_Alltoallv after the errors: %d", err);
  verify(&l, r, 500, "MPI_Alltoallv after the errors");
  err = init2(s, l.sc, l.sd, MPI_INT, r, l.rc, l.rd, MPI_INT, "ccmpi_alltoallv_level", "1", NULL,
              NULL, &q);
  CHECK(err == MPI_SUCCESS, "Level 1 init after the errors: %d", err);
  if (err == MPI_SUCCESS) {
    fill(&l, s, 501);
    MPI_Start(&q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    verify(&l, r, 501, "Level 1 after the errors");
    MPI_Request_free(&q);
  }

  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    remove(pat);
    remove(sch);
    remove(swrong);
    remove(sbad);
  }
  free(s);
  free(r);
  free(b);
  free(vb);
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf(total ? "FAIL alltoallv_init_levels (%d)\n" : "PASS alltoallv_init_levels\n", total);
  MPI_Finalize();
  return total ? 1 : 0;
}
