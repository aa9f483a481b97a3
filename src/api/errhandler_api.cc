// Error handlers and error codes: MPI_Comm_create/set/get/call_errhandler,
// MPI_Errhandler_free, MPI_Error_string/class and MPI_Add_error_class/code/string.
#include <algorithm>
#include <cstring>
#include <string>

#include "api/api.h"
#include "api/errhandler_api.h"
#include "comm/comm.h"
#include "comm/errhandler.h"

using namespace ccmpi;

namespace {

int commOrRaise(const char* func, MPI_Comm h, comm::Comm** out) {
  *out = comm::lookup(h);
  if (!*out) return api::raisef(func, MPI_ERR_COMM, "invalid communicator handle 0x%x", h);
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function* fn,
                                           MPI_Errhandler* errhandler) {
  CCMPI_API_BEGIN("MPI_Comm_create_errhandler");
  if (!fn) return api::raisef(kFunc, MPI_ERR_ARG, "error handler function is NULL");
  if (!errhandler) return api::raisef(kFunc, MPI_ERR_ARG, "errhandler pointer is NULL");
  *errhandler = comm::newCommErrhandler(fn);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Comm_create_errhandler)

extern "C" int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  CCMPI_API_BEGIN("MPI_Comm_set_errhandler");
  comm::Comm* c;
  if (int rc = commOrRaise(kFunc, comm, &c)) return rc;
  comm::Errhandler* e = comm::lookupErrhandler(errhandler);
  if (!e)
    return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "invalid error handler handle 0x%x",
                           errhandler);
  if (e->kind != comm::Errhandler::Kind::kUserComm && !e->predefined)
    return api::raiseCommf(comm, kFunc, MPI_ERR_ARG,
                           "error handler 0x%x was not created for communicators", errhandler);
  comm::retainErrhandler(errhandler);
  comm::releaseErrhandler(c->errhandler);
  c->errhandler = errhandler;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Comm_set_errhandler)

extern "C" int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler* errhandler) {
  CCMPI_API_BEGIN("MPI_Comm_get_errhandler");
  comm::Comm* c;
  if (int rc = commOrRaise(kFunc, comm, &c)) return rc;
  if (!errhandler) return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "errhandler pointer is NULL");
  comm::retainErrhandler(c->errhandler);  // the caller frees it with MPI_Errhandler_free
  *errhandler = c->errhandler;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Comm_get_errhandler)

extern "C" int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode) {
  CCMPI_API_BEGIN("MPI_Comm_call_errhandler");
  comm::Comm* c;
  if (int rc = commOrRaise(kFunc, comm, &c)) return rc;
  api::dispatchComm(comm, errorcode);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Comm_call_errhandler)

extern "C" int PMPI_Errhandler_free(MPI_Errhandler* errhandler) {
  CCMPI_API_BEGIN("MPI_Errhandler_free");
  if (!errhandler) return api::raisef(kFunc, MPI_ERR_ARG, "errhandler pointer is NULL");
  comm::Errhandler* e = comm::lookupErrhandler(*errhandler);
  if (!e) return api::raisef(kFunc, MPI_ERR_ARG, "invalid error handler handle 0x%x", *errhandler);
  comm::releaseErrhandler(*errhandler);  // predefined handlers are never destroyed
  *errhandler = MPI_ERRHANDLER_NULL;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Errhandler_free)

// MPI_Error_string and MPI_Error_class may be called before MPI_Init (MPI-4 allows it).
extern "C" int PMPI_Error_string(int errorcode, char* string, int* resultlen) {
  static constexpr const char* kFunc = "MPI_Error_string";
  if (!string || !resultlen) return api::raisef(kFunc, MPI_ERR_ARG, "NULL output argument");
  if (errorClassOf(errorcode) < 0)
    return api::raisef(kFunc, MPI_ERR_ARG, "%d is not a valid error code", errorcode);
  const std::string s = errorString(errorcode);
  const size_t n = std::min(s.size(), static_cast<size_t>(MPI_MAX_ERROR_STRING - 1));
  memcpy(string, s.data(), n);
  string[n] = '\0';
  *resultlen = static_cast<int>(n);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Error_string)

extern "C" int PMPI_Error_class(int errorcode, int* errorclass) {
  static constexpr const char* kFunc = "MPI_Error_class";
  if (!errorclass) return api::raisef(kFunc, MPI_ERR_ARG, "errorclass pointer is NULL");
  const int cls = errorClassOf(errorcode);
  if (cls < 0) return api::raisef(kFunc, MPI_ERR_ARG, "%d is not a valid error code", errorcode);
  *errorclass = cls;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Error_class)

extern "C" int PMPI_Add_error_class(int* errorclass) {
  CCMPI_API_BEGIN("MPI_Add_error_class");
  if (!errorclass) return api::raisef(kFunc, MPI_ERR_ARG, "errorclass pointer is NULL");
  if (addErrorClass(errorclass) != MPI_SUCCESS)
    return api::raisef(kFunc, MPI_ERR_OTHER, "no more error classes can be added");
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Add_error_class)

extern "C" int PMPI_Add_error_code(int errorclass, int* errorcode) {
  CCMPI_API_BEGIN("MPI_Add_error_code");
  if (!errorcode) return api::raisef(kFunc, MPI_ERR_ARG, "errorcode pointer is NULL");
  if (errorClassOf(errorclass) < 0 || errorclass != errorClassOf(errorclass))
    return api::raisef(kFunc, MPI_ERR_ARG, "%d is not a valid error class", errorclass);
  if (addErrorCode(errorclass, errorcode) != MPI_SUCCESS)
    return api::raisef(kFunc, MPI_ERR_OTHER, "cannot add an error code to class %d", errorclass);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Add_error_code)

extern "C" int PMPI_Add_error_string(int errorcode, const char* string) {
  CCMPI_API_BEGIN("MPI_Add_error_string");
  if (!string) return api::raisef(kFunc, MPI_ERR_ARG, "string is NULL");
  if (errorClassOf(errorcode) < 0)
    return api::raisef(kFunc, MPI_ERR_ARG, "%d is not a valid error code", errorcode);
  if (errorcode <= MPI_ERR_ERRHANDLER)
    return api::raisef(kFunc, MPI_ERR_ARG, "the string of predefined class %d cannot change",
                       errorcode);
  if (strlen(string) >= MPI_MAX_ERROR_STRING)
    return api::raisef(kFunc, MPI_ERR_ARG, "string longer than MPI_MAX_ERROR_STRING - 1");
  addErrorString(errorcode, string);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Add_error_string)
