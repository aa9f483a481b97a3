// MPI_Iscatterv / MPI_Scatterv_init: the schedule algorithm table and the entry point.
#include "coll/algorithm.h"
#include "coll/coll_nb.h"
#include "coll/nb_algorithms.h"

namespace ccmpi::coll {
namespace {

const Algorithm<ScheduleFn> kAlgorithms[] = {
    {"linear", "the root starts all sends at once; n-1 messages at most", iscattervLinear,
     kAnySize},
    {"binomial", "counts sent down a binomial tree, then the blocks, forwarded per subtree",
     scattervBinomialSchedule, kAnySize},
    {"mcast_group",
     "the request owns a multicast group of the ranks with a block (joined at initiation): each "
     "start multicasts the aggregate of their blocks to it (MPI_Scatterv_init: the CC-MPI "
     "compiler-assisted scheme; MPI_Iscatterv: the dynamic one)",
     iscattervMcastGroup, kAnySize, "CCMPI_MCAST_MBITS,CCMPI_MCAST_NAK_US"},
};
AlgorithmTable gTable("iscatterv", "CCMPI_ISCATTERV_ALGORITHM", kAlgorithms);

}  // namespace

std::shared_ptr<Plan> makeScattervPlan(const void* sendbuf, const int* sendcounts,
                                       const int* displs, MPI_Datatype sendtype, void* recvbuf,
                                       int64_t recvcount, MPI_Datatype recvtype, int root,
                                       comm::Comm& c, const char* collective) {
  auto p = std::make_shared<Plan>(c, collective);
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
  return p;
}

int iscatterv(const void* sendbuf, const int sendcounts[], const int displs[],
              MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
              comm::Comm& c, Mode mode, p2p::Request** out) {
  auto p = makeScattervPlan(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                            root, c, "iscatterv");
  const int rc = gTable.run(SelectContext{c.size, true, -1, &c}, *p);
  return launch(std::move(p), rc, mode, out);
}

}  // namespace ccmpi::coll
