// MPI_Iallreduce / MPI_Allreduce_init: the schedule algorithm table and the entry point.
#include "coll/algorithm.h"
#include "coll/coll_nb.h"
#include "coll/nb_algorithms.h"
#include "coll/util.h"
#include "op/op.h"

namespace ccmpi::coll {
namespace {

const Algorithm<ScheduleFn> kAlgorithms[] = {
    {"recursive_doubling",
     "fold to a power of two, log2 p exchanges of the whole vector, unfold; keeps rank order",
     iallreduceRecursiveDoubling, kAnySize},
    {"reduce_bcast", "reduce to rank 0, then binomial broadcast", iallreduceReduceBcast, kAnySize},
    {"ring", "ring reduce-scatter then ring allgather of n blocks, 2(n-1) rounds",
     allreduceRingSchedule, kCommutativeOp},
    {"rabenseifner", "fold, recursive-halving reduce-scatter, recursive-doubling allgather",
     allreduceRabenseifnerSchedule, kCommutativeOp},
    {"two_tree",
     "two-tree reduction to rank 0, then the two-tree broadcast; edges spread over two rails",
     allreduceTwoTreeSchedule, kCommutativeOp, "CCMPI_BCAST_LANE_SEGMENT,CCMPI_RAIL_HOP_US"},
};
AlgorithmTable gTable("iallreduce", "CCMPI_IALLREDUCE_ALGORITHM", kAlgorithms);

}  // namespace

std::shared_ptr<Plan> makeAllreducePlan(const void* sendbuf, void* recvbuf, int64_t count,
                                        MPI_Datatype type, MPI_Op op, comm::Comm& c,
                                        const char* collective) {
  auto p = std::make_shared<Plan>(c, collective);
  CollArgs& a = p->args;
  a.sendbuf = sendbuf;
  a.recvbuf = recvbuf;
  a.recvcount = count;
  a.recvtype = type;
  a.op = op;
  return p;
}

int iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
               comm::Comm& c, Mode mode, p2p::Request** out) {
  auto p = makeAllreducePlan(sendbuf, recvbuf, count, type, op, c, "iallreduce");
  int rc = MPI_SUCCESS;
  if (count == 0) {
  } else if (c.size == 1) {
    if (sendbuf != MPI_IN_PLACE) p->schedule->copy(sendbuf, count, type, recvbuf, count, type);
  } else {
    rc = gTable.run(SelectContext{c.size, op::isCommutative(op), dataBytes(count, type), &c}, *p);
  }
  return launch(std::move(p), rc, mode, out);
}

}  // namespace ccmpi::coll
