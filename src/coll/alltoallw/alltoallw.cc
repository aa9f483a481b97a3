// MPI_Alltoallw: the algorithm table and the entry point.
#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/util.h"

namespace ccmpi::coll {
namespace {

const Algorithm<AlltoallwFn> kAlgorithms[] = {
    {"linear", "post every receive and send at once, then wait for all", alltoallwLinear, kAnySize},
};
AlgorithmTable gTable("alltoallw", "CCMPI_ALLTOALLW_ALGORITHM", kAlgorithms);

}  // namespace

int alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
              const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
              const int rdispls[], const MPI_Datatype recvtypes[], comm::Comm& c) {
  ++c.collSeq;
  return gTable.run(SelectContext{c.size, true}, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                    recvcounts, rdispls, recvtypes, c);
}

}  // namespace ccmpi::coll
