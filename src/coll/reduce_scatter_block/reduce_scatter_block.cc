// MPI_Reduce_scatter_block: the algorithm table and the entry point. Algorithms written
// as schedules (coll/nb_algorithms.h) serve here through viaSchedule: the plan is
// compiled and run to completion at once.
#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/nb_algorithms.h"
#include "coll/util.h"
#include "op/op.h"

namespace ccmpi::coll {
namespace {

template <ScheduleFn F>
int viaSchedule(const void* sendbuf, void* recvbuf, int64_t recvcount, MPI_Datatype type, MPI_Op op,
                comm::Comm& c) {
  return runBlocking(
      makeReduceScatterBlockPlan(sendbuf, recvbuf, recvcount, type, op, c, "reduce_scatter_block"),
      F);
}

const Algorithm<ReduceScatterBlockFn> kAlgorithms[] = {
    {"reduce_scatter", "reduce the whole vector to rank 0, then scatter the blocks",
     reduceScatterBlockReduceScatter, kAnySize},
    {"recursive_halving", "fold to a power of two, log2 p rounds exchanging halves, unfold",
     viaSchedule<reduceScatterBlockRecursiveHalvingSchedule>, kCommutativeOp},
    {"pairwise", "n-1 rounds: send block r+i to r+i, combine block r from r-i; keeps rank order",
     viaSchedule<reduceScatterBlockPairwiseSchedule>, kAnySize},
    {"node",
     "several hosts: reduce within each host, reduce_scatter among the host leaders, "
     "scatterv within each host; non-commutative ops need each host's ranks consecutive",
     reduceScatterBlockNode, kAnySize},
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
  return gTable.run(SelectContext{c.size, op::isCommutative(op), dataBytes(recvcount, type), &c},
                    sendbuf, recvbuf, static_cast<int64_t>(recvcount), type, op, c);
}

}  // namespace ccmpi::coll
