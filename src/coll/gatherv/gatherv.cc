// MPI_Gatherv: the algorithm table and the entry point.
#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/util.h"

namespace ccmpi::coll {
namespace {

const Algorithm<GathervFn> kAlgorithms[] = {
    {"linear", "the root posts all receives at once; n-1 messages at most", gathervLinear,
     kAnySize},
};
AlgorithmTable gTable("gatherv", "CCMPI_GATHERV_ALGORITHM", kAlgorithms);

}  // namespace

int gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
            const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
            comm::Comm& c) {
  ++c.collSeq;
  return gTable.run(SelectContext{c.size, true}, sendbuf, static_cast<int64_t>(sendcount), sendtype,
                    recvbuf, recvcounts, displs, recvtype, root, c);
}

}  // namespace ccmpi::coll
