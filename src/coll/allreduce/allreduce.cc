// MPI_Allreduce: the algorithm table and the entry point. Algorithms written as schedules
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
                comm::Comm& c) {
  return runBlocking(makeAllreducePlan(sendbuf, recvbuf, count, type, op, c, "allreduce"), F);
}

const Algorithm<AllreduceFn> kAlgorithms[] = {
    {"recursive_doubling",
     "fold to a power of two, log2 p exchanges of the whole vector, unfold; keeps rank order",
     allreduceRecursiveDoubling, kAnySize},
    {"reduce_bcast", "reduce to rank 0, then broadcast", allreduceReduceBcast, kAnySize},
    {"ring", "ring reduce-scatter then ring allgather of n blocks, 2(n-1) rounds",
     viaSchedule<allreduceRingSchedule>, kCommutativeOp},
    {"rabenseifner", "fold, recursive-halving reduce-scatter, recursive-doubling allgather",
     viaSchedule<allreduceRabenseifnerSchedule>, kCommutativeOp},
    {"two_tree",
     "two-tree reduction to rank 0, then the two-tree broadcast; edges spread over two rails",
     viaSchedule<allreduceTwoTreeSchedule>, kCommutativeOp,
     "CCMPI_BCAST_LANE_SEGMENT,CCMPI_RAIL_HOP_US"},
    {"shm",
     "one host: slots in a shared-memory segment, each rank reduces a 1/n slice in place, all copy "
     "out; dense types",
     allreduceShm, kAnySize, "CCMPI_NODE_SHM_SLOT,CCMPI_NODE_SHM"},
    {"node",
     "hosts: reduce within each host, allreduce among the host leaders, broadcast within each host",
     allreduceNode, kAnySize},
};
AlgorithmTable gTable("allreduce", "CCMPI_ALLREDUCE_ALGORITHM", kAlgorithms);

}  // namespace

int allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
              comm::Comm& c) {
  ++c.collSeq;
  if (count == 0) return MPI_SUCCESS;
  if (c.size == 1) {
    if (sendbuf == MPI_IN_PLACE) return MPI_SUCCESS;
    return copyLocal(sendbuf, count, type, recvbuf, count, type);
  }
  return gTable.run(SelectContext{c.size, op::isCommutative(op), dataBytes(count, type), &c},
                    sendbuf, recvbuf, static_cast<int64_t>(count), type, op, c);
}

}  // namespace ccmpi::coll
