// MPI_Ialltoallw / MPI_Alltoallw_init: the schedule algorithm table and the entry point.
#include "coll/algorithm.h"
#include "coll/coll_nb.h"
#include "coll/nb_algorithms.h"

namespace ccmpi::coll {
namespace {

const Algorithm<ScheduleFn> kAlgorithms[] = {
    {"linear", "one round: every receive and send posted at once", ialltoallwLinear, kAnySize},
    {"pairwise", "n-1 rounds, round i sends to r+i and receives from r-i", ialltoallwPairwise,
     kAnySize},
};
AlgorithmTable gTable("ialltoallw", "CCMPI_IALLTOALLW_ALGORITHM", kAlgorithms);

}  // namespace

std::shared_ptr<Plan> makeAlltoallwPlan(const void* sendbuf, const int* sendcounts,
                                        const int* sdispls, const MPI_Datatype* sendtypes,
                                        void* recvbuf, const int* recvcounts, const int* rdispls,
                                        const MPI_Datatype* recvtypes, comm::Comm& c,
                                        const char* collective) {
  auto p = std::make_shared<Plan>(c, collective);
  CollArgs& a = p->args;
  a.sendbuf = sendbuf;
  a.recvbuf = recvbuf;
  if (sendbuf != MPI_IN_PLACE) {
    a.sendcounts.assign(sendcounts, sendcounts + c.size);
    a.sdispls.assign(sdispls, sdispls + c.size);
    a.sendtypes.assign(sendtypes, sendtypes + c.size);
  }
  a.recvcounts.assign(recvcounts, recvcounts + c.size);
  a.rdispls.assign(rdispls, rdispls + c.size);
  a.recvtypes.assign(recvtypes, recvtypes + c.size);
  return p;
}

int ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
               const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
               const int rdispls[], const MPI_Datatype recvtypes[], comm::Comm& c, Mode mode,
               p2p::Request** out) {
  auto p = makeAlltoallwPlan(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                             recvtypes, c, "ialltoallw");
  const int rc = gTable.run(SelectContext{c.size, true, -1, &c}, *p);
  return launch(std::move(p), rc, mode, out);
}

}  // namespace ccmpi::coll
