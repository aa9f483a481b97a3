// MPI_Alltoallv: the algorithm table and the entry point. Algorithms written as schedules
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
                MPI_Datatype sendtype, void* recvbuf, const int* recvcounts, const int* rdispls,
                MPI_Datatype recvtype, comm::Comm& c) {
  return runBlocking(makeAlltoallvPlan(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                       rdispls, recvtype, c, "alltoallv"),
                     F);
}

const Algorithm<AlltoallvFn> kAlgorithms[] = {
    {"linear", "post every receive and send at once, then wait for all", alltoallvLinear, kAnySize},
    {"pairwise", "n-1 rounds, round i sends to r+i and receives from r-i",
     viaSchedule<ialltoallvPairwise>, kAnySize},
    {"phased",
     "contention-free phases scheduled from the gathered pattern (Level 1); a repeated "
     "pattern replays its cached schedule; largest message < CCMPI_PHASED_MIN: linear, and "
     "the next call skips the agreement",
     viaSchedule<alltoallvPhasedCachedSchedule>, kAnySize},
    {"rs_n",
     "random scheduling (CM-5 seed, RS_N): the gathered pattern split into partial "
     "permutations with a shared seed, phases loosely synchronous",
     viaSchedule<alltoallvRsNSchedule>, kAnySize},
    {"rs_nh",
     "RS_N with largest messages first and a per-phase cutoff (CM-5 seed, RS_NH): "
     "large messages go in pieces over several phases",
     viaSchedule<alltoallvRsNHSchedule>, kAnySize},
    {"drs_n",
     "distributed random scheduling (CM-5 seed, DRS_N): before each message a test-and-set "
     "active message takes the destination's receive lock; busy destinations are asked "
     "again after a back-off while others are tried; each rank receives one message at a time",
     alltoallvDrsN, kAnySize},
    {"adaptive",
     "each message by its size, with no agreement (sender and receiver both know it): below "
     "CCMPI_ALLTOALLV_LOCK_MIN sent at once (linear), larger ones after taking the "
     "destination's receive lock (drs_n)",
     alltoallvAdaptive, kAnySize},
    {"node",
     "several hosts: count rows and blocks gathered at each host's leader, one message per "
     "pair of hosts among the leaders, scatterv within each host",
     alltoallvNode, kAnySize},
};
AlgorithmTable gTable("alltoallv", "CCMPI_ALLTOALLV_ALGORITHM", kAlgorithms);

}  // namespace

int alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
              MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
              MPI_Datatype recvtype, comm::Comm& c) {
  ++c.collSeq;
  return gTable.run(SelectContext{c.size, true, -1, &c}, sendbuf, sendcounts, sdispls, sendtype,
                    recvbuf, recvcounts, rdispls, recvtype, c);
}

}  // namespace ccmpi::coll
