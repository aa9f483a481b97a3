// MPI_Iallgather / MPI_Allgather_init: the schedule algorithm table and the entry point.
#include "coll/algorithm.h"
#include "coll/coll_nb.h"
#include "coll/nb_algorithms.h"

namespace ccmpi::coll {
namespace {

const Algorithm<ScheduleFn> kAlgorithms[] = {
    {"ring", "n-1 rounds, each rank forwards one block to its right neighbour", iallgatherRing,
     kAnySize},
    {"recursive_doubling", "log2 rounds exchanging doubling block ranges with r^2^k (folds extras)",
     allgatherRecursiveDoublingSchedule, kAnySize},
    {"bruck", "ceil(log2 n) rounds: send held blocks r..r+2^k-1 to r-2^k, any n",
     allgatherBruckSchedule, kAnySize},
    {"phased",
     "n-1 all-to-all phases r -> r+i, each rank sends its block to all, a receiver-ready "
     "signal keeps phases apart (CCMPI_PHASE_SYNC)",
     allgatherPhasedSchedule, kAnySize},
    {"phased_barrier", "n-1 all-to-all phases r -> r+i with a barrier between phases",
     allgatherPhasedBarrierSchedule, kAnySize},
};
AlgorithmTable gTable("iallgather", "CCMPI_IALLGATHER_ALGORITHM", kAlgorithms);

}  // namespace

std::shared_ptr<Plan> makeAllgatherPlan(const void* sendbuf, int64_t sendcount,
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

int iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, comm::Comm& c, Mode mode, p2p::Request** out) {
  auto p = makeAllgatherPlan(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, c,
                             "iallgather");
  // One block, from the receive side (always significant, the same at every rank).
  const int64_t bytes = dataBytes(recvcount, recvtype);
  const int rc = gTable.run(SelectContext{c.size, true, bytes, &c}, *p);
  return launch(std::move(p), rc, mode, out);
}

}  // namespace ccmpi::coll
