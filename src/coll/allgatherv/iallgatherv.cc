// MPI_Iallgatherv / MPI_Allgatherv_init: the schedule algorithm table and the entry point.
#include "coll/algorithm.h"
#include "coll/coll_nb.h"
#include "coll/nb_algorithms.h"

namespace ccmpi::coll {
namespace {

const Algorithm<ScheduleFn> kAlgorithms[] = {
    {"ring", "n-1 rounds, each rank forwards one block to its right neighbour", iallgathervRing,
     kAnySize},
};
AlgorithmTable gTable("iallgatherv", "CCMPI_IALLGATHERV_ALGORITHM", kAlgorithms);

}  // namespace

int iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, comm::Comm& c,
                Mode mode, p2p::Request** out) {
  auto p = std::make_shared<Plan>(c, "iallgatherv");
  CollArgs& a = p->args;
  a.sendbuf = sendbuf;
  a.sendcount = sendcount;
  a.sendtype = sendtype;
  a.recvbuf = recvbuf;
  a.recvtype = recvtype;
  a.recvcounts.assign(recvcounts, recvcounts + c.size);
  a.rdispls.assign(displs, displs + c.size);
  const int rc = gTable.run(SelectContext{c.size, true}, *p);
  return launch(std::move(p), rc, mode, out);
}

}  // namespace ccmpi::coll
