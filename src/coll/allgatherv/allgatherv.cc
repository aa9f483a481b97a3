// MPI_Allgatherv: the algorithm table and the entry point.
#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/util.h"

namespace ccmpi::coll {
namespace {

const Algorithm<AllgathervFn> kAlgorithms[] = {
    {"ring", "n-1 steps, each rank forwards one block to its right neighbour", allgathervRing,
     kAnySize},
};
AlgorithmTable gTable("allgatherv", "CCMPI_ALLGATHERV_ALGORITHM", kAlgorithms);

}  // namespace

int allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               const int recvcounts[], const int displs[], MPI_Datatype recvtype, comm::Comm& c) {
  ++c.collSeq;
  return gTable.run(SelectContext{c.size, true}, sendbuf, static_cast<int64_t>(sendcount), sendtype,
                    recvbuf, recvcounts, displs, recvtype, c);
}

}  // namespace ccmpi::coll
