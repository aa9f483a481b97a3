// MPI_Alltoallw: the algorithm table and the entry point. Algorithms written as schedules
// (coll/nb_algorithms.h) serve here through viaSchedule: the plan is compiled and run to
// completion at once.
#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/nb_algorithms.h"
#include "coll/util.h"

namespace ccmpi::coll {
namespace {

template <ScheduleFn F>
int viaSchedule(const void* sendbuf, const int* sendcounts, const int* sdispls,
                const MPI_Datatype* sendtypes, void* recvbuf, const int* recvcounts,
                const int* rdispls, const MPI_Datatype* recvtypes, comm::Comm& c) {
  return runBlocking(makeAlltoallwPlan(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                       rdispls, recvtypes, c, "alltoallw"),
                     F);
}

const Algorithm<AlltoallwFn> kAlgorithms[] = {
    {"linear", "post every receive and send at once, then wait for all", alltoallwLinear, kAnySize},
    {"pairwise", "n-1 rounds, round i sends to r+i and receives from r-i",
     viaSchedule<ialltoallwPairwise>, kAnySize},
};
AlgorithmTable gTable("alltoallw", "CCMPI_ALLTOALLW_ALGORITHM", kAlgorithms);

}  // namespace

int alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
              const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
              const int rdispls[], const MPI_Datatype recvtypes[], comm::Comm& c) {
  ++c.collSeq;
  return gTable.run(SelectContext{c.size, true, -1, &c}, sendbuf, sendcounts, sdispls, sendtypes,
                    recvbuf, recvcounts, rdispls, recvtypes, c);
}

}  // namespace ccmpi::coll
