// MPI_Scatter: the algorithm table and the entry point.
#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/util.h"

namespace ccmpi::coll {
namespace {

const Algorithm<ScatterFn> kAlgorithms[] = {
    {"linear", "the root starts all sends at once; n-1 messages", scatterLinear, kAnySize},
};
AlgorithmTable gTable("scatter", "CCMPI_SCATTER_ALGORITHM", kAlgorithms);

}  // namespace

int scatterSelect(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int64_t recvcount, MPI_Datatype recvtype, int root, comm::Comm& c) {
  return gTable.run(SelectContext{c.size, true}, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                    recvtype, root, c);
}

int scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
            MPI_Datatype recvtype, int root, comm::Comm& c) {
  ++c.collSeq;
  return scatterSelect(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, c);
}

}  // namespace ccmpi::coll
