/* Dynamic processes: MPI_Open_port, MPI_Comm_accept/connect, MPI_Comm_join and the name
 * service (docs/dynamic.md).
 *
 *   dyn_connect            one job: the world splits into a server and a client half, which
 *                          connect through a port (rank 0 opens it and sends its name to the
 *                          client root), twice; then MPI_Comm_join between ranks 0 and 1, the
 *                          name service and the error cases.
 *   dyn_connect server SVC / dyn_connect client SVC
 *                          two jobs (tests/mpi/dyn_two_jobs.py): the server job publishes its
 *                          port under SVC, the client job looks it up and connects.
 *
 * On every intercommunicator: each process sends a value to every remote process and checks
 * what every remote process sent (both directions), a rooted MPI_Bcast and an MPI_Allreduce
 * across the groups, MPI_Intercomm_merge with an MPI_Allreduce on the result, and
 * MPI_Comm_disconnect. Exits non-zero naming the failed check. */
#include <arpa/inet.h>
#include <mpi.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int wrank;

#define CHECK(cond, ...)                                 \
  do {                                                   \
    if (!(cond)) {                                       \
      fprintf(stderr, "rank %d: check failed: ", wrank); \
      fprintf(stderr, __VA_ARGS__);                      \
      fprintf(stderr, " (%s:%d)\n", __FILE__, __LINE__); \
      MPI_Abort(MPI_COMM_WORLD, 1);                      \
    }                                                    \
  } while (0)

static int errclass(int rc) {
  int cls = rc;
  MPI_Error_class(rc, &cls);
  return cls;
}

/* Exercises inter, whose local group is `side` (0 server, 1 client) with a key that tells
 * its processes apart from the other group's. */
static void exercise(MPI_Comm inter, int side) {
  int flag = 0, lrank, lsize, rsize;
  MPI_Comm_test_inter(inter, &flag);
  CHECK(flag, "the new communicator is not an intercommunicator");
  MPI_Comm_rank(inter, &lrank);
  MPI_Comm_size(inter, &lsize);
  MPI_Comm_remote_size(inter, &rsize);
  CHECK(rsize >= 1, "remote size %d", rsize);

  /* Every process sends 1000*side + 100*rank + r to every remote rank r, both directions. */
  int* got = malloc(sizeof(int) * (size_t)rsize);
  MPI_Request* reqs = malloc(sizeof(MPI_Request) * 2 * (size_t)rsize);
  int* out = malloc(sizeof(int) * (size_t)rsize);
  for (int r = 0; r < rsize; ++r) {
    out[r] = 1000 * side + 100 * lrank + r;
    MPI_Irecv(&got[r], 1, MPI_INT, r, 7, inter, &reqs[r]);
    MPI_Isend(&out[r], 1, MPI_INT, r, 7, inter, &reqs[rsize + r]);
  }
  MPI_Waitall(2 * rsize, reqs, MPI_STATUSES_IGNORE);
  for (int r = 0; r < rsize; ++r)
    CHECK(got[r] == 1000 * (1 - side) + 100 * r + lrank, "from remote %d got %d, want %d", r,
          got[r], 1000 * (1 - side) + 100 * r + lrank);

  /* A larger message (rendezvous) from remote rank 0 to local rank 0, each way. */
  enum { kBig = 300000 };
  int* big = malloc(sizeof(int) * kBig);
  if (lrank == 0) {
    for (int i = 0; i < kBig; ++i) big[i] = i * 3 + side;
    MPI_Status st;
    MPI_Sendrecv_replace(big, kBig, MPI_INT, 0, 8, 0, 8, inter, &st);
    CHECK(st.MPI_SOURCE == 0, "big message source %d", st.MPI_SOURCE);
    for (int i = 0; i < kBig; ++i)
      CHECK(big[i] == i * 3 + (1 - side), "big message word %d is %d", i, big[i]);
  }
  free(big);

  /* Rooted broadcast: the server's rank 0 sends to the client group. */
  int value = side == 0 ? 4242 : -1;
  if (side == 0)
    MPI_Bcast(&value, 1, MPI_INT, lrank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter);
  else
    MPI_Bcast(&value, 1, MPI_INT, 0, inter);
  if (side == 1) CHECK(value == 4242, "bcast across the groups gave %d", value);

  /* Allreduce across: each group gets the sum over the other group. */
  int mine = 1000 * side + lrank, sum = 0, want = 0;
  MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, inter);
  for (int r = 0; r < rsize; ++r) want += 1000 * (1 - side) + r;
  CHECK(sum == want, "intercommunicator allreduce gave %d, want %d", sum, want);

  /* Merge: the server group first. */
  MPI_Comm merged;
  MPI_Intercomm_merge(inter, side, &merged);
  int mrank, msize;
  MPI_Comm_rank(merged, &mrank);
  MPI_Comm_size(merged, &msize);
  CHECK(msize == lsize + rsize, "merged size %d, want %d", msize, lsize + rsize);
  CHECK(mrank == (side == 0 ? lrank : rsize + lrank), "merged rank %d", mrank);
  int total = 0;
  MPI_Allreduce(&mrank, &total, 1, MPI_INT, MPI_SUM, merged);
  CHECK(total == msize * (msize - 1) / 2, "merged allreduce gave %d", total);
  int* all = malloc(sizeof(int) * (size_t)msize);
  MPI_Allgather(&mrank, 1, MPI_INT, all, 1, MPI_INT, merged);
  for (int i = 0; i < msize; ++i) CHECK(all[i] == i, "merged allgather [%d] = %d", i, all[i]);
  free(all);
  MPI_Barrier(merged);
  MPI_Comm_free(&merged);

  MPI_Comm_disconnect(&inter);
  CHECK(inter == MPI_COMM_NULL, "MPI_Comm_disconnect left the handle");
  free(got);
  free(reqs);
  free(out);
}

static void errorCases(void) {
  /* Errors return (MPI_ERRORS_RETURN on MPI_COMM_SELF and MPI_COMM_WORLD), quickly. */
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm c = MPI_COMM_NULL;
  time_t start = time(NULL);
  int rc = MPI_Comm_connect("no such port", MPI_INFO_NULL, 0, MPI_COMM_SELF, &c);
  CHECK(errclass(rc) == MPI_ERR_PORT, "connect to a malformed name: class %d", errclass(rc));
  CHECK(c == MPI_COMM_NULL, "a failed connect returned a communicator");
  /* A port that was open and is closed: nobody listens any more. */
  char port[MPI_MAX_PORT_NAME];
  MPI_Open_port(MPI_INFO_NULL, port);
  CHECK(strncmp(port, "ccmpi-port:", 11) == 0, "port name '%s'", port);
  MPI_Close_port(port);
  rc = MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &c);
  CHECK(errclass(rc) == MPI_ERR_PORT, "connect to a closed port: class %d", errclass(rc));
  rc = MPI_Close_port(port);
  CHECK(errclass(rc) == MPI_ERR_PORT, "closing a port twice: class %d", errclass(rc));
  rc = MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &c);
  CHECK(errclass(rc) == MPI_ERR_PORT, "accept on a closed port: class %d", errclass(rc));
  CHECK(time(NULL) - start < 20, "the error cases took %ld s", (long)(time(NULL) - start));
  /* The same communicator still works afterwards. */
  int one = 1, sum = 0, size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(sum == size, "allreduce after the error cases");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void nameService(void) {
  char svc[64], port[MPI_MAX_PORT_NAME], found[MPI_MAX_PORT_NAME];
  snprintf(svc, sizeof svc, "ccmpi-test-%d-%d", (int)getpid(), wrank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rc = MPI_Lookup_name(svc, MPI_INFO_NULL, found);
  CHECK(errclass(rc) == MPI_ERR_NAME, "lookup of an unknown name: class %d", errclass(rc));
  rc = MPI_Unpublish_name(svc, MPI_INFO_NULL, "x");
  CHECK(errclass(rc) == MPI_ERR_SERVICE, "unpublish of an unknown name: class %d", errclass(rc));
  MPI_Open_port(MPI_INFO_NULL, port);
  CHECK(MPI_Publish_name(svc, MPI_INFO_NULL, port) == MPI_SUCCESS, "publish");
  CHECK(MPI_Lookup_name(svc, MPI_INFO_NULL, found) == MPI_SUCCESS, "lookup");
  CHECK(strcmp(found, port) == 0, "lookup gave '%s', want '%s'", found, port);
  CHECK(MPI_Unpublish_name(svc, MPI_INFO_NULL, port) == MPI_SUCCESS, "unpublish");
  rc = MPI_Lookup_name(svc, MPI_INFO_NULL, found);
  CHECK(errclass(rc) == MPI_ERR_NAME, "lookup after unpublish: class %d", errclass(rc));
  MPI_Close_port(port);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* MPI_Comm_join between world ranks 0 and 1 over a socket they open themselves. */
static void join(void) {
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (wrank > 1 || size < 2) return;
  int fd = -1;
  if (wrank == 0) {
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof sa;
    CHECK(bind(lfd, (struct sockaddr*)&sa, sizeof sa) == 0 && listen(lfd, 1) == 0 &&
              getsockname(lfd, (struct sockaddr*)&sa, &len) == 0,
          "listen for the join");
    int port = ntohs(sa.sin_port);
    MPI_Send(&port, 1, MPI_INT, 1, 3, MPI_COMM_WORLD);
    fd = accept(lfd, NULL, NULL);
    close(lfd);
  } else {
    int port;
    MPI_Recv(&port, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.sin_port = htons((unsigned short)port);
    CHECK(connect(fd, (struct sockaddr*)&sa, sizeof sa) == 0, "connect for the join");
  }
  CHECK(fd >= 0, "join socket");
  MPI_Comm inter;
  CHECK(MPI_Comm_join(fd, &inter) == MPI_SUCCESS, "MPI_Comm_join");
  exercise(inter, wrank);
  close(fd);
}

/* One job: the server half (even world ranks... the first half) and the client half. */
static void oneJob(void) {
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) return;
  const int side = wrank < (size + 1) / 2 ? 0 : 1;
  const int clientRoot = (size + 1) / 2;
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, side, wrank, &half);
  for (int round = 0; round < 2; ++round) {
    char port[MPI_MAX_PORT_NAME] = "";
    MPI_Comm inter;
    if (side == 0) {
      if (wrank == 0) {
        MPI_Open_port(MPI_INFO_NULL, port);
        MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, clientRoot, 1, MPI_COMM_WORLD);
      }
      MPI_Comm_accept(port, MPI_INFO_NULL, 0, half, &inter);
      if (wrank == 0) MPI_Close_port(port);
    } else {
      /* The client root is its group's last rank in round 1: any root works. */
      int root = 0, hsize;
      MPI_Comm_size(half, &hsize);
      if (round == 1) root = hsize - 1;
      if (wrank == clientRoot)
        MPI_Recv(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (round == 1 && root != 0) {
        /* Hand the name to the chosen root. */
        int hrank;
        MPI_Comm_rank(half, &hrank);
        if (hrank == 0) MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, root, 2, half);
        if (hrank == root)
          MPI_Recv(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 2, half, MPI_STATUS_IGNORE);
      }
      MPI_Comm_connect(port, MPI_INFO_NULL, root, half, &inter);
    }
    exercise(inter, side);
  }
  MPI_Comm_free(&half);
}

/* Two jobs: the server publishes its port as `svc`; the client looks it up (retrying while
 * the server is not there yet, for at most 60 s). */
static void twoJobs(int server, const char* svc) {
  char port[MPI_MAX_PORT_NAME] = "";
  MPI_Comm inter;
  if (server) {
    if (wrank == 0) {
      MPI_Open_port(MPI_INFO_NULL, port);
      CHECK(MPI_Publish_name(svc, MPI_INFO_NULL, port) == MPI_SUCCESS, "publish");
    }
    MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
    if (wrank == 0) {
      MPI_Unpublish_name(svc, MPI_INFO_NULL, port);
      MPI_Close_port(port);
    }
  } else {
    if (wrank == 0) {
      MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
      int tries = 0;
      while (MPI_Lookup_name(svc, MPI_INFO_NULL, port) != MPI_SUCCESS) {
        CHECK(++tries < 600, "the server never published '%s'", svc);
        usleep(100000);
      }
      MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    }
    MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
  }
  exercise(inter, server ? 0 : 1);
}

/* MPI_Comm_spawn: the job starts 3 copies of this program ("spawned a b", working directory
 * /tmp), which find their parents with MPI_Comm_get_parent; then a command that does not
 * exist fails with MPI_ERR_SPAWN in every errcode. */
static void spawnParents(const char* self) {
  enum { kChildren = 3 };
  char* args[] = {"spawned", "a b", NULL};
  int errcodes[kChildren] = {-1, -1, -1};
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "wdir", "/tmp");
  MPI_Comm inter;
  CHECK(MPI_Comm_spawn(self, args, kChildren, info, 0, MPI_COMM_WORLD, &inter, errcodes) ==
            MPI_SUCCESS,
        "MPI_Comm_spawn");
  MPI_Info_free(&info);
  int rsize;
  MPI_Comm_remote_size(inter, &rsize);
  CHECK(rsize == kChildren, "remote size %d", rsize);
  if (wrank == 0)
    for (int i = 0; i < kChildren; ++i)
      CHECK(errcodes[i] == MPI_SUCCESS, "errcode[%d] = %d", i, errcodes[i]);
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  CHECK(parent == MPI_COMM_NULL, "the first job has a parent");
  exercise(inter, 0);

  /* MPI_Comm_spawn_multiple: 2 + 1 processes of two commands share one world. */
  char* cmds[2] = {(char*)self, (char*)self};
  char* args0[] = {"spawned-multi", "0", NULL};
  char* args1[] = {"spawned-multi", "1", NULL};
  char** argvs[2] = {args0, args1};
  int counts[2] = {2, 1};
  MPI_Info infos[2] = {MPI_INFO_NULL, MPI_INFO_NULL};
  CHECK(MPI_Comm_spawn_multiple(2, cmds, argvs, counts, infos, 0, MPI_COMM_WORLD, &inter,
                                errcodes) == MPI_SUCCESS,
        "MPI_Comm_spawn_multiple");
  MPI_Comm_remote_size(inter, &rsize);
  CHECK(rsize == 3, "spawn_multiple: remote size %d", rsize);
  exercise(inter, 0);

  int* universe = NULL;
  int flag = 0, wsize;
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &universe, &flag);
  CHECK(flag && *universe >= wsize, "MPI_UNIVERSE_SIZE %d (flag %d)", flag ? *universe : -1, flag);

  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  time_t start = time(NULL);
  int rc = MPI_Comm_spawn("/nonexistent/ccmpi-test-program", MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0,
                          MPI_COMM_WORLD, &inter, errcodes);
  CHECK(errclass(rc) == MPI_ERR_SPAWN, "spawning a missing program: class %d", errclass(rc));
  CHECK(inter == MPI_COMM_NULL, "a failed spawn returned a communicator");
  if (wrank == 0)
    CHECK(errcodes[0] == MPI_ERR_SPAWN && errcodes[1] == MPI_ERR_SPAWN, "errcodes %d %d",
          errcodes[0], errcodes[1]);
  CHECK(time(NULL) - start < 30, "the failed spawn took %ld s", (long)(time(NULL) - start));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void spawnMultiChildren(int argc, char** argv) {
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  CHECK(parent != MPI_COMM_NULL, "a spawned process has no parent");
  int size, *appnum = NULL, flag = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size == 3, "the spawned world has %d processes", size);
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag);
  CHECK(flag && argc == 3 && *appnum == atoi(argv[2]), "MPI_APPNUM %d, command %s",
        flag ? *appnum : -1, argc == 3 ? argv[2] : "?");
  CHECK(*appnum == (wrank < 2 ? 0 : 1), "rank %d runs command %d", wrank, *appnum);
  exercise(parent, 1);
}

static void spawnChildren(int argc, char** argv) {
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  CHECK(parent != MPI_COMM_NULL, "a spawned process has no parent");
  CHECK(argc == 3 && strcmp(argv[2], "a b") == 0, "spawned with %d arguments", argc);
  char cwd[256];
  CHECK(getcwd(cwd, sizeof cwd) && strcmp(cwd, "/tmp") == 0, "wdir: running in %s", cwd);
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size == 3, "the spawned world has %d processes", size);
  exercise(parent, 1);
  MPI_Comm_get_parent(&parent);
  CHECK(parent == MPI_COMM_NULL, "MPI_Comm_get_parent after the disconnect");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  if (argc >= 2 && strcmp(argv[1], "spawn") == 0) {
    spawnParents(argv[0]);
  } else if (argc >= 2 && strcmp(argv[1], "spawned-multi") == 0) {
    spawnMultiChildren(argc, argv);
  } else if (argc >= 2 && strcmp(argv[1], "spawned") == 0) {
    spawnChildren(argc, argv);
  } else if (argc >= 3 && (strcmp(argv[1], "server") == 0 || strcmp(argv[1], "client") == 0)) {
    twoJobs(strcmp(argv[1], "server") == 0, argv[2]);
  } else {
    oneJob();
    join();
    nameService();
    errorCases();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (wrank == 0) printf("No Errors\n");
  MPI_Finalize();
  return 0;
}
