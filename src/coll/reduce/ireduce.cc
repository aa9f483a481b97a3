// MPI_Ireduce / MPI_Reduce_init: the schedule algorithm table and the entry point.
#include "coll/algorithm.h"
#include "coll/coll_nb.h"
#include "coll/nb_algorithms.h"
#include "coll/util.h"
#include "op/op.h"

namespace ccmpi::coll {
namespace {

const Algorithm<ScheduleFn> kAlgorithms[] = {
    {"binomial", "binomial tree rooted at the root; children's results received at once",
     ireduceBinomial, kCommutativeOp},
    {"ordered_binomial",
     "binomial tree rooted at rank 0 combining in rank order, then rank 0 -> root",
     ireduceOrderedBinomial, kAnySize},
    {"linear", "the root receives every vector at once and combines them in rank order",
     reduceLinearSchedule, kAnySize},
    {"rabenseifner",
     "recursive-halving reduce-scatter, then binomial gather of the blocks to the root",
     reduceRabenseifnerSchedule, kCommutativeOp},
    {"two_tree",
     "two binary trees, half the vector reduced up each, pipelined; edges spread over two rails",
     reduceTwoTreeSchedule, kCommutativeOp, "CCMPI_BCAST_LANE_SEGMENT,CCMPI_RAIL_HOP_US"},
};
AlgorithmTable gTable("ireduce", "CCMPI_IREDUCE_ALGORITHM", kAlgorithms);

}  // namespace

std::shared_ptr<Plan> makeReducePlan(const void* sendbuf, void* recvbuf, int64_t count,
                                     MPI_Datatype type, MPI_Op op, int root, comm::Comm& c,
                                     const char* collective) {
  auto p = std::make_shared<Plan>(c, collective);
  CollArgs& a = p->args;
  a.sendbuf = sendbuf;
  a.recvbuf = recvbuf;
  a.recvcount = count;
  a.recvtype = type;
  a.op = op;
  a.root = root;
  return p;
}

int ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
            comm::Comm& c, Mode mode, p2p::Request** out) {
  auto p = makeReducePlan(sendbuf, recvbuf, count, type, op, root, c, "ireduce");
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
