// MPI_Igather / MPI_Gather_init: the schedule algorithm table and the entry point.
#include "coll/algorithm.h"
#include "coll/coll_nb.h"
#include "coll/nb_algorithms.h"

namespace ccmpi::coll {
namespace {

const Algorithm<ScheduleFn> kAlgorithms[] = {
    {"linear", "the root posts all receives at once; n-1 messages", igatherLinear, kAnySize},
    {"binomial", "binomial tree to the root, subtrees' blocks aggregated; ceil(log2 n) rounds",
     gatherBinomialSchedule, kAnySize},
};
AlgorithmTable gTable("igather", "CCMPI_IGATHER_ALGORITHM", kAlgorithms);

}  // namespace

std::shared_ptr<Plan> makeGatherPlan(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype,
                                     void* recvbuf, int64_t recvcount, MPI_Datatype recvtype,
                                     int root, comm::Comm& c, const char* collective) {
  auto p = std::make_shared<Plan>(c, collective);
  CollArgs& a = p->args;
  a.sendbuf = sendbuf;
  a.sendcount = sendcount;
  a.sendtype = sendtype;
  a.recvbuf = recvbuf;
  a.recvcount = recvcount;
  a.recvtype = recvtype;
  a.root = root;
  return p;
}

int igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
            MPI_Datatype recvtype, int root, comm::Comm& c, Mode mode, p2p::Request** out) {
  auto p = makeGatherPlan(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, c,
                          "igather");
  // One block, from the side significant here (the receive side at the root).
  const int64_t bytes =
      c.rank == root ? dataBytes(recvcount, recvtype) : dataBytes(sendcount, sendtype);
  const int rc = gTable.run(SelectContext{c.size, true, bytes, &c}, *p);
  return launch(std::move(p), rc, mode, out);
}

}  // namespace ccmpi::coll
