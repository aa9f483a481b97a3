// MPI_Ialltoall / MPI_Alltoall_init: the schedule algorithm table and the entry point.
#include "coll/algorithm.h"
#include "coll/coll_nb.h"
#include "coll/nb_algorithms.h"

namespace ccmpi::coll {
namespace {

const Algorithm<ScheduleFn> kAlgorithms[] = {
    {"linear", "one round: every receive and send posted at once", ialltoallLinear, kAnySize},
    {"pairwise", "n-1 rounds, round i sends to r+i and receives from r-i", ialltoallPairwise,
     kAnySize},
    {"bruck", "ceil(log2 n) rounds of packed blocks (index bit k set) to r+2^k, rotations",
     alltoallBruckSchedule, kAnySize},
    {"phased",
     "n-1 all-to-all phases r -> r+i, a receiver-ready signal keeps them apart "
     "(CCMPI_PHASE_SYNC)",
     alltoallPhasedSchedule, kAnySize},
    {"phased_barrier", "n-1 all-to-all phases r -> r+i with a barrier between phases",
     alltoallPhasedBarrierSchedule, kAnySize},
    {"phased_rails",
     "phased, with one phase per rail at once on hosts with several NICs, each message whole "
     "on its rail",
     alltoallPhasedRailsSchedule, kAnySize},
};
AlgorithmTable gTable("ialltoall", "CCMPI_IALLTOALL_ALGORITHM", kAlgorithms);

}  // namespace

std::shared_ptr<Plan> makeAlltoallPlan(const void* sendbuf, int64_t sendcount,
                                       MPI_Datatype sendtype, void* recvbuf, int64_t recvcount,
                                       MPI_Datatype recvtype, comm::Comm& c,
                                       const char* collective) {
  auto p = std::make_shared<Plan>(c, collective);
  CollArgs& a = p->args;
  a.sendbuf = sendbuf;
  a.sendcount = sendcount;
  a.sendtype = sendtype;
  a.recvbuf = recvbuf;
  a.recvcount = recvcount;
  a.recvtype = recvtype;
  return p;
}

int ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, comm::Comm& c, Mode mode, p2p::Request** out) {
  auto p =
      makeAlltoallPlan(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, c, "ialltoall");
  // One block, from the receive side (always significant, the same at every rank).
  const int64_t bytes = dataBytes(recvcount, recvtype);
  const int rc = gTable.run(SelectContext{c.size, true, bytes, &c}, *p);
  return launch(std::move(p), rc, mode, out);
}

}  // namespace ccmpi::coll
