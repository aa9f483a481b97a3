// MPI_Gather: the algorithm table and the entry point. Algorithms written as schedules
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
                int64_t recvcount, MPI_Datatype recvtype, int root, comm::Comm& c) {
  return runBlocking(
      makeGatherPlan(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, c, "gather"),
      F);
}

const Algorithm<GatherFn> kAlgorithms[] = {
    {"linear", "the root posts all receives at once; n-1 messages", gatherLinear, kAnySize},
    {"binomial", "binomial tree to the root, subtrees' blocks aggregated; ceil(log2 n) rounds",
     viaSchedule<gatherBinomialSchedule>, kAnySize},
    {"node",
     "hosts: gather within each host, gatherv of whole hosts among the leaders, root unpacks",
     gatherNode, kAnySize},
};
AlgorithmTable gTable("gather", "CCMPI_GATHER_ALGORITHM", kAlgorithms);

}  // namespace

int gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
           MPI_Datatype recvtype, int root, comm::Comm& c) {
  ++c.collSeq;
  // One block, from the side significant here (the receive side at the root).
  const int64_t bytes =
      c.rank == root ? dataBytes(recvcount, recvtype) : dataBytes(sendcount, sendtype);
  return gTable.run(SelectContext{c.size, true, bytes, &c}, sendbuf,
                    static_cast<int64_t>(sendcount), sendtype, recvbuf,
                    static_cast<int64_t>(recvcount), recvtype, root, c);
}

}  // namespace ccmpi::coll
