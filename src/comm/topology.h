#pragma once
// Neighbour lists of a communicator with a process topology, in the order the
// neighbourhood collectives use: Cartesian — for each dimension the source (-1) then the
// destination (+1) neighbour, MPI_PROC_NULL at open edges; graph — the adjacency list
// (both directions); distributed graph — the sources and destinations as given.
#include <vector>

#include "comm/comm.h"

namespace ccmpi::comm {

// false if c has no topology.
bool topologyNeighbors(const Comm& c, std::vector<int>* sources, std::vector<int>* destinations);

}  // namespace ccmpi::comm
