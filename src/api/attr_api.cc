// Attribute caching on communicators (MPI-3.1 section 6.7): keyvals, set/get/delete, the
// deprecated MPI-1 names (MPI_Keyval_create, MPI_Attr_*), and the predefined copy/delete
// callbacks (MPI_COMM_NULL_COPY_FN, MPI_COMM_DUP_FN, ... and the window ones, which only
// depend on their arguments). The MPI_TYPE_* callbacks belong to the datatype layer.
#include "api/api.h"
#include "api/comm_api.h"
#include "comm/attributes.h"

using namespace ccmpi;

namespace {

int keyvalError(MPI_Comm comm, const char* func, int rc) {
  return comm == MPI_COMM_NULL ? api::raise(func, rc) : api::raiseComm(comm, func, rc);
}

int createKeyval(const char* kFunc, MPI_Comm_copy_attr_function* copyFn,
                 MPI_Comm_delete_attr_function* deleteFn, int* keyval, void* extraState) {
  if (!keyval) return api::raisef(kFunc, MPI_ERR_ARG, "keyval pointer is NULL");
  comm::createKeyval(copyFn, deleteFn, extraState, keyval);
  return MPI_SUCCESS;
}

int freeKeyval(const char* kFunc, int* keyval) {
  if (!keyval) return api::raisef(kFunc, MPI_ERR_ARG, "keyval pointer is NULL");
  if (int rc = comm::freeKeyval(keyval)) return keyvalError(MPI_COMM_NULL, kFunc, rc);
  return MPI_SUCCESS;
}

int setAttr(const char* kFunc, MPI_Comm comm, int keyval, void* value) {
  comm::Comm* c;
  if (int rc = api::commOrRaise(kFunc, comm, &c)) return rc;
  const int rc = comm::setAttribute(*c, comm, keyval, value);
  if (rc == MPI_ERR_KEYVAL) return keyvalError(comm, kFunc, rc);
  if (rc) return api::raiseCallbackError(comm, kFunc, rc, "attribute delete");
  return MPI_SUCCESS;
}

int getAttr(const char* kFunc, MPI_Comm comm, int keyval, void* value, int* flag) {
  comm::Comm* c;
  if (int rc = api::commOrRaise(kFunc, comm, &c)) return rc;
  if (!value || !flag) return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "NULL output argument");
  if (int rc = comm::getAttribute(*c, keyval, static_cast<void**>(value), flag))
    return keyvalError(comm, kFunc, rc);
  return MPI_SUCCESS;
}

int deleteAttr(const char* kFunc, MPI_Comm comm, int keyval) {
  comm::Comm* c;
  if (int rc = api::commOrRaise(kFunc, comm, &c)) return rc;
  const int rc = comm::deleteAttribute(*c, comm, keyval);
  if (rc == MPI_ERR_KEYVAL) return keyvalError(comm, kFunc, rc);
  if (rc) return api::raiseCallbackError(comm, kFunc, rc, "attribute delete");
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function* comm_copy_attr_fn,
                                       MPI_Comm_delete_attr_function* comm_delete_attr_fn,
                                       int* comm_keyval, void* extra_state) {
  CCMPI_API_BEGIN("MPI_Comm_create_keyval");
  return createKeyval(kFunc, comm_copy_attr_fn, comm_delete_attr_fn, comm_keyval, extra_state);
}
CCMPI_MPI_ALIAS(MPI_Comm_create_keyval)

extern "C" int PMPI_Comm_free_keyval(int* comm_keyval) {
  CCMPI_API_BEGIN("MPI_Comm_free_keyval");
  return freeKeyval(kFunc, comm_keyval);
}
CCMPI_MPI_ALIAS(MPI_Comm_free_keyval)

extern "C" int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void* attribute_val) {
  CCMPI_API_BEGIN("MPI_Comm_set_attr");
  return setAttr(kFunc, comm, comm_keyval, attribute_val);
}
CCMPI_MPI_ALIAS(MPI_Comm_set_attr)

extern "C" int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void* attribute_val, int* flag) {
  CCMPI_API_BEGIN("MPI_Comm_get_attr");
  return getAttr(kFunc, comm, comm_keyval, attribute_val, flag);
}
CCMPI_MPI_ALIAS(MPI_Comm_get_attr)

extern "C" int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval) {
  CCMPI_API_BEGIN("MPI_Comm_delete_attr");
  return deleteAttr(kFunc, comm, comm_keyval);
}
CCMPI_MPI_ALIAS(MPI_Comm_delete_attr)

// MPI-1 names: the callback types have the same signatures as the MPI-2 ones.
extern "C" int PMPI_Keyval_create(MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn,
                                  int* keyval, void* extra_state) {
  CCMPI_API_BEGIN("MPI_Keyval_create");
  return createKeyval(kFunc, copy_fn, delete_fn, keyval, extra_state);
}
CCMPI_MPI_ALIAS(MPI_Keyval_create)

extern "C" int PMPI_Keyval_free(int* keyval) {
  CCMPI_API_BEGIN("MPI_Keyval_free");
  return freeKeyval(kFunc, keyval);
}
CCMPI_MPI_ALIAS(MPI_Keyval_free)

extern "C" int PMPI_Attr_put(MPI_Comm comm, int keyval, void* attribute_val) {
  CCMPI_API_BEGIN("MPI_Attr_put");
  return setAttr(kFunc, comm, keyval, attribute_val);
}
CCMPI_MPI_ALIAS(MPI_Attr_put)

extern "C" int PMPI_Attr_get(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  CCMPI_API_BEGIN("MPI_Attr_get");
  return getAttr(kFunc, comm, keyval, attribute_val, flag);
}
CCMPI_MPI_ALIAS(MPI_Attr_get)

extern "C" int PMPI_Attr_delete(MPI_Comm comm, int keyval) {
  CCMPI_API_BEGIN("MPI_Attr_delete");
  return deleteAttr(kFunc, comm, keyval);
}
CCMPI_MPI_ALIAS(MPI_Attr_delete)

// Predefined callbacks. NULL_COPY: do not copy; DUP: copy the value; NULL_DELETE: nothing.
extern "C" int MPI_COMM_NULL_COPY_FN(MPI_Comm, int, void*, void*, void*, int* flag) {
  *flag = 0;
  return MPI_SUCCESS;
}
extern "C" int MPI_COMM_DUP_FN(MPI_Comm, int, void*, void* in, void* out, int* flag) {
  *static_cast<void**>(out) = in;
  *flag = 1;
  return MPI_SUCCESS;
}
extern "C" int MPI_COMM_NULL_DELETE_FN(MPI_Comm, int, void*, void*) {
  return MPI_SUCCESS;
}
extern "C" int MPI_NULL_COPY_FN(MPI_Comm, int, void*, void*, void*, int* flag) {
  *flag = 0;
  return MPI_SUCCESS;
}
extern "C" int MPI_DUP_FN(MPI_Comm, int, void*, void* in, void* out, int* flag) {
  *static_cast<void**>(out) = in;
  *flag = 1;
  return MPI_SUCCESS;
}
extern "C" int MPI_NULL_DELETE_FN(MPI_Comm, int, void*, void*) {
  return MPI_SUCCESS;
}
extern "C" int MPI_WIN_NULL_COPY_FN(MPI_Win, int, void*, void*, void*, int* flag) {
  *flag = 0;
  return MPI_SUCCESS;
}
extern "C" int MPI_WIN_DUP_FN(MPI_Win, int, void*, void* in, void* out, int* flag) {
  *static_cast<void**>(out) = in;
  *flag = 1;
  return MPI_SUCCESS;
}
extern "C" int MPI_WIN_NULL_DELETE_FN(MPI_Win, int, void*, void*) {
  return MPI_SUCCESS;
}
