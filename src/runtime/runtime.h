#pragma once
// Process-wide state of the library: world rank/size, bootstrap, progress engine and
// transport; MPI_Init / MPI_Finalize / MPI_Abort do their work here.
#include <mpi.h>

#include <string>

namespace ccmpi::transport {
class TcpTransport;
}

namespace ccmpi::runtime {

// The TCP transport of this process (tests and diagnostics).
transport::TcpTransport& tcpTransport();

bool initialized();  // MPI_Init has completed
bool finalized();    // MPI_Finalize has completed
int worldRank();
int worldSize();
const std::string& processorName();

int init(int* argc, char*** argv, int required, int* provided);
int finalize();
// Terminates every process of the job with exit code `code` (through the launcher).
[[noreturn]] void abortJob(int code, const std::string& message);

}  // namespace ccmpi::runtime
