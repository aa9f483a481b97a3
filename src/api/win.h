#pragma once
// One-sided communication (win_api.cc): the runtime side that is not an MPI function.

namespace ccmpi::rma {

// Registers the RMA active-message handler on MPI_COMM_WORLD. Called by MPI_Init before
// the program can register handlers of its own, so that its id is the same on every rank.
void registerHandler();

}  // namespace ccmpi::rma
