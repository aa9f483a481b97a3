#pragma once
// MPI_Request handles <-> p2p::Request objects.
#include <mpi.h>

#include "p2p/request.h"

namespace ccmpi::api {

// Gives r a handle (stored in r->handle) and returns it.
MPI_Request requestHandle(p2p::Request* r);
// nullptr for MPI_REQUEST_NULL, a non-request or a stale handle.
p2p::Request* requestFromHandle(MPI_Request h);
void dropRequestHandle(MPI_Request h);

// Completion on handles, shared by the p2p and collective entry points. `index` is for
// the error text. Returns the request's error code (not yet passed to an error handler).
// On completion *h becomes MPI_REQUEST_NULL unless the request is persistent.
int waitHandle(MPI_Request* h, MPI_Status* status);
// Returns true if complete (and finishes it like waitHandle), false otherwise.
bool testHandle(MPI_Request* h, MPI_Status* status, int* err);
// Whether the handle is null or an inactive persistent request (ignored by the
// multiple-completion calls).
bool handleInactive(MPI_Request h);
// Whether the request behind h is complete (without finishing it).
bool handleComplete(MPI_Request h);

}  // namespace ccmpi::api
