// MPI_Ibarrier / MPI_Barrier_init: the schedule algorithm table and the entry point.
#include "coll/algorithm.h"
#include "coll/coll_nb.h"
#include "coll/nb_algorithms.h"

namespace ccmpi::coll {
namespace {

const Algorithm<ScheduleFn> kAlgorithms[] = {
    {"dissemination", "ceil(log2 n) rounds; rank r signals r+2^k and waits for r-2^k",
     ibarrierDissemination, kAnySize},
    {"tree", "arrivals gathered to rank 0 up a binomial tree, release sent down it",
     barrierTreeSchedule, kAnySize},
};
AlgorithmTable gTable("ibarrier", "CCMPI_IBARRIER_ALGORITHM", kAlgorithms);

}  // namespace

std::shared_ptr<Plan> makeBarrierPlan(comm::Comm& c, const char* collective) {
  return std::make_shared<Plan>(c, collective);
}

int ibarrier(comm::Comm& c, Mode mode, p2p::Request** out) {
  auto p = makeBarrierPlan(c, "ibarrier");
  int rc = MPI_SUCCESS;
  if (c.size > 1) rc = gTable.run(SelectContext{c.size, true, 0, &c}, *p);
  return launch(std::move(p), rc, mode, out);
}

}  // namespace ccmpi::coll
