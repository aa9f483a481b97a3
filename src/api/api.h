#pragma once
// Helpers shared by the C entry points.
//
// Every function is defined once as PMPI_X and exported as MPI_X through a weak alias,
// so a profiling library can define MPI_X and call PMPI_X:
//
//   extern "C" int PMPI_Send(...) { CCMPI_API_BEGIN("MPI_Send"); ... }
//   CCMPI_MPI_ALIAS(MPI_Send)
//
// Errors go through raise*(): the code names the function, the class and the cause
// (recorded with setErrorCause), and the error handler of the object involved runs.
#include <mpi.h>

#include "api/async_progress.h"
#include "base/error.h"
#include "runtime/active.h"

#define CCMPI_MPI_ALIAS(name) \
  extern "C" __typeof__(P##name) name __attribute__((weak, alias("P" #name)));

namespace ccmpi::api {

// True between MPI_Init and MPI_Finalize, or while a session is live.
inline bool active() {
  return runtime::active();
}

// Invokes the error handler of `comm` (MPI_COMM_WORLD's when comm is invalid or NULL)
// for an error of `errClass` in `func`, with the cause recorded by setErrorCause (or
// `cause` if non-null). Returns the error code (for MPI_ERRORS_RETURN). Fatal handlers
// print the message and abort the job.
int raiseComm(MPI_Comm comm, const char* func, int errClass, const char* cause = nullptr);
// Errors not tied to a communicator: MPI_COMM_WORLD's handler (MPI_COMM_SELF's before
// MPI_Init / after MPI_Finalize, which is ERRORS_ARE_FATAL).
int raise(const char* func, int errClass, const char* cause = nullptr);

// printf-style cause + raise in one call.
int raiseCommf(MPI_Comm comm, const char* func, int errClass, const char* fmt, ...)
    __attribute__((format(printf, 4, 5)));
int raisef(const char* func, int errClass, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

// While alive, errors raised by any function name `func` instead (the outermost scope
// wins): an MPI-4 large-count MPI_X_c that forwards to MPI_X reports its own name.
class FuncNameScope {
 public:
  explicit FuncNameScope(const char* func);
  ~FuncNameScope();
  FuncNameScope(const FuncNameScope&) = delete;
  FuncNameScope& operator=(const FuncNameScope&) = delete;

 private:
  const char* saved_;
};

}  // namespace ccmpi::api

// Start of an MPI function that needs MPI to be initialized and not finalized (it holds
// the progress thread off while it runs, see async_progress.h).
#define CCMPI_API_BEGIN(fname)                      \
  static constexpr const char* kFunc = fname;       \
  ::ccmpi::api::ApiGuard ccmpiApiGuard_;            \
  if (__builtin_expect(!::ccmpi::api::active(), 0)) \
  return ::ccmpi::api::raisef(kFunc, MPI_ERR_OTHER, "called before MPI_Init or after MPI_Finalize")

// Start of an MPI function callable at any time, even before MPI_Init and after
// MPI_Finalize (MPI-4.0: the info functions, MPI_Info_create_env).
#define CCMPI_API_BEGIN_ANYTIME(fname) static constexpr const char* kFunc = fname

// The prologue of an MPI function that takes a handle: declares `Type* var` holding
// `found` (the handle's lookup) and, when it is null, returns `raised` (an expression that
// raises the error, evaluated only then).
#define CCMPI_HANDLE_OR_RAISE(Type, var, found, raised) \
  Type* var = (found);                                  \
  if (__builtin_expect(!var, 0)) return (raised)

// Raise on `comm` when a check fails: CCMPI_CHECK_COMM(comm, cond, MPI_ERR_RANK, "...", args)
#define CCMPI_CHECK(comm, cond, errclass, ...)                             \
  do {                                                                     \
    if (__builtin_expect(!(cond), 0))                                      \
      return ::ccmpi::api::raiseCommf(comm, kFunc, errclass, __VA_ARGS__); \
  } while (0)
