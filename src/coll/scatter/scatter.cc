// MPI_Scatter: the algorithm table and the entry point. Algorithms written as schedules
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
  return runBlocking(makeScatterPlan(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                     root, c, "scatter"),
                     F);
}

const Algorithm<ScatterFn> kAlgorithms[] = {
    {"linear", "the root starts all sends at once; n-1 messages", scatterLinear, kAnySize},
    {"binomial", "binomial tree from the root, subtrees' blocks forwarded; ceil(log2 n) rounds",
     viaSchedule<scatterBinomialSchedule>, kAnySize},
    {"mcast",
     "the root multicasts the whole buffer once, each rank keeps its block; declines where "
     "multicast does not work",
     scatterMcast, kAnySize, "CCMPI_MCAST_MBITS"},
    {"node", "hosts: scatterv of whole hosts among the leaders, scatter within each host",
     scatterNode, kAnySize},
};
AlgorithmTable gTable("scatter", "CCMPI_SCATTER_ALGORITHM", kAlgorithms);

}  // namespace

int scatterSelect(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int64_t recvcount, MPI_Datatype recvtype, int root, comm::Comm& c) {
  // One block, from the side significant here (the send side at the root).
  const int64_t bytes =
      c.rank == root ? dataBytes(sendcount, sendtype) : dataBytes(recvcount, recvtype);
  return gTable.run(SelectContext{c.size, true, bytes, &c}, sendbuf, sendcount, sendtype, recvbuf,
                    recvcount, recvtype, root, c);
}

int scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
            MPI_Datatype recvtype, int root, comm::Comm& c) {
  ++c.collSeq;
  return scatterSelect(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, c);
}

}  // namespace ccmpi::coll
