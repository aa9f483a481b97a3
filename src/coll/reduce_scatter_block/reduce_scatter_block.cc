// MPI_Reduce_scatter_block: the algorithm table and the entry point.
#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/util.h"
#include "op/op.h"

namespace ccmpi::coll {
namespace {

const Algorithm<ReduceScatterBlockFn> kAlgorithms[] = {
    {"reduce_scatter", "reduce the whole vector to rank 0, then scatter the blocks",
     reduceScatterBlockReduceScatter, kAnySize},
};
AlgorithmTable gTable("reduce_scatter_block", "CCMPI_REDUCE_SCATTER_BLOCK_ALGORITHM", kAlgorithms);

}  // namespace

int reduceScatterBlock(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type,
                       MPI_Op op, comm::Comm& c) {
  ++c.collSeq;
  if (recvcount == 0) return MPI_SUCCESS;
  if (c.size == 1) {
    if (sendbuf == MPI_IN_PLACE) return MPI_SUCCESS;
    return copyLocal(sendbuf, recvcount, type, recvbuf, recvcount, type);
  }
  return gTable.run(SelectContext{c.size, op::isCommutative(op)}, sendbuf, recvbuf,
                    static_cast<int64_t>(recvcount), type, op, c);
}

}  // namespace ccmpi::coll
