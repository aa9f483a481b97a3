// MPI_Alltoallv: the algorithm table and the entry point.
#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/util.h"

namespace ccmpi::coll {
namespace {

const Algorithm<AlltoallvFn> kAlgorithms[] = {
    {"linear", "post every receive and send at once, then wait for all", alltoallvLinear, kAnySize},
};
AlgorithmTable gTable("alltoallv", "CCMPI_ALLTOALLV_ALGORITHM", kAlgorithms);

}  // namespace

int alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
              MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
              MPI_Datatype recvtype, comm::Comm& c) {
  ++c.collSeq;
  return gTable.run(SelectContext{c.size, true}, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                    recvcounts, rdispls, recvtype, c);
}

}  // namespace ccmpi::coll
