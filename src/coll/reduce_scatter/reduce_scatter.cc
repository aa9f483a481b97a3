// MPI_Reduce_scatter: the algorithm table and the entry point.
#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/util.h"
#include "op/op.h"

namespace ccmpi::coll {
namespace {

const Algorithm<ReduceScatterFn> kAlgorithms[] = {
    {"reduce_scatterv", "reduce the whole vector to rank 0, then scatterv the blocks",
     reduceScatterReduceScatterv, kAnySize},
};
AlgorithmTable gTable("reduce_scatter", "CCMPI_REDUCE_SCATTER_ALGORITHM", kAlgorithms);

}  // namespace

int reduceScatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype type,
                  MPI_Op op, comm::Comm& c) {
  ++c.collSeq;
  if (c.size == 1) {
    if (sendbuf == MPI_IN_PLACE || recvcounts[0] == 0) return MPI_SUCCESS;
    return copyLocal(sendbuf, recvcounts[0], type, recvbuf, recvcounts[0], type);
  }
  return gTable.run(SelectContext{c.size, op::isCommutative(op)}, sendbuf, recvbuf, recvcounts,
                    type, op, c);
}

}  // namespace ccmpi::coll
