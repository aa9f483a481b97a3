// Environment entry points: initialization, finalization, abort, timers, versions,
// memory allocation.
#include <sys/time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "api/api.h"
#include "api/win.h"
#include "comm/comm.h"
#include "comm/dynamic.h"
#include "runtime/runtime.h"

using namespace ccmpi;

namespace {

int initCommon(const char* func, int* argc, char*** argv, int required, int* provided) {
  if (runtime::initialized() || runtime::finalized())
    return api::raisef(func, MPI_ERR_OTHER, "%s",
                       runtime::finalized() ? "MPI cannot be initialized after MPI_Finalize"
                                            : "MPI is already initialized");
  if (int rc = runtime::init(argc, argv, required, provided)) {
    // No communicator exists yet: report and fail the job (MPI_ERRORS_ARE_FATAL).
    const int code = makeErrorCode(rc, func, "");
    runtime::abortJob(1, "ccmpi: " + errorString(code));  // prints the message once
  }
  rma::registerHandler();  // before the program registers any active-message handler
  // A job started by MPI_Comm_spawn connects to its parents (MPI_Comm_get_parent).
  if (int rc = comm::connectToParent()) {
    const int code = makeErrorCode(rc, func, "");
    runtime::abortJob(1, "ccmpi: cannot connect to the parent job: " + errorString(code));
  }
  api::startAsyncProgress();
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Init(int* argc, char*** argv) {
  return initCommon("MPI_Init", argc, argv, MPI_THREAD_SINGLE, nullptr);
}
CCMPI_MPI_ALIAS(MPI_Init)

extern "C" int PMPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE)
    return api::raisef("MPI_Init_thread", MPI_ERR_ARG, "required thread level %d is not valid",
                       required);
  int dummy;
  return initCommon("MPI_Init_thread", argc, argv, required, provided ? provided : &dummy);
}
CCMPI_MPI_ALIAS(MPI_Init_thread)

extern "C" int PMPI_Finalize(void) {
  CCMPI_API_BEGIN("MPI_Finalize");
  api::stopAsyncProgress();
  if (int rc = runtime::finalize()) return api::raise(kFunc, rc);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Finalize)

extern "C" int PMPI_Initialized(int* flag) {
  if (!flag) return api::raisef("MPI_Initialized", MPI_ERR_ARG, "flag pointer is NULL");
  *flag = runtime::initialized() ? 1 : 0;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Initialized)

extern "C" int PMPI_Finalized(int* flag) {
  if (!flag) return api::raisef("MPI_Finalized", MPI_ERR_ARG, "flag pointer is NULL");
  *flag = runtime::finalized() ? 1 : 0;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Finalized)

extern "C" int PMPI_Query_thread(int* provided) {
  CCMPI_API_BEGIN("MPI_Query_thread");
  if (!provided) return api::raisef(kFunc, MPI_ERR_ARG, "provided pointer is NULL");
  *provided = MPI_THREAD_SERIALIZED;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Query_thread)

static pthread_t gMainThread = pthread_self();

extern "C" int PMPI_Is_thread_main(int* flag) {
  CCMPI_API_BEGIN("MPI_Is_thread_main");
  if (!flag) return api::raisef(kFunc, MPI_ERR_ARG, "flag pointer is NULL");
  *flag = pthread_equal(pthread_self(), gMainThread) ? 1 : 0;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Is_thread_main)

extern "C" int PMPI_Abort(MPI_Comm comm, int errorcode) {
  // Says which communicator (by its name, as MPI_COMM_WORLD, or its handle and size) and
  // which rank of it: the user looks for the call in the program.
  char msg[MPI_MAX_OBJECT_NAME + 160];
  const comm::Comm* c = comm::lookup(comm);
  if (c && !c->name.empty()) {
    snprintf(msg, sizeof msg, "MPI_Abort was called on %s by rank %d with error code %d",
             c->name.c_str(), c->rank, errorcode);
  } else if (c) {
    snprintf(msg, sizeof msg,
             "MPI_Abort was called on communicator 0x%x (%d ranks) by rank %d with error code %d",
             static_cast<unsigned>(comm), c->size, c->rank, errorcode);
  } else {
    snprintf(msg, sizeof msg,
             "MPI_Abort was called on an invalid communicator (handle 0x%x) with error code %d",
             static_cast<unsigned>(comm), errorcode);
  }
  runtime::abortJob(errorcode, msg);
}
CCMPI_MPI_ALIAS(MPI_Abort)

extern "C" double PMPI_Wtime(void) {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}
CCMPI_MPI_ALIAS(MPI_Wtime)

extern "C" double PMPI_Wtick(void) {
  timespec ts;
  clock_getres(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}
CCMPI_MPI_ALIAS(MPI_Wtick)

extern "C" int PMPI_Get_processor_name(char* name, int* resultlen) {
  if (!name || !resultlen)
    return api::raisef("MPI_Get_processor_name", MPI_ERR_ARG, "NULL argument");
  char host[MPI_MAX_PROCESSOR_NAME] = {0};
  if (runtime::initialized())
    snprintf(host, sizeof host, "%s", runtime::processorName().c_str());
  else
    gethostname(host, sizeof host - 1);
  const size_t n = strnlen(host, MPI_MAX_PROCESSOR_NAME - 1);
  memcpy(name, host, n);
  name[n] = '\0';
  *resultlen = static_cast<int>(n);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Get_processor_name)

extern "C" int PMPI_Get_version(int* version, int* subversion) {
  if (!version || !subversion) return api::raisef("MPI_Get_version", MPI_ERR_ARG, "NULL argument");
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Get_version)

extern "C" int PMPI_Get_library_version(char* version, int* resultlen) {
  if (!version || !resultlen)
    return api::raisef("MPI_Get_library_version", MPI_ERR_ARG, "NULL argument");
  const int n =
      snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING, "ccmpi %s (MPI %d.%d; build %s%s%s)",
               CCMPI_VERSION_STRING, MPI_VERSION, MPI_SUBVERSION, CCMPI_BUILD_TYPE,
               CCMPI_SANITIZE_STRING[0] ? ", sanitize=" : "", CCMPI_SANITIZE_STRING);
  *resultlen = n < MPI_MAX_LIBRARY_VERSION_STRING ? n : MPI_MAX_LIBRARY_VERSION_STRING - 1;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Get_library_version)

extern "C" int PMPI_Alloc_mem(MPI_Aint size, MPI_Info, void* baseptr) {
  CCMPI_API_BEGIN("MPI_Alloc_mem");
  if (size < 0)
    return api::raisef(kFunc, MPI_ERR_SIZE, "size %ld is negative", static_cast<long>(size));
  if (!baseptr) return api::raisef(kFunc, MPI_ERR_ARG, "baseptr is NULL");
  void* p = nullptr;
  if (posix_memalign(&p, 64, size > 0 ? static_cast<size_t>(size) : 1) != 0)
    return api::raisef(kFunc, MPI_ERR_NO_MEM, "cannot allocate %ld bytes", static_cast<long>(size));
  *static_cast<void**>(baseptr) = p;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Alloc_mem)

extern "C" int PMPI_Free_mem(void* base) {
  CCMPI_API_BEGIN("MPI_Free_mem");
  free(base);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Free_mem)

extern "C" int PMPI_Pcontrol(const int, ...) {
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Pcontrol)
