#pragma once
// Generate_Recv (the CM-5 seed, Figure 1): every rank knows how much it sends to each
// other (its row of the pattern); afterwards it knows how much it receives from each (its
// column). Two algorithms (table generate_recv, forced with CCMPI_GENERATE_RECV_ALGORITHM
// or the info hint ccmpi_generate_recv_algorithm; default am):
//  - kConcat: an allgather of every rank's row (n values each: O(n^2) data and memory);
//  - kAm (the paper's): a reduce-scatter of the rows' masks (1 where a message goes) tells
//    each rank how many messages it will receive; then each rank sends one short
//    library-internal active message per non-empty entry, carrying the count, and waits
//    until as many have arrived as announced. O(n) memory, and messages only where the
//    pattern has them.
#include <mpi.h>

#include "comm/comm.h"

namespace ccmpi::coll {

// Collective over c (an intracommunicator): recvcounts[p] = what rank p passed as
// sendcounts[this rank]. Returns an MPI error class.
int generateRecv(const int* sendcounts, int* recvcounts, comm::Comm& c);

}  // namespace ccmpi::coll
