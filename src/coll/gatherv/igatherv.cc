// MPI_Igatherv / MPI_Gatherv_init: the schedule algorithm table and the entry point.
#include "coll/algorithm.h"
#include "coll/coll_nb.h"
#include "coll/nb_algorithms.h"

namespace ccmpi::coll {
namespace {

const Algorithm<ScheduleFn> kAlgorithms[] = {
    {"linear", "the root posts all receives at once; n-1 messages at most", igathervLinear,
     kAnySize},
    {"binomial", "counts gathered up a binomial tree, then the blocks, aggregated per subtree",
     gathervBinomialSchedule, kAnySize},
};
AlgorithmTable gTable("igatherv", "CCMPI_IGATHERV_ALGORITHM", kAlgorithms);

}  // namespace

std::shared_ptr<Plan> makeGathervPlan(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype,
                                      void* recvbuf, const int* recvcounts, const int* displs,
                                      MPI_Datatype recvtype, int root, comm::Comm& c,
                                      const char* collective) {
  auto p = std::make_shared<Plan>(c, collective);
  CollArgs& a = p->args;
  a.sendbuf = sendbuf;
  a.sendcount = sendcount;
  a.sendtype = sendtype;
  a.recvbuf = recvbuf;
  a.recvtype = recvtype;
  a.root = root;
  if (c.rank == root) {
    a.recvcounts.assign(recvcounts, recvcounts + c.size);
    a.rdispls.assign(displs, displs + c.size);
  }
  return p;
}

int igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
             comm::Comm& c, Mode mode, p2p::Request** out) {
  auto p = makeGathervPlan(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                           root, c, "igatherv");
  const int rc = gTable.run(SelectContext{c.size, true, -1, &c}, *p);
  return launch(std::move(p), rc, mode, out);
}

}  // namespace ccmpi::coll
