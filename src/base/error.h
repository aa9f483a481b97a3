#pragma once
// Error codes and their messages.
//
// Hot paths return an MPI error class (MPI_SUCCESS == 0). The human-readable cause of
// the most recent failure is recorded with setErrorCause(); the API layer turns class +
// cause into an error code whose MPI_Error_string names the MPI function, the class and
// the cause. Codes are `class | (slot << 7)`: slot indexes a ring of recent messages,
// so MPI_Error_class is `code & 0x7f`.
#include <mpi.h>

#include <string>

namespace ccmpi {

// Records the cause of the error being returned (printf format). Returns errClass so a
// caller can write `return setErrorCause(MPI_ERR_RANK, "rank %d out of range", r);`.
int setErrorCause(int errClass, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
// The cause recorded last (empty if none), and clearing it.
const std::string& lastErrorCause();
void clearErrorCause();

// Builds an error code for `errClass` raised by MPI function `func` with the recorded
// cause (or `cause` if given). The message is "<func>: <CLASS_NAME>: <cause>".
int makeErrorCode(int errClass, const char* func, const std::string& cause);

// Class of a code (MPI_SUCCESS for 0); -1 if `code` is not a valid code.
int errorClassOf(int code);
// Name of an error class ("MPI_ERR_RANK"), and its generic description.
const char* errorClassName(int errClass);
const char* errorClassDescription(int errClass);
// Full message of a code: the recorded one if still in the ring, else the class text.
std::string errorString(int code);

// User-added classes/codes (MPI_Add_error_class/code/string).
int addErrorClass(int* errClass);
int addErrorCode(int errClass, int* code);
int addErrorString(int code, const char* text);
int lastUsedCode();

}  // namespace ccmpi
