// MPI_Bcast: the algorithm table and the entry point.
#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/util.h"

namespace ccmpi::coll {
namespace {

const Algorithm<BcastFn> kAlgorithms[] = {
    {"binomial", "binomial tree from the root, ceil(log2 n) rounds of the whole buffer",
     bcastBinomial, kAnySize},
};
AlgorithmTable gTable("bcast", "CCMPI_BCAST_ALGORITHM", kAlgorithms);

}  // namespace

int bcastSelect(void* buf, int64_t count, MPI_Datatype type, int root, comm::Comm& c) {
  if (c.size == 1 || dataBytes(count, type) == 0) return MPI_SUCCESS;
  return gTable.run(SelectContext{c.size, true}, buf, count, type, root, c);
}

int bcast(void* buf, int count, MPI_Datatype type, int root, comm::Comm& c) {
  ++c.collSeq;
  return bcastSelect(buf, count, type, root, c);
}

}  // namespace ccmpi::coll
