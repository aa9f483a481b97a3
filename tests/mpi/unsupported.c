/* Where errors go, and the language interoperability calls. (This program once checked
 * the generated stubs of functions declared but not implemented; docs/STATUS.md now lists
 * none, so tools/gen_unsupported.py generates no stub.)
 *
 *   unsupported          with MPI_ERRORS_RETURN: errors of calls with a communicator
 *                        argument go to its handler (a user handler), others to
 *                        MPI_COMM_WORLD's; handle c2f/f2c round trips; status conversions
 *                        keep every field (MPI_Get_count, MPI_Test_cancelled).
 *   unsupported fatal    calls MPI_Comm_connect on a port that does not exist under the
 *                        default MPI_ERRORS_ARE_FATAL: the job must abort with a message
 *                        naming the function and the class (expect_failure.sh checks). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

static int handler_calls = 0;
static MPI_Comm handler_comm = MPI_COMM_NULL;

static void count_handler(MPI_Comm* comm, int* code, ...) {
  (void)code;
  ++handler_calls;
  handler_comm = *comm;
}

static void check_handles(void) {
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  CHECK(MPI_Comm_f2c(MPI_Comm_c2f(dup)) == dup, "comm round trip");
  CHECK(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_WORLD)) == MPI_COMM_WORLD, "world round trip");
  CHECK(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_NULL)) == MPI_COMM_NULL, "comm null round trip");
  /* The handle that came back from Fortran is usable. */
  int size = 0, wsize = 0;
  CHECK_MPI(MPI_Comm_size(MPI_Comm_f2c(MPI_Comm_c2f(dup)), &size));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &wsize));
  CHECK(size == wsize, "size through converted handle %d != %d", size, wsize);
  CHECK_MPI(MPI_Comm_free(&dup));

  MPI_Datatype vec;
  CHECK_MPI(MPI_Type_vector(2, 1, 3, MPI_INT, &vec));
  CHECK(MPI_Type_f2c(MPI_Type_c2f(vec)) == vec, "type round trip");
  CHECK(MPI_Type_f2c(MPI_Type_c2f(MPI_DOUBLE)) == MPI_DOUBLE, "MPI_DOUBLE round trip");
  CHECK_MPI(MPI_Type_free(&vec));

  MPI_Group g;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &g));
  CHECK(MPI_Group_f2c(MPI_Group_c2f(g)) == g, "group round trip");
  CHECK_MPI(MPI_Group_free(&g));

  MPI_Info info;
  CHECK_MPI(MPI_Info_create(&info));
  CHECK(MPI_Info_f2c(MPI_Info_c2f(info)) == info, "info round trip");
  CHECK_MPI(MPI_Info_free(&info));

  CHECK(MPI_Op_f2c(MPI_Op_c2f(MPI_SUM)) == MPI_SUM, "op round trip");
  CHECK(MPI_Errhandler_f2c(MPI_Errhandler_c2f(MPI_ERRORS_RETURN)) == MPI_ERRORS_RETURN,
        "errhandler round trip");
  CHECK(MPI_Request_f2c(MPI_Request_c2f(MPI_REQUEST_NULL)) == MPI_REQUEST_NULL,
        "request round trip");
  CHECK(MPI_Message_f2c(MPI_Message_c2f(MPI_MESSAGE_NO_PROC)) == MPI_MESSAGE_NO_PROC,
        "message round trip");
  CHECK(MPI_Win_f2c(MPI_Win_c2f(MPI_WIN_NULL)) == MPI_WIN_NULL, "win round trip");
  CHECK(MPI_File_f2c(MPI_File_c2f(MPI_FILE_NULL)) == MPI_FILE_NULL, "file round trip");
}

/* A status filled by a receive goes to Fortran and back with every field intact. */
static void check_statuses(void) {
  double out[5] = {1, 2, 3, 4, 5}, in[5];
  MPI_Status st;
  CHECK_MPI(MPI_Sendrecv(out, 5, MPI_DOUBLE, 0, 11, in, 5, MPI_DOUBLE, 0, 11, MPI_COMM_SELF, &st));
  CHECK(in[4] == 5.0, "sendrecv to self");

  MPI_Fint f[MPI_F_STATUS_SIZE];
  CHECK_MPI(MPI_Status_c2f(&st, f));
  CHECK(f[MPI_F_SOURCE] == 0 && f[MPI_F_TAG] == 11 && f[MPI_F_ERROR] == st.MPI_ERROR,
        "fortran status fields %d %d %d", f[MPI_F_SOURCE], f[MPI_F_TAG], f[MPI_F_ERROR]);
  MPI_Status back;
  memset(&back, 0xff, sizeof back);
  CHECK_MPI(MPI_Status_f2c(f, &back));
  CHECK(back.MPI_SOURCE == 0 && back.MPI_TAG == 11 && back.MPI_ERROR == st.MPI_ERROR,
        "C status fields after f2c");
  int count = -1, cancelled = -1;
  CHECK_MPI(MPI_Get_count(&back, MPI_DOUBLE, &count));
  CHECK(count == 5, "count after f2c %d", count);
  CHECK_MPI(MPI_Test_cancelled(&back, &cancelled));
  CHECK(cancelled == 0, "cancelled after f2c");

  /* A cancelled flag and an element count set through the C API survive too. */
  CHECK_MPI(MPI_Status_set_elements(&st, MPI_INT, 7));
  CHECK_MPI(MPI_Status_set_cancelled(&st, 1));
  MPI_F08_status f08;
  CHECK_MPI(MPI_Status_c2f08(&st, &f08));
  CHECK(f08.MPI_SOURCE == 0 && f08.MPI_TAG == 11, "f08 status fields");
  memset(&back, 0, sizeof back);
  CHECK_MPI(MPI_Status_f082c(&f08, &back));
  CHECK_MPI(MPI_Get_count(&back, MPI_INT, &count));
  CHECK(count == 7, "count after f082c %d", count);
  CHECK_MPI(MPI_Test_cancelled(&back, &cancelled));
  CHECK(cancelled == 1, "cancelled after f082c");

  /* MPI_STATUS_IGNORE cannot be converted (an error not tied to a communicator: it goes to
   * MPI_COMM_WORLD's handler). */
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int err = MPI_Status_c2f(MPI_STATUS_IGNORE, f);
  int cls = -1;
  CHECK(err != MPI_SUCCESS, "MPI_Status_c2f(MPI_STATUS_IGNORE) succeeded");
  CHECK_MPI(MPI_Error_class(err, &cls));
  CHECK(cls == MPI_ERR_ARG, "MPI_Status_c2f(MPI_STATUS_IGNORE): class %d", cls);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

static int errclass(int err) {
  int cls = -1;
  CHECK_MPI(MPI_Error_class(err, &cls));
  return cls;
}

static void check_error_routing(void) {
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  /* An error goes to the communicator argument's handler, not MPI_COMM_WORLD's (errors of
   * the dynamic-process calls, which once were stubs here). */
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  MPI_Errhandler eh;
  CHECK_MPI(MPI_Comm_create_errhandler(count_handler, &eh));
  CHECK_MPI(MPI_Comm_set_errhandler(dup, eh));
  MPI_Comm other = MPI_COMM_NULL, conn = MPI_COMM_NULL;
  int err = MPI_Comm_accept("no-port", MPI_INFO_NULL, 0, dup, &other);
  CHECK(errclass(err) == MPI_ERR_PORT, "MPI_Comm_accept on no port: class %d", errclass(err));
  CHECK(handler_calls == 1, "user handler called %d times", handler_calls);
  CHECK(handler_comm == dup, "user handler got comm 0x%x, expected 0x%x", handler_comm, dup);
  err = MPI_Comm_connect("no-port", MPI_INFO_NULL, 0, dup, &conn);
  CHECK(errclass(err) == MPI_ERR_PORT, "MPI_Comm_connect to no port: class %d", errclass(err));
  CHECK(handler_calls == 2, "user handler called %d times", handler_calls);
  /* Not tied to dup: its handler stays out of it. */
  char service[64];
  snprintf(service, sizeof service, "ccmpi-unsupported-%d", (int)getpid());
  err = MPI_Unpublish_name(service, MPI_INFO_NULL, "no-port");
  CHECK(errclass(err) == MPI_ERR_SERVICE, "MPI_Unpublish_name: class %d", errclass(err));
  CHECK(handler_calls == 2, "user handler called for MPI_Unpublish_name");
  CHECK_MPI(MPI_Errhandler_free(&eh));
  CHECK_MPI(MPI_Comm_free(&dup));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc > 1 && strcmp(argv[1], "fatal") == 0) {
    /* Default handler: must not return. */
    MPI_Comm conn = MPI_COMM_NULL;
    MPI_Comm_connect("no-port", MPI_INFO_NULL, 0, MPI_COMM_WORLD, &conn);
    fprintf(stderr, "rank %d: MPI_Comm_connect returned under MPI_ERRORS_ARE_FATAL\n", rank);
    MPI_Finalize();
    return 0; /* exit code 0 makes expect_failure.sh fail */
  }
  check_error_routing();
  check_handles();
  check_statuses();
  MPI_Barrier(MPI_COMM_WORLD);
  test_pass("unsupported");
  MPI_Finalize();
  return 0;
}
