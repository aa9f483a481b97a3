// MPI_Alltoall: the algorithm table and the entry point. Algorithms written as schedules
// (coll/nb_algorithms.h) serve here through viaSchedule: the plan is compiled and run to
// completion at once.
#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/nb_algorithms.h"
#include "coll/util.h"

namespace ccmpi::coll {
namespace {

template <ScheduleFn F>
int viaSchedule(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype, void* recvbuf,
                int64_t recvcount, MPI_Datatype recvtype, comm::Comm& c) {
  return runBlocking(
      makeAlltoallPlan(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, c, "alltoall"),
      F);
}

const Algorithm<AlltoallFn> kAlgorithms[] = {
    {"pairwise", "n-1 permutation steps, rank r sends to r+i and receives from r-i",
     alltoallPairwise, kAnySize},
    {"linear", "one round: every receive and send posted at once", viaSchedule<ialltoallLinear>,
     kAnySize},
    {"bruck", "ceil(log2 n) rounds of packed blocks (index bit k set) to r+2^k, rotations",
     viaSchedule<alltoallBruckSchedule>, kAnySize},
    {"phased",
     "n-1 all-to-all phases r -> r+i, a receiver-ready signal keeps them apart "
     "(CCMPI_PHASE_SYNC)",
     viaSchedule<alltoallPhasedSchedule>, kAnySize},
    {"phased_barrier", "n-1 all-to-all phases r -> r+i with a barrier between phases",
     viaSchedule<alltoallPhasedBarrierSchedule>, kAnySize},
    {"phased_rails",
     "phased, with one phase per rail at once on hosts with several NICs, each message whole "
     "on its rail",
     viaSchedule<alltoallPhasedRailsSchedule>, kAnySize},
    {"shm", "one host: sub-slots per destination in a shared-memory segment, one barrier per chunk",
     alltoallShm, kAnySize, "CCMPI_NODE_SHM_SLOT,CCMPI_NODE_SHM"},
    {"node",
     "hosts: gather at each leader, one message per pair of hosts among the leaders, scatter "
     "within each host",
     alltoallNode, kAnySize},
};
AlgorithmTable gTable("alltoall", "CCMPI_ALLTOALL_ALGORITHM", kAlgorithms);

}  // namespace

int alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, comm::Comm& c) {
  ++c.collSeq;
  // One block, from the receive side (always significant, the same at every rank).
  const int64_t bytes = dataBytes(recvcount, recvtype);
  return gTable.run(SelectContext{c.size, true, bytes, &c}, sendbuf,
                    static_cast<int64_t>(sendcount), sendtype, recvbuf,
                    static_cast<int64_t>(recvcount), recvtype, c);
}

}  // namespace ccmpi::coll
