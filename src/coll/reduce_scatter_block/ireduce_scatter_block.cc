// MPI_Ireduce_scatter_block / MPI_Reduce_scatter_block_init: the schedule algorithm table
// and the entry point.
#include "coll/algorithm.h"
#include "coll/coll_nb.h"
#include "coll/nb_algorithms.h"
#include "op/op.h"

namespace ccmpi::coll {
namespace {

const Algorithm<ScheduleFn> kAlgorithms[] = {
    {"reduce_scatter", "reduce the whole vector to rank 0, then scatter the blocks",
     ireduceScatterBlockReduceScatter, kAnySize},
};
AlgorithmTable gTable("ireduce_scatter_block", "CCMPI_IREDUCE_SCATTER_BLOCK_ALGORITHM",
                      kAlgorithms);

}  // namespace

int ireduceScatterBlock(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type,
                        MPI_Op op, comm::Comm& c, Mode mode, p2p::Request** out) {
  auto p = std::make_shared<Plan>(c, "ireduce_scatter_block");
  CollArgs& a = p->args;
  a.sendbuf = sendbuf;
  a.recvbuf = recvbuf;
  a.recvcount = recvcount;
  a.recvtype = type;
  a.op = op;
  int rc = MPI_SUCCESS;
  if (recvcount == 0) {
  } else if (c.size == 1) {
    if (sendbuf != MPI_IN_PLACE)
      p->schedule->copy(sendbuf, recvcount, type, recvbuf, recvcount, type);
  } else {
    rc = gTable.run(SelectContext{c.size, op::isCommutative(op)}, *p);
  }
  return launch(std::move(p), rc, mode, out);
}

}  // namespace ccmpi::coll
