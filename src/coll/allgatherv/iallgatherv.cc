// MPI_Iallgatherv / MPI_Allgatherv_init: the schedule algorithm table and the entry point.
#include "coll/algorithm.h"
#include "coll/coll_nb.h"
#include "coll/nb_algorithms.h"

namespace ccmpi::coll {
namespace {

const Algorithm<ScheduleFn> kAlgorithms[] = {
    {"ring", "n-1 rounds, each rank forwards one block to its right neighbour", iallgathervRing,
     kAnySize},
    {"recursive_doubling", "log2 rounds exchanging packed block ranges with r^2^k (folds extras)",
     allgathervRecursiveDoublingSchedule, kAnySize},
    {"bruck", "ceil(log2 n) rounds: send packed blocks r..r+2^k-1 to r-2^k, any n",
     allgathervBruckSchedule, kAnySize},
};
AlgorithmTable gTable("iallgatherv", "CCMPI_IALLGATHERV_ALGORITHM", kAlgorithms);

}  // namespace

std::shared_ptr<Plan> makeAllgathervPlan(const void* sendbuf, int64_t sendcount,
                                         MPI_Datatype sendtype, void* recvbuf,
                                         const int* recvcounts, const int* displs,
                                         MPI_Datatype recvtype, comm::Comm& c,
                                         const char* collective) {
  auto p = std::make_shared<Plan>(c, collective);
  CollArgs& a = p->args;
  a.sendbuf = sendbuf;
  a.sendcount = sendcount;
  a.sendtype = sendtype;
  a.recvbuf = recvbuf;
  a.recvtype = recvtype;
  a.recvcounts.assign(recvcounts, recvcounts + c.size);
  a.rdispls.assign(displs, displs + c.size);
  return p;
}

int iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, comm::Comm& c,
                Mode mode, p2p::Request** out) {
  auto p = makeAllgathervPlan(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                              c, "iallgatherv");
  const int rc = gTable.run(SelectContext{c.size, true, -1, &c}, *p);
  return launch(std::move(p), rc, mode, out);
}

}  // namespace ccmpi::coll
