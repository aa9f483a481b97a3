// MPI_Alltoall: the algorithm table and the entry point.
#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/util.h"

namespace ccmpi::coll {
namespace {

const Algorithm<AlltoallFn> kAlgorithms[] = {
    {"pairwise", "n-1 permutation steps, rank r sends to r+i and receives from r-i",
     alltoallPairwise, kAnySize},
};
AlgorithmTable gTable("alltoall", "CCMPI_ALLTOALL_ALGORITHM", kAlgorithms);

}  // namespace

int alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, comm::Comm& c) {
  ++c.collSeq;
  return gTable.run(SelectContext{c.size, true}, sendbuf, static_cast<int64_t>(sendcount), sendtype,
                    recvbuf, static_cast<int64_t>(recvcount), recvtype, c);
}

}  // namespace ccmpi::coll
