// MPI_Reduce: the algorithm table and the entry point. Algorithms written as schedules
// (coll/nb_algorithms.h) serve here through viaSchedule: the plan is compiled and run to
// completion at once.
#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/nb_algorithms.h"
#include "coll/util.h"
#include "op/op.h"

namespace ccmpi::coll {
namespace {

template <ScheduleFn F>
int viaSchedule(const void* sendbuf, void* recvbuf, int64_t count, MPI_Datatype type, MPI_Op op,
                int root, comm::Comm& c) {
  return runBlocking(makeReducePlan(sendbuf, recvbuf, count, type, op, root, c, "reduce"), F);
}

const Algorithm<ReduceFn> kAlgorithms[] = {
    {"binomial", "binomial tree rooted at the root, ceil(log2 n) rounds", reduceBinomial,
     kCommutativeOp},
    {"ordered_binomial",
     "binomial tree rooted at rank 0 combining in rank order, then rank 0 -> root",
     reduceOrderedBinomial, kAnySize},
    {"linear", "the root receives every vector at once and combines them in rank order",
     viaSchedule<reduceLinearSchedule>, kAnySize},
    {"rabenseifner",
     "recursive-halving reduce-scatter, then binomial gather of the blocks to the root",
     viaSchedule<reduceRabenseifnerSchedule>, kCommutativeOp},
    {"two_tree",
     "two binary trees, half the vector reduced up each, pipelined; edges spread over two rails",
     viaSchedule<reduceTwoTreeSchedule>, kCommutativeOp,
     "CCMPI_BCAST_LANE_SEGMENT,CCMPI_RAIL_HOP_US"},
    {"shm",
     "one host: slots in a shared-memory segment, each rank reduces a 1/n slice in place; rank "
     "order kept; dense types",
     reduceShm, kAnySize, "CCMPI_NODE_SHM_SLOT,CCMPI_NODE_SHM"},
    {"node",
     "hosts: reduce within each host to its leader, among the leaders to the root's; "
     "non-commutative needs hosts in rank order",
     reduceNode, kAnySize},
};
AlgorithmTable gTable("reduce", "CCMPI_REDUCE_ALGORITHM", kAlgorithms);

}  // namespace

int reduceSelect(const void* sendbuf, void* recvbuf, int64_t count, MPI_Datatype type, MPI_Op op,
                 int root, comm::Comm& c) {
  if (count == 0) return MPI_SUCCESS;
  if (c.size == 1) {
    if (sendbuf == MPI_IN_PLACE) return MPI_SUCCESS;
    return copyLocal(sendbuf, count, type, recvbuf, count, type);
  }
  return gTable.run(SelectContext{c.size, op::isCommutative(op), dataBytes(count, type), &c},
                    sendbuf, recvbuf, count, type, op, root, c);
}

int reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
           comm::Comm& c) {
  ++c.collSeq;
  return reduceSelect(sendbuf, recvbuf, count, type, op, root, c);
}

}  // namespace ccmpi::coll
