// MPI_Ireduce_scatter / MPI_Reduce_scatter_init: the schedule algorithm table and the
// entry point.
#include <cstdint>

#include "base/error.h"
#include "coll/algorithm.h"
#include "coll/coll_nb.h"
#include "coll/nb_algorithms.h"
#include "coll/util.h"
#include "op/op.h"

namespace ccmpi::coll {
namespace {

const Algorithm<ScheduleFn> kAlgorithms[] = {
    {"reduce_scatterv", "reduce the whole vector to rank 0, then scatterv the blocks",
     ireduceScatterReduceScatterv, kAnySize},
    {"recursive_halving", "fold to a power of two, log2 p rounds exchanging halves, unfold",
     reduceScatterRecursiveHalvingSchedule, kCommutativeOp},
    {"pairwise", "n-1 rounds: send block r+i to r+i, combine block r from r-i; keeps rank order",
     reduceScatterPairwiseSchedule, kAnySize},
};
AlgorithmTable gTable("ireduce_scatter", "CCMPI_IREDUCE_SCATTER_ALGORITHM", kAlgorithms);

}  // namespace

std::shared_ptr<Plan> makeReduceScatterPlan(const void* sendbuf, void* recvbuf,
                                            const int* recvcounts, MPI_Datatype type, MPI_Op op,
                                            comm::Comm& c, const char* collective) {
  auto p = std::make_shared<Plan>(c, collective);
  CollArgs& a = p->args;
  a.sendbuf = sendbuf;
  a.recvbuf = recvbuf;
  a.recvtype = type;
  a.op = op;
  a.recvcounts.assign(recvcounts, recvcounts + c.size);
  return p;
}

int ireduceScatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype type,
                   MPI_Op op, comm::Comm& c, Mode mode, p2p::Request** out) {
  int64_t total = 0;
  for (int i = 0; i < c.size; ++i) total += recvcounts[i];
  if (total > INT32_MAX)
    return setErrorCause(MPI_ERR_COUNT, "reduce_scatter of %lld elements in total",
                         static_cast<long long>(total));
  auto p = makeReduceScatterPlan(sendbuf, recvbuf, recvcounts, type, op, c, "ireduce_scatter");
  int rc = MPI_SUCCESS;
  if (c.size == 1) {
    if (sendbuf != MPI_IN_PLACE)
      p->schedule->copy(sendbuf, recvcounts[0], type, recvbuf, recvcounts[0], type);
  } else {
    rc = gTable.run(SelectContext{c.size, op::isCommutative(op), dataBytes(total, type), &c}, *p);
  }
  return launch(std::move(p), rc, mode, out);
}

}  // namespace ccmpi::coll
