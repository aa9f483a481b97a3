/* Attribute caching: keyvals with copy/delete callbacks through Comm_dup, Comm_free,
 * set-over and delete; the predefined callbacks; the deprecated MPI-1 calls; freeing a
 * keyval that still has attributes; the predefined attributes of MPI_COMM_WORLD; error
 * handler and info inheritance by Comm_dup / Comm_idup / Comm_dup_with_info. */
#include <string.h>

#include "check.h"

static int copies = 0, deletes = 0, last_deleted = -1;

static int counting_copy(MPI_Comm old, int keyval, void* extra, void* in, void* out, int* flag) {
  (void)old;
  (void)keyval;
  CHECK(*(int*)extra == 99, "extra_state passed to the copy callback");
  ++copies;
  *(void**)out = (void*)((char*)in + 1); /* the copy is the value + 1 */
  *flag = 1;
  return MPI_SUCCESS;
}

static int counting_delete(MPI_Comm comm, int keyval, void* value, void* extra) {
  (void)comm;
  (void)keyval;
  CHECK(*(int*)extra == 99, "extra_state passed to the delete callback");
  ++deletes;
  last_deleted = (int)(size_t)value;
  return MPI_SUCCESS;
}

static int self_deleted = 0;
static int self_delete(MPI_Comm comm, int keyval, void* value, void* extra) {
  (void)keyval;
  (void)extra;
  if (comm == MPI_COMM_SELF && (size_t)value == 77) self_deleted = 1;
  return MPI_SUCCESS;
}

static int failing_copy(MPI_Comm old, int keyval, void* extra, void* in, void* out, int* flag) {
  (void)old;
  (void)keyval;
  (void)extra;
  (void)in;
  (void)out;
  (void)flag;
  return MPI_ERR_OTHER;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  static int extra = 99;

  /* Predefined attributes. */
  int* v;
  int flag = 0;
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag));
  CHECK(flag && *v >= 32767, "MPI_TAG_UB = %d", flag ? *v : -1);
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &v, &flag));
  CHECK(flag && *v == MPI_PROC_NULL, "MPI_HOST");
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &v, &flag));
  CHECK(flag && (*v == MPI_ANY_SOURCE || (*v >= 0 && *v < size)), "MPI_IO");
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &v, &flag));
  CHECK(flag && (*v == 0 || *v == 1), "MPI_WTIME_IS_GLOBAL");
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &v, &flag));
  CHECK(!flag || *v >= size, "MPI_UNIVERSE_SIZE");
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &v, &flag));
  CHECK(!flag || *v >= 0, "MPI_APPNUM");
  CHECK_MPI(MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag));
  CHECK(flag && *v >= 32767, "MPI_Attr_get(MPI_TAG_UB)");
  int lastcode = 0;
  CHECK_MPI(MPI_Add_error_class(&lastcode));
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &v, &flag));
  CHECK(flag && *v >= lastcode, "MPI_LASTUSEDCODE %d < added class %d", *v, lastcode);

  /* Keyval with counting callbacks: dup copies, free deletes. */
  int kv;
  CHECK_MPI(MPI_Comm_create_keyval(counting_copy, counting_delete, &kv, &extra));
  CHECK(kv != MPI_KEYVAL_INVALID, "keyval");
  MPI_Comm a;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &a));
  CHECK_MPI(MPI_Comm_set_attr(a, kv, (void*)(size_t)10));
  void* got;
  CHECK_MPI(MPI_Comm_get_attr(a, kv, &got, &flag));
  CHECK(flag && (size_t)got == 10, "get after set");
  MPI_Comm b;
  CHECK_MPI(MPI_Comm_dup(a, &b));
  CHECK(copies == 1, "copy callback ran %d times", copies);
  CHECK_MPI(MPI_Comm_get_attr(b, kv, &got, &flag));
  CHECK(flag && (size_t)got == 11, "dup carries the copied value (%zu)", (size_t)got);
  /* Set over an existing value runs the delete callback on the old one. */
  CHECK_MPI(MPI_Comm_set_attr(b, kv, (void*)(size_t)20));
  CHECK(deletes == 1 && last_deleted == 11, "set-over deleted %d (%d)", last_deleted, deletes);
  CHECK_MPI(MPI_Comm_delete_attr(b, kv));
  CHECK(deletes == 2 && last_deleted == 20, "delete_attr deleted %d", last_deleted);
  CHECK_MPI(MPI_Comm_get_attr(b, kv, &got, &flag));
  CHECK(!flag, "attribute gone after delete");
  CHECK_MPI(MPI_Comm_free(&b));
  CHECK(deletes == 2, "free of a comm without the attribute ran delete");
  /* Freeing the keyval keeps the attribute usable until the comm goes. */
  int kv_saved = kv;
  CHECK_MPI(MPI_Comm_free_keyval(&kv));
  CHECK(kv == MPI_KEYVAL_INVALID, "free_keyval resets the handle");
  CHECK_MPI(MPI_Comm_get_attr(a, kv_saved, &got, &flag));
  CHECK(flag && (size_t)got == 10, "attribute survives keyval free");
  CHECK_MPI(MPI_Comm_free(&a));
  CHECK(deletes == 3 && last_deleted == 10, "free deleted %d", last_deleted);

  /* Predefined callbacks: NULL_COPY does not propagate, DUP_FN copies verbatim. */
  int knull, kdup, kold;
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &knull, NULL));
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &kdup, NULL));
  CHECK_MPI(MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &kold, NULL));
  CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_WORLD, knull, &rank));
  CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_WORLD, kdup, &size));
  CHECK_MPI(MPI_Attr_put(MPI_COMM_WORLD, kold, &extra));
  MPI_Comm c;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  CHECK_MPI(MPI_Comm_get_attr(c, knull, &got, &flag));
  CHECK(!flag, "MPI_COMM_NULL_COPY_FN must not copy");
  CHECK_MPI(MPI_Comm_get_attr(c, kdup, &got, &flag));
  CHECK(flag && got == &size, "MPI_COMM_DUP_FN copies the pointer");
  CHECK_MPI(MPI_Attr_get(c, kold, &got, &flag));
  CHECK(flag && got == &extra, "MPI_DUP_FN copies the pointer");
  CHECK_MPI(MPI_Attr_delete(c, kold));
  CHECK_MPI(MPI_Attr_get(c, kold, &got, &flag));
  CHECK(!flag, "MPI_Attr_delete");
  CHECK_MPI(MPI_Comm_free(&c));
  CHECK_MPI(MPI_Comm_delete_attr(MPI_COMM_WORLD, knull));
  CHECK_MPI(MPI_Comm_delete_attr(MPI_COMM_WORLD, kdup));
  CHECK_MPI(MPI_Attr_delete(MPI_COMM_WORLD, kold));
  CHECK_MPI(MPI_Comm_free_keyval(&knull));
  CHECK_MPI(MPI_Comm_free_keyval(&kdup));
  CHECK_MPI(MPI_Keyval_free(&kold));

  /* Errors: predefined keyvals are read-only, a failing copy fails the dup. */
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int err = MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, &rank), cls = -1;
  MPI_Error_class(err, &cls);
  CHECK(cls == MPI_ERR_KEYVAL, "setting MPI_TAG_UB: class %d", cls);
  int tmp = MPI_TAG_UB;
  err = MPI_Comm_free_keyval(&tmp);
  MPI_Error_class(err, &cls);
  CHECK(cls == MPI_ERR_KEYVAL, "freeing MPI_TAG_UB: class %d", cls);
  int kfail;
  CHECK_MPI(MPI_Comm_create_keyval(failing_copy, MPI_COMM_NULL_DELETE_FN, &kfail, NULL));
  CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_WORLD, kfail, NULL));
  MPI_Comm d = MPI_COMM_WORLD;
  err = MPI_Comm_dup(MPI_COMM_WORLD, &d);
  MPI_Error_class(err, &cls);
  CHECK(err != MPI_SUCCESS && cls == MPI_ERR_OTHER, "failing copy callback: class %d", cls);
  CHECK(d == MPI_COMM_NULL, "failed dup returns MPI_COMM_NULL");
  CHECK_MPI(MPI_Comm_delete_attr(MPI_COMM_WORLD, kfail));
  CHECK_MPI(MPI_Comm_free_keyval(&kfail));

  /* The dup inherits MPI_ERRORS_RETURN and the info hints. */
  MPI_Info info;
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Info_set(info, "ccmpi_test_hint", "yes"));
  CHECK_MPI(MPI_Comm_set_info(MPI_COMM_WORLD, info));
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
  MPI_Errhandler eh;
  CHECK_MPI(MPI_Comm_get_errhandler(d, &eh));
  CHECK(eh == MPI_ERRORS_RETURN, "dup inherits the error handler");
  CHECK_MPI(MPI_Errhandler_free(&eh));
  MPI_Info used;
  char val[64];
  CHECK_MPI(MPI_Comm_get_info(d, &used));
  CHECK_MPI(MPI_Info_get(used, "ccmpi_test_hint", 63, val, &flag));
  CHECK(flag && strcmp(val, "yes") == 0, "dup carries info hints");
  CHECK_MPI(MPI_Info_free(&used));
  CHECK_MPI(MPI_Comm_free(&d));

  MPI_Info other;
  CHECK_MPI(MPI_Info_create(&other));
  CHECK_MPI(MPI_Info_set(other, "other_hint", "1"));
  CHECK_MPI(MPI_Comm_dup_with_info(MPI_COMM_WORLD, other, &d));
  CHECK_MPI(MPI_Comm_get_info(d, &used));
  CHECK_MPI(MPI_Info_get(used, "ccmpi_test_hint", 63, val, &flag));
  CHECK(!flag, "dup_with_info replaces the hints");
  CHECK_MPI(MPI_Info_get(used, "other_hint", 63, val, &flag));
  CHECK(flag && strcmp(val, "1") == 0, "dup_with_info sets the given hints");
  CHECK_MPI(MPI_Info_free(&used));
  CHECK_MPI(MPI_Info_free(&other));
  CHECK_MPI(MPI_Info_free(&info));
  int dr;
  CHECK_MPI(MPI_Comm_rank(d, &dr));
  CHECK(dr == rank, "dup_with_info rank");
  CHECK_MPI(MPI_Comm_free(&d));

  /* Comm_idup: a request that completes with the new communicator. */
  MPI_Request req;
  int kv2;
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &kv2, NULL));
  CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_WORLD, kv2, &extra));
  CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &d, &req));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  CHECK(req == MPI_REQUEST_NULL, "idup request released by wait");
  CHECK_MPI(MPI_Comm_get_attr(d, kv2, &got, &flag));
  CHECK(flag && got == &extra, "idup copies attributes");
  int token = rank, recv = -1;
  CHECK_MPI(MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 0, &recv, 1, MPI_INT,
                         (rank + size - 1) % size, 0, d, MPI_STATUS_IGNORE));
  CHECK(recv == (rank + size - 1) % size, "traffic on idup comm");
  CHECK_MPI(MPI_Comm_free(&d));
  CHECK_MPI(MPI_Comm_delete_attr(MPI_COMM_WORLD, kv2));
  CHECK_MPI(MPI_Comm_free_keyval(&kv2));

  /* An attribute on MPI_COMM_SELF whose delete callback runs in MPI_Finalize. */
  int kself;
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &kself, NULL));
  CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, kself, (void*)(size_t)77));

  MPI_Finalize();
  if (!self_deleted) {
    fprintf(stderr, "rank %d: MPI_Finalize did not delete the MPI_COMM_SELF attribute\n", rank);
    return 1;
  }
  if (rank == 0) printf("PASS comm_dup_attr\n");
  return 0;
}
