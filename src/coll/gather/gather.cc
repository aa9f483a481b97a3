// MPI_Gather: the algorithm table and the entry point.
#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/util.h"

namespace ccmpi::coll {
namespace {

const Algorithm<GatherFn> kAlgorithms[] = {
    {"linear", "the root posts all receives at once; n-1 messages", gatherLinear, kAnySize},
};
AlgorithmTable gTable("gather", "CCMPI_GATHER_ALGORITHM", kAlgorithms);

}  // namespace

int gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
           MPI_Datatype recvtype, int root, comm::Comm& c) {
  ++c.collSeq;
  return gTable.run(SelectContext{c.size, true}, sendbuf, static_cast<int64_t>(sendcount), sendtype,
                    recvbuf, static_cast<int64_t>(recvcount), recvtype, root, c);
}

}  // namespace ccmpi::coll
