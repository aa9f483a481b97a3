// MPI_Allgatherv: the algorithm table and the entry point. Algorithms written as schedules
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
                const int* recvcounts, const int* displs, MPI_Datatype recvtype, comm::Comm& c) {
  return runBlocking(makeAllgathervPlan(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                        recvtype, c, "allgatherv"),
                     F);
}

const Algorithm<AllgathervFn> kAlgorithms[] = {
    {"ring", "n-1 steps, each rank forwards one block to its right neighbour", allgathervRing,
     kAnySize},
    {"recursive_doubling", "log2 rounds exchanging packed block ranges with r^2^k (folds extras)",
     viaSchedule<allgathervRecursiveDoublingSchedule>, kAnySize},
    {"bruck", "ceil(log2 n) rounds: send packed blocks r..r+2^k-1 to r-2^k, any n",
     viaSchedule<allgathervBruckSchedule>, kAnySize},
    {"node",
     "hosts: gatherv within each host, allgatherv among the leaders, broadcast within each host",
     allgathervNode, kAnySize},
};
AlgorithmTable gTable("allgatherv", "CCMPI_ALLGATHERV_ALGORITHM", kAlgorithms);

}  // namespace

int allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               const int recvcounts[], const int displs[], MPI_Datatype recvtype, comm::Comm& c) {
  ++c.collSeq;
  return gTable.run(SelectContext{c.size, true, -1, &c}, sendbuf, static_cast<int64_t>(sendcount),
                    sendtype, recvbuf, recvcounts, displs, recvtype, c);
}

}  // namespace ccmpi::coll
