// MPI_Allgather: the algorithm table and the entry point.
#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/util.h"

namespace ccmpi::coll {
namespace {

const Algorithm<AllgatherFn> kAlgorithms[] = {
    {"ring", "n-1 steps, each rank forwards one block to its right neighbour", allgatherRing,
     kAnySize},
};
AlgorithmTable gTable("allgather", "CCMPI_ALLGATHER_ALGORITHM", kAlgorithms);

}  // namespace

int allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, comm::Comm& c) {
  ++c.collSeq;
  return gTable.run(SelectContext{c.size, true}, sendbuf, static_cast<int64_t>(sendcount), sendtype,
                    recvbuf, static_cast<int64_t>(recvcount), recvtype, c);
}

}  // namespace ccmpi::coll
