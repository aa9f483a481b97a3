// Phased alltoall (CC-MPI section 4.2): the n-1 all-to-all phases {j -> (j + i) mod n},
// each a permutation, kept from overlapping by a synchronization (coll/phased/phased.h):
// "phased" uses CCMPI_PHASE_SYNC (default: the receiver-ready signal), "phased_barrier"
// the paper's barrier between phases. No cable ever carries two blocks at once, which is
// what large blocks on a switched Ethernet need; small blocks pay the synchronization.
// Where ranks share hosts the phases are between hosts (phased.h): host A's ranks take
// turns over host B's ranks, and blocks within a host move outside the phases.
// "phased_rails": on hosts with R NICs (coll::jobRails), R consecutive phases at once, the
// j-th on rail j, each message whole on its rail (the issue 24 seed's rails; plain
// "phased" stripes each large message over the rails instead).
#include "coll/nb_algorithms.h"
#include "coll/phased/phased.h"
#include "coll/rules.h"

namespace ccmpi::coll {
namespace {

int alltoallPhased(Plan& p, PhaseSync sync, int rails = 1) {
  const CollArgs& a = p.args;
  addPhasedAlltoall(
      *p.schedule, allToAllRankPhases(p.comm, p.comm.rank), sync, a.sendbuf == MPI_IN_PLACE,
      [&](int i) { return alltoallSendBlock(a, i); },
      [&](int i) { return alltoallRecvBlock(a, i); }, rails);
  return MPI_SUCCESS;
}

}  // namespace

int alltoallPhasedSchedule(Plan& p) {
  p.algorithm = "phased";
  return alltoallPhased(p, defaultPhaseSync());
}

int alltoallPhasedBarrierSchedule(Plan& p) {
  p.algorithm = "phased_barrier";
  return alltoallPhased(p, PhaseSync::kBarrier);
}

int alltoallPhasedRailsSchedule(Plan& p) {
  p.algorithm = "phased_rails";
  return alltoallPhased(p, defaultPhaseSync(), jobRails());
}

}  // namespace ccmpi::coll
