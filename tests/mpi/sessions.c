/* MPI-4 sessions. Modes (argv[1]):
 *   only     no MPI_Init: process sets, pset info, groups and communicators from
 *            "mpi://WORLD" and "mpi://SELF", collectives and p2p on them, two sessions at
 *            once, a communicator of a subset created by its members only, mismatched string
 *            tags, a bad pset name under MPI_ERRORS_RETURN, session error handlers, and a
 *            second session after the first one was finalized.
 *   world    MPI_Init, then a session: its WORLD communicator is congruent to
 *            MPI_COMM_WORLD and both work interleaved; the session communicator still works
 *            after MPI_Finalize, until MPI_Session_finalize.
 *   first    a session first, then MPI_Init / MPI_Finalize inside it.
 *   leak     MPI_Init / MPI_Finalize and a session that is never finalized, whose last
 *            messages are sent just before main returns: the library flushes them at
 *            exit, and the job ends with exit code 0.
 * Every check aborts the job with a message on failure. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_rank = -1;

#define SCHECK(cond, ...)                                                                         \
  do {                                                                                            \
    if (!(cond)) {                                                                                \
      fprintf(stderr, "rank %d: CHECK failed at %s:%d: %s: ", g_rank, __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                                               \
      fprintf(stderr, "\n");                                                                      \
      fflush(stderr);                                                                             \
      MPI_Abort(MPI_COMM_SELF, 3);                                                                \
    }                                                                                             \
  } while (0)
#define SCHECK_MPI(call) SCHECK((call) == MPI_SUCCESS, "%s failed", #call)

static int g_session_handler_calls = 0;
static int g_session_handler_code = 0;
static void session_handler(MPI_Session* s, int* code, ...) {
  (void)s;
  ++g_session_handler_calls;
  g_session_handler_code = *code;
}

/* The communicator of process set `pset` in session s, made with `tag`. */
static MPI_Comm comm_from_pset(MPI_Session s, const char* pset, const char* tag) {
  MPI_Group g;
  SCHECK_MPI(MPI_Group_from_session_pset(s, pset, &g));
  MPI_Comm c;
  SCHECK_MPI(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
  SCHECK_MPI(MPI_Group_free(&g));
  return c;
}

/* Collectives and a ring exchange on a communicator of all n processes. */
static void exercise(MPI_Comm c, int expect_size) {
  int size, rank;
  SCHECK_MPI(MPI_Comm_size(c, &size));
  SCHECK_MPI(MPI_Comm_rank(c, &rank));
  SCHECK(size == expect_size, "size %d, expected %d", size, expect_size);
  long sum = -1;
  long mine = rank + 1;
  SCHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, c));
  SCHECK(sum == (long)size * (size + 1) / 2, "allreduce sum %ld", sum);
  int root_val = rank == size - 1 ? 4242 : -1;
  SCHECK_MPI(MPI_Bcast(&root_val, 1, MPI_INT, size - 1, c));
  SCHECK(root_val == 4242, "bcast got %d", root_val);
  int* all = malloc(sizeof(int) * size);
  int sq = rank * rank;
  SCHECK_MPI(MPI_Allgather(&sq, 1, MPI_INT, all, 1, MPI_INT, c));
  for (int i = 0; i < size; ++i) SCHECK(all[i] == i * i, "allgather[%d] = %d", i, all[i]);
  free(all);
  int right = (rank + 1) % size, left = (rank + size - 1) % size, got = -1;
  SCHECK_MPI(
      MPI_Sendrecv(&rank, 1, MPI_INT, right, 7, &got, 1, MPI_INT, left, 7, c, MPI_STATUS_IGNORE));
  SCHECK(got == left, "ring got %d expected %d", got, left);
}

static void check_psets(MPI_Session s, int world_size) {
  int n = -1;
  SCHECK_MPI(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n));
  SCHECK(n >= 2, "%d process sets", n);
  int found_world = 0, found_self = 0;
  for (int i = 0; i < n; ++i) {
    int len = 0;
    SCHECK_MPI(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL));
    SCHECK(len > 1 && len <= MPI_MAX_PSET_NAME_LEN, "pset %d length %d", i, len);
    char name[MPI_MAX_PSET_NAME_LEN];
    int len2 = len;
    SCHECK_MPI(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len2, name));
    SCHECK((int)strlen(name) == len - 1, "pset %d name '%s' length %d", i, name, len);
    MPI_Info info;
    SCHECK_MPI(MPI_Session_get_pset_info(s, name, &info));
    char value[64];
    int flag = 0;
    SCHECK_MPI(MPI_Info_get(info, "mpi_size", sizeof value - 1, value, &flag));
    SCHECK(flag, "pset %s has no mpi_size", name);
    if (strcmp(name, "mpi://WORLD") == 0) {
      found_world = 1;
      SCHECK(atoi(value) == world_size, "WORLD mpi_size %s", value);
    } else if (strcmp(name, "mpi://SELF") == 0) {
      found_self = 1;
      SCHECK(atoi(value) == 1, "SELF mpi_size %s", value);
    }
    SCHECK_MPI(MPI_Info_free(&info));
  }
  SCHECK(found_world && found_self, "WORLD %d SELF %d", found_world, found_self);
  /* A truncated name is NUL-terminated. */
  char small[5];
  int len = sizeof small;
  SCHECK_MPI(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 0, &len, small));
  SCHECK(strlen(small) == 4, "truncated name '%s'", small);
}

static int world_size_from(MPI_Session s) {
  MPI_Info info;
  SCHECK_MPI(MPI_Session_get_pset_info(s, "mpi://WORLD", &info));
  char value[64];
  int flag = 0;
  SCHECK_MPI(MPI_Info_get(info, "mpi_size", sizeof value - 1, value, &flag));
  SCHECK_MPI(MPI_Info_free(&info));
  return atoi(value);
}

static void mode_only(void) {
  int flag = 1;
  MPI_Info sinfo;
  MPI_Session s;
  /* MPI_Info may be used before any initialization in MPI-4; ccmpi needs a live session for
   * it, so the thread level is requested in a second session below. */
  SCHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
  SCHECK_MPI(MPI_Initialized(&flag));
  SCHECK(flag == 0, "MPI_Initialized says %d inside a session without MPI_Init", flag);
  const int n = world_size_from(s);
  check_psets(s, n);

  MPI_Comm world = comm_from_pset(s, "mpi://WORLD", "org.ccmpi.test.world");
  SCHECK_MPI(MPI_Comm_rank(world, &g_rank));
  exercise(world, n);

  MPI_Comm self = comm_from_pset(s, "mpi://SELF", "org.ccmpi.test.self");
  exercise(self, 1);

  /* Bad pset name: MPI_ERR_ARG through the session's MPI_ERRORS_RETURN. */
  MPI_Group bad = MPI_GROUP_NULL;
  int rc = MPI_Group_from_session_pset(s, "mpi://NOPE", &bad);
  int cls = -1;
  MPI_Error_class(rc, &cls);
  SCHECK(rc != MPI_SUCCESS && cls == MPI_ERR_ARG, "bad pset: rc %d class %d", rc, cls);
  char msg[MPI_MAX_ERROR_STRING];
  int msglen = 0;
  MPI_Error_string(rc, msg, &msglen);
  SCHECK(strstr(msg, "MPI_Group_from_session_pset") != NULL, "message '%s'", msg);

  /* A second session, with a user error handler and a thread level in its info. */
  MPI_Errhandler eh;
  SCHECK_MPI(MPI_Session_create_errhandler(session_handler, &eh));
  SCHECK_MPI(MPI_Info_create(&sinfo));
  SCHECK_MPI(MPI_Info_set(sinfo, "thread_level", "MPI_THREAD_FUNNELED"));
  MPI_Session s2;
  SCHECK_MPI(MPI_Session_init(sinfo, eh, &s2));
  SCHECK_MPI(MPI_Info_free(&sinfo));
  SCHECK(s2 != s, "two sessions share handle 0x%x", s);
  MPI_Info used;
  SCHECK_MPI(MPI_Session_get_info(s2, &used));
  char level[64];
  SCHECK_MPI(MPI_Info_get(used, "thread_level", sizeof level - 1, level, &flag));
  SCHECK(flag && strcmp(level, "MPI_THREAD_FUNNELED") == 0, "thread_level '%s'", level);
  SCHECK_MPI(MPI_Info_free(&used));
  MPI_Errhandler got;
  SCHECK_MPI(MPI_Session_get_errhandler(s2, &got));
  SCHECK(got == eh, "get_errhandler 0x%x, set 0x%x", got, eh);
  SCHECK_MPI(MPI_Errhandler_free(&got));
  rc = MPI_Group_from_session_pset(s2, "no-such-set", &bad);
  SCHECK(rc != MPI_SUCCESS && g_session_handler_calls == 1 && g_session_handler_code == rc,
         "user handler: rc %d calls %d code %d", rc, g_session_handler_calls,
         g_session_handler_code);
  SCHECK_MPI(MPI_Session_call_errhandler(s2, MPI_ERR_OTHER));
  SCHECK(g_session_handler_calls == 2 && g_session_handler_code == MPI_ERR_OTHER,
         "call_errhandler: calls %d code %d", g_session_handler_calls, g_session_handler_code);
  SCHECK_MPI(MPI_Errhandler_free(&eh));

  /* Messages on the communicators of the two sessions never match each other. */
  MPI_Comm world2 = comm_from_pset(s2, "mpi://WORLD", "org.ccmpi.test.world");
  exercise(world2, n);
  if (n > 1) {
    if (g_rank == 0) {
      int a = 111, b = 222;
      SCHECK_MPI(MPI_Send(&a, 1, MPI_INT, 1, 5, world));
      SCHECK_MPI(MPI_Send(&b, 1, MPI_INT, 1, 5, world2));
    } else if (g_rank == 1) {
      int a = 0, b = 0;
      SCHECK_MPI(MPI_Recv(&b, 1, MPI_INT, 0, 5, world2, MPI_STATUS_IGNORE));
      SCHECK_MPI(MPI_Recv(&a, 1, MPI_INT, 0, 5, world, MPI_STATUS_IGNORE));
      SCHECK(a == 111 && b == 222, "cross-session messages: a %d b %d", a, b);
    }
  }

  /* A communicator of the even ranks, created by its members only (the odd ranks go on
   * with a collective of their own on a communicator of the odd ranks). */
  MPI_Group wg, half;
  SCHECK_MPI(MPI_Group_from_session_pset(s, "mpi://WORLD", &wg));
  int range[1][3] = {{g_rank % 2, n - 1, 2}};
  SCHECK_MPI(MPI_Group_range_incl(wg, 1, range, &half));
  MPI_Comm hc;
  SCHECK_MPI(MPI_Comm_create_from_group(half, g_rank % 2 ? "odd" : "even", MPI_INFO_NULL,
                                        MPI_ERRORS_RETURN, &hc));
  int hsize = 0, hrank = -1;
  SCHECK_MPI(MPI_Comm_size(hc, &hsize));
  SCHECK_MPI(MPI_Comm_rank(hc, &hrank));
  SCHECK(hsize == (n - g_rank % 2 + 1) / 2 && hrank == g_rank / 2, "half size %d rank %d", hsize,
         hrank);
  int wsum = 0;
  SCHECK_MPI(MPI_Allreduce(&g_rank, &wsum, 1, MPI_INT, MPI_SUM, hc));
  int expect = 0;
  for (int r = g_rank % 2; r < n; r += 2) expect += r;
  SCHECK(wsum == expect, "half sum %d expected %d", wsum, expect);
  SCHECK_MPI(MPI_Comm_free(&hc));

  /* Different string tags among the members: every member gets MPI_ERR_ARG. */
  if (n > 1) {
    char tag[32];
    snprintf(tag, sizeof tag, "tag-of-%d", g_rank);
    MPI_Comm mism = MPI_COMM_NULL;
    rc = MPI_Comm_create_from_group(wg, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &mism);
    MPI_Error_class(rc, &cls);
    SCHECK(rc != MPI_SUCCESS && cls == MPI_ERR_ARG, "mismatched tags: rc %d class %d", rc, cls);
  }
  SCHECK_MPI(MPI_Group_free(&half));
  SCHECK_MPI(MPI_Group_free(&wg));

  SCHECK_MPI(MPI_Comm_free(&world2));
  SCHECK_MPI(MPI_Session_finalize(&s2));
  SCHECK(s2 == MPI_SESSION_NULL, "finalize left 0x%x", s2);
  exercise(world, n); /* the first session is unaffected */
  SCHECK_MPI(MPI_Comm_free(&self));
  SCHECK_MPI(MPI_Comm_free(&world));
  SCHECK_MPI(MPI_Session_finalize(&s));

  /* A new session after every session was finalized. */
  SCHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
  world = comm_from_pset(s, "mpi://WORLD", "again");
  exercise(world, n);
  SCHECK_MPI(MPI_Comm_free(&world));
  SCHECK_MPI(MPI_Session_finalize(&s));
}

static void mode_world(void) {
  SCHECK_MPI(MPI_Init(NULL, NULL));
  int n;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Session s;
  SCHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
  MPI_Comm sw = comm_from_pset(s, "mpi://WORLD", "world-model");
  int result = -1;
  SCHECK_MPI(MPI_Comm_compare(sw, MPI_COMM_WORLD, &result));
  SCHECK(result == MPI_CONGRUENT, "compare with MPI_COMM_WORLD: %d", result);
  int srank;
  SCHECK_MPI(MPI_Comm_rank(sw, &srank));
  SCHECK(srank == g_rank, "session rank %d world rank %d", srank, g_rank);
  /* Interleaved collectives on both. */
  for (int i = 0; i < 3; ++i) {
    exercise(sw, n);
    exercise(MPI_COMM_WORLD, n);
  }
  /* Same tag, same peers, two communicators: no cross-matching. */
  if (n > 1) {
    if (g_rank == 0) {
      int a = 1, b = 2;
      SCHECK_MPI(MPI_Send(&a, 1, MPI_INT, 1, 0, MPI_COMM_WORLD));
      SCHECK_MPI(MPI_Send(&b, 1, MPI_INT, 1, 0, sw));
    } else if (g_rank == 1) {
      int a = 0, b = 0;
      SCHECK_MPI(MPI_Recv(&b, 1, MPI_INT, 0, 0, sw, MPI_STATUS_IGNORE));
      SCHECK_MPI(MPI_Recv(&a, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      SCHECK(a == 1 && b == 2, "a %d b %d", a, b);
    }
  }
  SCHECK_MPI(MPI_Finalize());
  int flag = 0;
  MPI_Finalized(&flag);
  SCHECK(flag == 1, "MPI_Finalized %d", flag);
  exercise(sw, n); /* the session outlives the world model */
  SCHECK_MPI(MPI_Comm_free(&sw));
  SCHECK_MPI(MPI_Session_finalize(&s));
}

static void mode_first(void) {
  MPI_Session s;
  SCHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
  MPI_Comm sw = comm_from_pset(s, "mpi://WORLD", "first");
  SCHECK_MPI(MPI_Comm_rank(sw, &g_rank));
  int n = world_size_from(s);
  exercise(sw, n);
  SCHECK_MPI(MPI_Init(NULL, NULL));
  int wrank = -1, flag = 0;
  MPI_Initialized(&flag);
  SCHECK(flag == 1, "MPI_Initialized %d", flag);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  SCHECK(wrank == g_rank, "world rank %d session rank %d", wrank, g_rank);
  MPI_Comm dup;
  SCHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  exercise(dup, n);
  exercise(sw, n);
  SCHECK_MPI(MPI_Comm_free(&dup));
  SCHECK_MPI(MPI_Finalize());
  exercise(sw, n);
  SCHECK_MPI(MPI_Comm_free(&sw));
  SCHECK_MPI(MPI_Session_finalize(&s));
}

static void mode_leak(void) {
  SCHECK_MPI(MPI_Init(NULL, NULL));
  int n;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Session s;
  SCHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
  MPI_Comm sw = comm_from_pset(s, "mpi://WORLD", "leak");
  SCHECK_MPI(MPI_Comm_rank(sw, &g_rank));
  SCHECK_MPI(MPI_Finalize());
  exercise(sw, n);
  /* Rank 0 sends large messages nobody waits for the transport to deliver, and leaves. */
  enum { kCount = 1 << 18 };
  static int big[kCount];
  if (g_rank == 0) {
    for (int i = 0; i < kCount; ++i) big[i] = i;
    for (int r = 1; r < n; ++r) SCHECK_MPI(MPI_Send(big, kCount, MPI_INT, r, 3, sw));
  } else {
    SCHECK_MPI(MPI_Recv(big, kCount, MPI_INT, 0, 3, sw, MPI_STATUS_IGNORE));
    for (int i = 0; i < kCount; ++i) SCHECK(big[i] == i, "big[%d] = %d", i, big[i]);
  }
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "only";
  if (strcmp(mode, "only") == 0)
    mode_only();
  else if (strcmp(mode, "world") == 0)
    mode_world();
  else if (strcmp(mode, "first") == 0)
    mode_first();
  else if (strcmp(mode, "leak") == 0)
    mode_leak();
  else
    return 2;
  if (g_rank == 0) printf("PASS sessions %s\n", mode);
  return 0;
}
