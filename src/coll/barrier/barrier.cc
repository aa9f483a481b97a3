// MPI_Barrier: the algorithm table and the entry point.
#include "coll/algorithm.h"
#include "coll/algorithms.h"

namespace ccmpi::coll {
namespace {

const Algorithm<BarrierFn> kAlgorithms[] = {
    {"dissemination", "ceil(log2 n) rounds; rank r signals r+2^k and waits for r-2^k",
     barrierDissemination, kAnySize},
};
AlgorithmTable gTable("barrier", "CCMPI_BARRIER_ALGORITHM", kAlgorithms);

}  // namespace

int barrier(comm::Comm& c) {
  ++c.collSeq;
  if (c.size == 1) return MPI_SUCCESS;
  return gTable.run(SelectContext{c.size, true}, c);
}

}  // namespace ccmpi::coll
