// MPI_Ireduce_scatter_block / MPI_Reduce_scatter_block_init: the schedule algorithm table
// and the entry point.
#include "coll/algorithm.h"
#include "coll/coll_nb.h"
#include "coll/nb_algorithms.h"
#include "coll/util.h"
#include "op/op.h"

namespace ccmpi::coll {
namespace {

const Algorithm<ScheduleFn> kAlgorithms[] = {
    {"reduce_scatter", "reduce the whole vector to rank 0, then scatter the blocks",
     ireduceScatterBlockReduceScatter, kAnySize},
    {"recursive_halving", "fold to a power of two, log2 p rounds exchanging halves, unfold",
     reduceScatterBlockRecursiveHalvingSchedule, kCommutativeOp},
    {"pairwise", "n-1 rounds: send block r+i to r+i, combine block r from r-i; keeps rank order",
     reduceScatterBlockPairwiseSchedule, kAnySize},
};
AlgorithmTable gTable("ireduce_scatter_block", "CCMPI_IREDUCE_SCATTER_BLOCK_ALGORITHM",
                      kAlgorithms);

}  // namespace

std::shared_ptr<Plan> makeReduceScatterBlockPlan(const void* sendbuf, void* recvbuf,
                                                 int64_t recvcount, MPI_Datatype type, MPI_Op op,
                                                 comm::Comm& c, const char* collective) {
  auto p = std::make_shared<Plan>(c, collective);
  CollArgs& a = p->args;
  a.sendbuf = sendbuf;
  a.recvbuf = recvbuf;
  a.recvcount = recvcount;
  a.recvtype = type;
  a.op = op;
  return p;
}

int ireduceScatterBlock(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type,
                        MPI_Op op, comm::Comm& c, Mode mode, p2p::Request** out) {
  auto p =
      makeReduceScatterBlockPlan(sendbuf, recvbuf, recvcount, type, op, c, "ireduce_scatter_block");
  int rc = MPI_SUCCESS;
  if (recvcount == 0) {
  } else if (c.size == 1) {
    if (sendbuf != MPI_IN_PLACE)
      p->schedule->copy(sendbuf, recvcount, type, recvbuf, recvcount, type);
  } else {
    rc = gTable.run(SelectContext{c.size, op::isCommutative(op), dataBytes(recvcount, type), &c},
                    *p);
  }
  return launch(std::move(p), rc, mode, out);
}

}  // namespace ccmpi::coll
