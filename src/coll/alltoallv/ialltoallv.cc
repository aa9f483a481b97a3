// MPI_Ialltoallv / MPI_Alltoallv_init: the schedule algorithm table and the entry point.
#include "coll/algorithm.h"
#include "coll/coll_nb.h"
#include "coll/nb_algorithms.h"

namespace ccmpi::coll {
namespace {

const Algorithm<ScheduleFn> kAlgorithms[] = {
    {"linear", "one round: every receive and send posted at once", ialltoallvLinear, kAnySize},
    {"pairwise", "n-1 rounds, round i sends to r+i and receives from r-i", ialltoallvPairwise,
     kAnySize},
    {"phased",
     "Level 1 at every start: allgather the byte counts, schedule contention-free phases; "
     "linear when the largest message < CCMPI_PHASED_MIN",
     alltoallvPhasedSchedule, kAnySize},
    {"rs_n",
     "random scheduling (CM-5 seed, RS_N): the gathered pattern split into partial "
     "permutations with a shared seed, phases loosely synchronous"
     "; a persistent request schedules at its first start only",
     alltoallvRsNSchedule, kAnySize},
    {"rs_nh",
     "RS_N with largest messages first and a per-phase cutoff (CM-5 seed, RS_NH): "
     "large messages go in pieces over several phases"
     "; a persistent request schedules at its first start only",
     alltoallvRsNHSchedule, kAnySize},
};
AlgorithmTable gTable("ialltoallv", "CCMPI_IALLTOALLV_ALGORITHM", kAlgorithms);

}  // namespace

std::shared_ptr<Plan> makeAlltoallvPlan(const void* sendbuf, const int* sendcounts,
                                        const int* sdispls, MPI_Datatype sendtype, void* recvbuf,
                                        const int* recvcounts, const int* rdispls,
                                        MPI_Datatype recvtype, comm::Comm& c,
                                        const char* collective) {
  auto p = std::make_shared<Plan>(c, collective);
  CollArgs& a = p->args;
  a.sendbuf = sendbuf;
  a.sendtype = sendtype;
  a.recvbuf = recvbuf;
  a.recvtype = recvtype;
  if (sendbuf != MPI_IN_PLACE) {
    a.sendcounts.assign(sendcounts, sendcounts + c.size);
    a.sdispls.assign(sdispls, sdispls + c.size);
  }
  a.recvcounts.assign(recvcounts, recvcounts + c.size);
  a.rdispls.assign(rdispls, rdispls + c.size);
  return p;
}

int ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
               MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
               MPI_Datatype recvtype, comm::Comm& c, Mode mode, p2p::Request** out) {
  auto p = makeAlltoallvPlan(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                             recvtype, c, "ialltoallv");
  const int rc = gTable.run(SelectContext{c.size, true, -1, &c}, *p);
  return launch(std::move(p), rc, mode, out);
}

}  // namespace ccmpi::coll
