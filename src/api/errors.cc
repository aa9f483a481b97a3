// Raising errors from the C entry points: build the error code (function, class and
// cause, see base/error.h) and run the error handler of the communicator involved.
// MPI_ERRORS_ARE_FATAL / MPI_ERRORS_ABORT print "ccmpi: rank R: <message>" and end the
// job; MPI_ERRORS_RETURN returns the code; a user handler is called with the handle and
// the code, then the code is returned. Before MPI_Init and after MPI_Finalize every
// error is fatal.
#include <cstdarg>
#include <cstdio>
#include <string>

#include "api/api.h"
#include "api/errhandler_api.h"
#include "comm/comm.h"
#include "comm/errhandler.h"
#include "runtime/runtime.h"

namespace ccmpi::api {
namespace {

[[noreturn]] void fatal(int code) {
  const std::string msg = errorString(code);
  if (runtime::active())
    fprintf(stderr, "ccmpi: rank %d: %s\n", runtime::worldRank(), msg.c_str());
  else
    fprintf(stderr, "ccmpi: %s\n", msg.c_str());
  fflush(stderr);
  // The exit code is the error class (small and non-zero); the message is printed above
  // already, so the launcher is not given it again.
  int cls = errorClassOf(code);
  if (cls <= 0) cls = MPI_ERR_UNKNOWN;
  runtime::abortJob(cls, std::string());
}

std::string vformat(const char* fmt, va_list ap) {
  char buf[1024];
  vsnprintf(buf, sizeof buf, fmt, ap);
  return buf;
}

}  // namespace

// Runs comm's handler (MPI_COMM_WORLD's if comm does not resolve) for `code`.
int dispatchComm(MPI_Comm comm, int code) {
  if (!active()) fatal(code);
  comm::Comm* c = comm::lookup(comm);
  MPI_Comm h = comm;
  if (!c) {
    c = comm::lookup(MPI_COMM_WORLD);
    h = MPI_COMM_WORLD;
  }
  comm::Errhandler* eh = c ? comm::lookupErrhandler(c->errhandler) : nullptr;
  if (!eh) fatal(code);
  switch (eh->kind) {
    case comm::Errhandler::Kind::kReturn:
      return code;
    case comm::Errhandler::Kind::kUserComm:
      if (eh->commFn) {
        int userCode = code;
        eh->commFn(&h, &userCode);
      }
      return code;
    default:
      fatal(code);
  }
}

namespace {
thread_local const char* gFuncName = nullptr;  // see FuncNameScope
}  // namespace

FuncNameScope::FuncNameScope(const char* func) : saved_(gFuncName) {
  if (!gFuncName) gFuncName = func;
}
FuncNameScope::~FuncNameScope() {
  gFuncName = saved_;
}

int raiseComm(MPI_Comm comm, const char* func, int errClass, const char* cause) {
  if (gFuncName) func = gFuncName;
  const int code = makeErrorCode(errClass, func, cause ? cause : "");
  return dispatchComm(comm, code);
}

int raise(const char* func, int errClass, const char* cause) {
  return raiseComm(MPI_COMM_WORLD, func, errClass, cause);
}

int raiseCommf(MPI_Comm comm, const char* func, int errClass, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const std::string cause = vformat(fmt, ap);
  va_end(ap);
  return raiseComm(comm, func, errClass, cause.c_str());
}

int raisef(const char* func, int errClass, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const std::string cause = vformat(fmt, ap);
  va_end(ap);
  return raiseComm(MPI_COMM_WORLD, func, errClass, cause.c_str());
}

}  // namespace ccmpi::api
