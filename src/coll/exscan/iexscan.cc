// MPI_Iexscan / MPI_Exscan_init: the schedule algorithm table and the entry point.
#include "coll/algorithm.h"
#include "coll/coll_nb.h"
#include "coll/nb_algorithms.h"
#include "coll/util.h"
#include "op/op.h"

namespace ccmpi::coll {
namespace {

const Algorithm<ScheduleFn> kAlgorithms[] = {
    {"recursive_doubling", "ceil(log2 n) exchanges of group partials; keeps rank order",
     iexscanRecursiveDoubling, kAnySize},
    {"linear", "chain from rank 0 to rank n-1, n-1 sequential messages", exscanLinearSchedule,
     kAnySize},
};
AlgorithmTable gTable("iexscan", "CCMPI_IEXSCAN_ALGORITHM", kAlgorithms);

}  // namespace

std::shared_ptr<Plan> makeExscanPlan(const void* sendbuf, void* recvbuf, int64_t count,
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

int iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
            comm::Comm& c, Mode mode, p2p::Request** out) {
  auto p = makeExscanPlan(sendbuf, recvbuf, count, type, op, c, "iexscan");
  int rc = MPI_SUCCESS;
  if (count > 0 && c.size > 1)
    rc = gTable.run(SelectContext{c.size, op::isCommutative(op), dataBytes(count, type), &c}, *p);
  return launch(std::move(p), rc, mode, out);
}

}  // namespace ccmpi::coll
