// MPI_Iscan / MPI_Scan_init: the schedule algorithm table and the entry point.
#include "coll/algorithm.h"
#include "coll/coll_nb.h"
#include "coll/nb_algorithms.h"
#include "coll/util.h"
#include "op/op.h"

namespace ccmpi::coll {
namespace {

const Algorithm<ScheduleFn> kAlgorithms[] = {
    {"recursive_doubling", "ceil(log2 n) exchanges of group partials; keeps rank order",
     iscanRecursiveDoubling, kAnySize},
    {"linear", "chain from rank 0 to rank n-1, n-1 sequential messages", scanLinearSchedule,
     kAnySize},
};
AlgorithmTable gTable("iscan", "CCMPI_ISCAN_ALGORITHM", kAlgorithms);

}  // namespace

std::shared_ptr<Plan> makeScanPlan(const void* sendbuf, void* recvbuf, int64_t count,
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

int iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
          comm::Comm& c, Mode mode, p2p::Request** out) {
  auto p = makeScanPlan(sendbuf, recvbuf, count, type, op, c, "iscan");
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
