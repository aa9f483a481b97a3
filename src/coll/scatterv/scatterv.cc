// MPI_Scatterv: the algorithm table and the entry point. Algorithms written as schedules
// (coll/nb_algorithms.h) serve here through viaSchedule: the plan is compiled and run to
// completion at once.
#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/nb_algorithms.h"
#include "coll/util.h"

namespace ccmpi::coll {
namespace {

template <ScheduleFn F>
int viaSchedule(const void* sendbuf, const int* sendcounts, const int* displs,
                MPI_Datatype sendtype, void* recvbuf, int64_t recvcount, MPI_Datatype recvtype,
                int root, comm::Comm& c) {
  return runBlocking(makeScattervPlan(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                                      recvtype, root, c, "scatterv"),
                     F);
}

const Algorithm<ScattervFn> kAlgorithms[] = {
    {"linear", "the root starts all sends at once; n-1 messages at most", scattervLinear, kAnySize},
    {"binomial", "counts sent down a binomial tree, then the blocks, forwarded per subtree",
     viaSchedule<scattervBinomialSchedule>, kAnySize},
    {"mcast",
     "static group: the sizes, then the aggregate of all blocks, multicast to the whole "
     "communicator; declines where multicast does not work",
     scattervMcast, kAnySize, "CCMPI_MCAST_MBITS"},
    {"mcast_dynamic",
     "dynamic group: the sizes to all (static group), then a group of only the receiving "
     "ranks is made for the aggregate and destroyed; declines where multicast does not work",
     scattervMcastDynamic, kAnySize, "CCMPI_MCAST_MBITS"},
    {"node",
     "hosts: counts gathered at each leader, hosts' totals then blocks among the leaders, scatterv "
     "within each host",
     scattervNode, kAnySize},
};
AlgorithmTable gTable("scatterv", "CCMPI_SCATTERV_ALGORITHM", kAlgorithms);

}  // namespace

int scattervSelect(const void* sendbuf, const int* sendcounts, const int* displs,
                   MPI_Datatype sendtype, void* recvbuf, int64_t recvcount, MPI_Datatype recvtype,
                   int root, comm::Comm& c) {
  return gTable.run(SelectContext{c.size, true, -1, &c}, sendbuf, sendcounts, displs, sendtype,
                    recvbuf, recvcount, recvtype, root, c);
}

int scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
             void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, comm::Comm& c) {
  ++c.collSeq;
  return scattervSelect(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                        c);
}

}  // namespace ccmpi::coll
