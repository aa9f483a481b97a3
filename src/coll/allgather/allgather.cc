// MPI_Allgather: the algorithm table and the entry point. Algorithms written as schedules
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
      makeAllgatherPlan(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, c, "allgather"),
      F);
}

const Algorithm<AllgatherFn> kAlgorithms[] = {
    {"ring", "n-1 steps, each rank forwards one block to its right neighbour", allgatherRing,
     kAnySize},
    {"recursive_doubling", "log2 rounds exchanging doubling block ranges with r^2^k (folds extras)",
     viaSchedule<allgatherRecursiveDoublingSchedule>, kAnySize},
    {"bruck", "ceil(log2 n) rounds: send held blocks r..r+2^k-1 to r-2^k, any n",
     viaSchedule<allgatherBruckSchedule>, kAnySize},
    {"phased",
     "n-1 all-to-all phases r -> r+i, each rank sends its block to all, a receiver-ready "
     "signal keeps phases apart (CCMPI_PHASE_SYNC)",
     viaSchedule<allgatherPhasedSchedule>, kAnySize},
    {"phased_barrier", "n-1 all-to-all phases r -> r+i with a barrier between phases",
     viaSchedule<allgatherPhasedBarrierSchedule>, kAnySize},
    {"mcast",
     "n multicasts, one per rank in rank order, then one barrier; declines where multicast "
     "does not work",
     allgatherMcast, kAnySize, "CCMPI_MCAST_MBITS"},
    {"shm",
     "one host: every rank packs its block into its slot of a shared-memory segment, all unpack "
     "every slot",
     allgatherShm, kAnySize, "CCMPI_NODE_SHM_SLOT,CCMPI_NODE_SHM"},
    {"node",
     "hosts: gather within each host, allgatherv among the leaders, broadcast within each host",
     allgatherNode, kAnySize},
};
AlgorithmTable gTable("allgather", "CCMPI_ALLGATHER_ALGORITHM", kAlgorithms);

}  // namespace

int allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, comm::Comm& c) {
  ++c.collSeq;
  // One block, from the receive side (always significant, the same at every rank).
  const int64_t bytes = dataBytes(recvcount, recvtype);
  return gTable.run(SelectContext{c.size, true, bytes, &c}, sendbuf,
                    static_cast<int64_t>(sendcount), sendtype, recvbuf,
                    static_cast<int64_t>(recvcount), recvtype, c);
}

}  // namespace ccmpi::coll
