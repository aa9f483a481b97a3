#pragma once
// Helpers shared by the communicator, attribute and topology entry points.
#include <mpi.h>

#include "comm/comm.h"

namespace ccmpi::api {

// Resolves a communicator handle or raises MPI_ERR_COMM (on MPI_COMM_WORLD's handler).
int commOrRaise(const char* func, MPI_Comm h, comm::Comm** out);
// Raises MPI_ERR_COMM on `h` when `c` is an intercommunicator (calls defined on
// intracommunicators only: topologies).
int intraOrRaise(const char* func, MPI_Comm h, const comm::Comm& c);

// Raises an error returned by a user attribute callback: a valid error code keeps its
// identity (the handler sees the user's code), anything else becomes MPI_ERR_OTHER.
int raiseCallbackError(MPI_Comm comm, const char* func, int rc, const char* what);

// Completes the creation of `created` from `parent` for MPI_Comm_dup & co.: copies
// topology and attributes (running copy callbacks) and the info hints. On a callback
// failure the new communicator is freed and the raised error is returned.
int finishDup(const char* func, MPI_Comm parentHandle, comm::Comm& parent, MPI_Comm* created,
              bool copyHints);

// Frees a communicator handle (delete callbacks first). Returns an MPI error class or a
// callback's code; 0 on success.
int freeCommHandle(MPI_Comm h);

}  // namespace ccmpi::api
