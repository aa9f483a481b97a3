// MPI_Iscatterv / MPI_Scatterv_init: the schedule algorithm table and the entry point.
#include "coll/algorithm.h"
#include "coll/coll_nb.h"
#include "coll/nb_algorithms.h"

namespace ccmpi::coll {
namespace {

const Algorithm<ScheduleFn> kAlgorithms[] = {
    {"linear", "the root starts all sends at once; n-1 messages at most", iscattervLinear,
     kAnySize},
};
AlgorithmTable gTable("iscatterv", "CCMPI_ISCATTERV_ALGORITHM", kAlgorithms);

}  // namespace

int iscatterv(const void* sendbuf, const int sendcounts[], const int displs[],
              MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
              comm::Comm& c, Mode mode, p2p::Request** out) {
  auto p = std::make_shared<Plan>(c, "iscatterv");
  CollArgs& a = p->args;
  a.sendbuf = sendbuf;
  a.sendtype = sendtype;
  a.recvbuf = recvbuf;
  a.recvcount = recvcount;
  a.recvtype = recvtype;
  a.root = root;
  if (c.rank == root) {
    a.sendcounts.assign(sendcounts, sendcounts + c.size);
    a.sdispls.assign(displs, displs + c.size);
  }
  const int rc = gTable.run(SelectContext{c.size, true}, *p);
  return launch(std::move(p), rc, mode, out);
}

}  // namespace ccmpi::coll
