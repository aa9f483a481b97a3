#pragma once
// Error handler objects (MPI_Comm_create_errhandler & co.). Predefined:
// MPI_ERRORS_ARE_FATAL, MPI_ERRORS_RETURN, MPI_ERRORS_ABORT.
#include <mpi.h>

#include <cstddef>

namespace ccmpi::comm {

struct Errhandler {
  enum class Kind { kFatal, kReturn, kAbort, kUserComm, kUserWin, kUserFile, kUserSession };
  Kind kind = Kind::kFatal;
  MPI_Comm_errhandler_function* commFn = nullptr;
  void* otherFn = nullptr;  // win/file/session handler functions
  int refs = 1;
  bool predefined = false;
};

Errhandler* lookupErrhandler(MPI_Errhandler h);
void initPredefinedErrhandlers();

// A new user error handler for communicators (MPI_Comm_create_errhandler).
MPI_Errhandler newCommErrhandler(MPI_Comm_errhandler_function* fn);
// A new user error handler for sessions (MPI_Session_create_errhandler).
MPI_Errhandler newSessionErrhandler(MPI_Session_errhandler_function* fn);
// References held by communicators and by the user's handle; predefined ones are never
// destroyed. release destroys the object when the last reference goes.
void retainErrhandler(MPI_Errhandler h);
void releaseErrhandler(MPI_Errhandler h);
size_t liveErrhandlers();

// A new user error handler for files (MPI_File_create_errhandler).
MPI_Errhandler newFileErrhandler(MPI_File_errhandler_function* fn);
// A new user error handler for windows (MPI_Win_create_errhandler).
MPI_Errhandler newWinErrhandler(MPI_Win_errhandler_function* fn);

}  // namespace ccmpi::comm
