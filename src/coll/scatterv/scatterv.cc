// MPI_Scatterv: the algorithm table and the entry point.
#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/util.h"

namespace ccmpi::coll {
namespace {

const Algorithm<ScattervFn> kAlgorithms[] = {
    {"linear", "the root starts all sends at once; n-1 messages at most", scattervLinear, kAnySize},
};
AlgorithmTable gTable("scatterv", "CCMPI_SCATTERV_ALGORITHM", kAlgorithms);

}  // namespace

int scattervSelect(const void* sendbuf, const int* sendcounts, const int* displs,
                   MPI_Datatype sendtype, void* recvbuf, int64_t recvcount, MPI_Datatype recvtype,
                   int root, comm::Comm& c) {
  return gTable.run(SelectContext{c.size, true}, sendbuf, sendcounts, displs, sendtype, recvbuf,
                    recvcount, recvtype, root, c);
}

int scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
             void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, comm::Comm& c) {
  ++c.collSeq;
  return scattervSelect(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                        c);
}

}  // namespace ccmpi::coll
