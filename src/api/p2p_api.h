#pragma once
// Point-to-point helpers of the entry points (api/p2p_api.cc), shared with the MPI-4
// additions (large-count MPI_X_c, MPI_Isendrecv, partitioned communication). Counts are
// 64-bit: the p2p layer takes int64 counts. Each raises its error (naming `func`) and
// returns the code.
#include <mpi.h>

#include <cstdint>

#include "comm/comm.h"
#include "p2p/p2p.h"

namespace ccmpi::p2p {
struct Unexpected;
}

namespace ccmpi::api {

int checkComm(const char* func, MPI_Comm comm, comm::Comm** out);
// Count, datatype, buffer, rank and tag checks shared by every send and receive; *dtOut
// (when given) gets the type's object.
int checkBuffer(const char* func, MPI_Comm comm, comm::Comm& c, const void* buf, int64_t count,
                MPI_Datatype type, int peer, int tag, bool isRecv,
                datatype::Datatype** dtOut = nullptr);
int doIsend(const char* func, const void* buf, int64_t count, MPI_Datatype type, int dest, int tag,
            MPI_Comm comm, p2p::SendMode mode, MPI_Request* request);
int doSend(const char* func, const void* buf, int64_t count, MPI_Datatype type, int dest, int tag,
           MPI_Comm comm, p2p::SendMode mode);
int doIrecv(const char* func, void* buf, int64_t count, MPI_Datatype type, int source, int tag,
            MPI_Comm comm, MPI_Request* request);
int persistentInit(const char* func, const void* buf, int64_t count, MPI_Datatype type, int peer,
                   int tag, MPI_Comm comm, bool isRecv, p2p::SendMode mode, MPI_Request* request);
// Takes the message behind *message (MPI_Mprobe), setting it to MPI_MESSAGE_NULL.
int takeMessage(const char* func, MPI_Message* message, p2p::Unexpected** u, comm::Comm** c);

}  // namespace ccmpi::api
