/* Error handling: with MPI_ERRORS_RETURN on MPI_COMM_WORLD, calls with bad arguments
 * return codes of the right class whose MPI_Error_string names the function; user error
 * handlers are called with the communicator and the code; MPI_Comm_call_errhandler;
 * user error classes/codes/strings; an intercommunicator whose leaders coincide. */
#include <string.h>

#include "check.h"

static void expect_class(int err, int cls, const char* func, const char* what) {
  int got = -1;
  CHECK(err != MPI_SUCCESS, "%s: expected an error", what);
  CHECK_MPI(MPI_Error_class(err, &got));
  CHECK(got == cls, "%s: class %d, expected %d", what, got, cls);
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  CHECK_MPI(MPI_Error_string(err, msg, &len));
  CHECK(len == (int)strlen(msg) && len > 0, "%s: resultlen", what);
  CHECK(strstr(msg, func) != NULL, "%s: message '%s' does not name %s", what, msg, func);
}

static int handler_calls = 0, handler_code = 0;
static MPI_Comm handler_comm = MPI_COMM_NULL;

static void my_handler(MPI_Comm* comm, int* code, ...) {
  ++handler_calls;
  handler_code = *code;
  handler_comm = *comm;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Errhandler eh;
  CHECK_MPI(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
  CHECK(eh == MPI_ERRORS_ARE_FATAL, "default handler is MPI_ERRORS_ARE_FATAL");
  CHECK_MPI(MPI_Errhandler_free(&eh));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

  int buf[4] = {0, 1, 2, 3};
  expect_class(MPI_Send(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK, "MPI_Send",
               "bad rank");
  expect_class(MPI_Send(buf, 1, MPI_INT, 0, 0, (MPI_Comm)0x0400ffff), MPI_ERR_COMM, "MPI_Send",
               "bad comm");
  expect_class(MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM, "MPI_Send",
               "MPI_COMM_NULL");
  expect_class(MPI_Send(buf, 1, MPI_INT, 0, -5, MPI_COMM_WORLD), MPI_ERR_TAG, "MPI_Send",
               "bad tag");
  expect_class(MPI_Send(buf, -1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_COUNT, "MPI_Send",
               "negative count");
  expect_class(MPI_Send(buf, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "MPI_Send",
               "bad datatype");
  int out = 0;
  expect_class(MPI_Reduce(buf, &out, 1, MPI_INT, MPI_OP_NULL, 0, MPI_COMM_WORLD), MPI_ERR_OP,
               "MPI_Reduce", "bad op");
  expect_class(MPI_Bcast(buf, 1, MPI_INT, size, MPI_COMM_WORLD), MPI_ERR_ROOT, "MPI_Bcast",
               "bad root");
  expect_class(MPI_Recv(buf, 1, MPI_INT, -7, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_RANK,
               "MPI_Recv", "bad source");

  /* Communicator / group / topology / info argument errors. */
  MPI_Comm w = MPI_COMM_WORLD;
  expect_class(MPI_Comm_free(&w), MPI_ERR_COMM, "MPI_Comm_free", "freeing MPI_COMM_WORLD");
  int n;
  expect_class(MPI_Comm_remote_size(MPI_COMM_WORLD, &n), MPI_ERR_COMM, "MPI_Comm_remote_size",
               "remote size of an intracommunicator");
  MPI_Comm inter;
  expect_class(MPI_Intercomm_create(MPI_COMM_WORLD, 0, MPI_COMM_WORLD, 0, 1, &inter), MPI_ERR_RANK,
               "MPI_Intercomm_create", "remote leader in the local group");
  MPI_Group g, ng;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &g));
  int badr[1] = {size};
  expect_class(MPI_Group_incl(g, 1, badr, &ng), MPI_ERR_RANK, "MPI_Group_incl", "incl rank");
  expect_class(MPI_Group_size(MPI_GROUP_NULL, &n), MPI_ERR_GROUP, "MPI_Group_size", "null group");
  CHECK_MPI(MPI_Group_free(&g));
  MPI_Comm sc;
  expect_class(MPI_Comm_split(MPI_COMM_WORLD, -3, 0, &sc), MPI_ERR_ARG, "MPI_Comm_split",
               "negative color");
  MPI_Info info;
  CHECK_MPI(MPI_Info_create(&info));
  expect_class(MPI_Info_delete(info, "missing"), MPI_ERR_INFO_NOKEY, "MPI_Info_delete",
               "missing key");
  CHECK_MPI(MPI_Info_free(&info));
  int kv = 12345, flag;
  void* val;
  expect_class(MPI_Comm_get_attr(MPI_COMM_WORLD, kv, &val, &flag), MPI_ERR_KEYVAL,
               "MPI_Comm_get_attr", "unknown keyval");
  int d[2] = {0, 0};
  expect_class(MPI_Dims_create(6, -1, d), MPI_ERR_DIMS, "MPI_Dims_create", "negative ndims");

  /* A user handler sees the communicator and the code; dups inherit it. */
  MPI_Errhandler mine;
  CHECK_MPI(MPI_Comm_create_errhandler(my_handler, &mine));
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  CHECK_MPI(MPI_Comm_set_errhandler(dup, mine));
  CHECK_MPI(MPI_Errhandler_free(&mine));
  CHECK(mine == MPI_ERRHANDLER_NULL, "Errhandler_free resets the handle");
  int err = MPI_Send(buf, 1, MPI_INT, size + 3, 0, dup);
  CHECK(handler_calls == 1 && handler_code == err && handler_comm == dup,
        "user handler: %d calls, code %d vs %d", handler_calls, handler_code, err);
  expect_class(err, MPI_ERR_RANK, "MPI_Send", "user handler code");
  MPI_Comm dup2;
  CHECK_MPI(MPI_Comm_dup(dup, &dup2));
  err = MPI_Send(buf, 1, MPI_INT, 0, -1, dup2);
  CHECK(handler_calls == 2 && handler_comm == dup2, "inherited user handler");
  expect_class(handler_code, MPI_ERR_TAG, "MPI_Send", "inherited handler code");
  CHECK_MPI(MPI_Comm_call_errhandler(dup2, MPI_ERR_OTHER));
  CHECK(handler_calls == 3 && handler_code == MPI_ERR_OTHER, "Comm_call_errhandler");
  CHECK_MPI(MPI_Comm_free(&dup2));
  CHECK_MPI(MPI_Comm_free(&dup));

  /* User classes, codes and strings. */
  int ucls, ucode;
  CHECK_MPI(MPI_Add_error_class(&ucls));
  CHECK_MPI(MPI_Add_error_code(ucls, &ucode));
  CHECK_MPI(MPI_Add_error_string(ucode, "ccmpi test: my own error"));
  int got;
  CHECK_MPI(MPI_Error_class(ucode, &got));
  CHECK(got == ucls, "class of the user code %d, expected %d", got, ucls);
  char msg[MPI_MAX_ERROR_STRING];
  int len;
  CHECK_MPI(MPI_Error_string(ucode, msg, &len));
  CHECK(strcmp(msg, "ccmpi test: my own error") == 0, "user string '%s'", msg);
  int* last;
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
  CHECK(flag && *last >= ucode, "MPI_LASTUSEDCODE %d < %d", *last, ucode);
  CHECK_MPI(MPI_Comm_call_errhandler(MPI_COMM_WORLD, ucode)); /* ERRORS_RETURN: no effect */

  /* Errors_string of a plain class. */
  CHECK_MPI(MPI_Error_string(MPI_ERR_TRUNCATE, msg, &len));
  CHECK(len > 0, "class string");
  CHECK(MPI_Error_class(-12, &got) != MPI_SUCCESS, "invalid code is rejected");

  test_pass("errors_return");
  MPI_Finalize();
  return 0;
}
