// MPI_Barrier: the algorithm table and the entry point. Algorithms written as schedules
// (coll/nb_algorithms.h) serve here through viaSchedule: the plan is compiled and run to
// completion at once.
#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/nb_algorithms.h"

namespace ccmpi::coll {
namespace {

template <ScheduleFn F>
int viaSchedule(comm::Comm& c) {
  return runBlocking(makeBarrierPlan(c, "barrier"), F);
}

const Algorithm<BarrierFn> kAlgorithms[] = {
    {"dissemination", "ceil(log2 n) rounds; rank r signals r+2^k and waits for r-2^k",
     barrierDissemination, kAnySize},
    {"tree", "arrivals gathered to rank 0 up a binomial tree, release sent down it",
     viaSchedule<barrierTreeSchedule>, kAnySize},
    {"shm", "one host: an arrival counter and a futex release word in a shared-memory segment",
     barrierShm, kAnySize, "CCMPI_NODE_SHM_SLOT,CCMPI_NODE_SHM"},
    {"node", "hosts: barrier within each host, among the host leaders, within each host again",
     barrierNode, kAnySize},
};
AlgorithmTable gTable("barrier", "CCMPI_BARRIER_ALGORITHM", kAlgorithms);

}  // namespace

int barrier(comm::Comm& c) {
  ++c.collSeq;
  if (c.size == 1) return MPI_SUCCESS;
  return gTable.run(SelectContext{c.size, true, 0, &c}, c);
}

}  // namespace ccmpi::coll
