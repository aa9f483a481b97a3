// MPI_Gatherv: the algorithm table and the entry point. Algorithms written as schedules
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
                const int* recvcounts, const int* displs, MPI_Datatype recvtype, int root,
                comm::Comm& c) {
  return runBlocking(makeGathervPlan(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                     recvtype, root, c, "gatherv"),
                     F);
}

const Algorithm<GathervFn> kAlgorithms[] = {
    {"linear", "the root posts all receives at once; n-1 messages at most", gathervLinear,
     kAnySize},
    {"binomial", "counts gathered up a binomial tree, then the blocks, aggregated per subtree",
     viaSchedule<gathervBinomialSchedule>, kAnySize},
    {"node",
     "hosts: counts then blocks gathered at each leader, totals then blocks among the leaders",
     gathervNode, kAnySize},
};
AlgorithmTable gTable("gatherv", "CCMPI_GATHERV_ALGORITHM", kAlgorithms);

}  // namespace

int gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
            const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
            comm::Comm& c) {
  ++c.collSeq;
  return gTable.run(SelectContext{c.size, true, -1, &c}, sendbuf, static_cast<int64_t>(sendcount),
                    sendtype, recvbuf, recvcounts, displs, recvtype, root, c);
}

}  // namespace ccmpi::coll
