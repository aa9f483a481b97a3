// MPI_Reduce_scatter: the algorithm table and the entry point. Algorithms written as
// schedules (coll/nb_algorithms.h) serve here through viaSchedule: the plan is compiled
// and run to completion at once.
#include <cstdint>

#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/nb_algorithms.h"
#include "coll/util.h"
#include "op/op.h"

namespace ccmpi::coll {
namespace {

template <ScheduleFn F>
int viaSchedule(const void* sendbuf, void* recvbuf, const int* recvcounts, MPI_Datatype type,
                MPI_Op op, comm::Comm& c) {
  return runBlocking(
      makeReduceScatterPlan(sendbuf, recvbuf, recvcounts, type, op, c, "reduce_scatter"), F);
}

const Algorithm<ReduceScatterFn> kAlgorithms[] = {
    {"reduce_scatterv", "reduce the whole vector to rank 0, then scatterv the blocks",
     reduceScatterReduceScatterv, kAnySize},
    {"recursive_halving", "fold to a power of two, log2 p rounds exchanging halves, unfold",
     viaSchedule<reduceScatterRecursiveHalvingSchedule>, kCommutativeOp},
    {"pairwise", "n-1 rounds: send block r+i to r+i, combine block r from r-i; keeps rank order",
     viaSchedule<reduceScatterPairwiseSchedule>, kAnySize},
    {"node",
     "several hosts: reduce within each host, reduce_scatter among the host leaders, "
     "scatterv within each host; non-commutative ops need each host's ranks consecutive",
     reduceScatterNode, kAnySize},
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
  int64_t total = 0;
  for (int i = 0; i < c.size; ++i) total += recvcounts[i];
  return gTable.run(SelectContext{c.size, op::isCommutative(op), dataBytes(total, type), &c},
                    sendbuf, recvbuf, recvcounts, type, op, c);
}

}  // namespace ccmpi::coll
