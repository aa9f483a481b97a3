#pragma once
// Error-handler dispatch shared by errors.cc and MPI_Comm_call_errhandler.
#include <mpi.h>

namespace ccmpi::api {

// Runs the error handler of comm (MPI_COMM_WORLD's if comm does not resolve) for an
// existing error code; returns the code unless the handler ends the job.
int dispatchComm(MPI_Comm comm, int code);

}  // namespace ccmpi::api
