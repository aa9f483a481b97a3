// MPI_Iallgather / MPI_Allgather_init: the schedule algorithm table and the entry point.
#include "coll/algorithm.h"
#include "coll/coll_nb.h"
#include "coll/nb_algorithms.h"

namespace ccmpi::coll {
namespace {

const Algorithm<ScheduleFn> kAlgorithms[] = {
    {"ring", "n-1 rounds, each rank forwards one block to its right neighbour", iallgatherRing,
     kAnySize},
};
AlgorithmTable gTable("iallgather", "CCMPI_IALLGATHER_ALGORITHM", kAlgorithms);

}  // namespace

int iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, comm::Comm& c, Mode mode, p2p::Request** out) {
  auto p = std::make_shared<Plan>(c, "iallgather");
  CollArgs& a = p->args;
  a.sendbuf = sendbuf;
  a.sendcount = sendcount;
  a.sendtype = sendtype;
  a.recvbuf = recvbuf;
  a.recvcount = recvcount;
  a.recvtype = recvtype;
  const int rc = gTable.run(SelectContext{c.size, true}, *p);
  return launch(std::move(p), rc, mode, out);
}

}  // namespace ccmpi::coll
