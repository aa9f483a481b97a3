// MPI_Igatherv / MPI_Gatherv_init: the schedule algorithm table and the entry point.
#include "coll/algorithm.h"
#include "coll/coll_nb.h"
#include "coll/nb_algorithms.h"

namespace ccmpi::coll {
namespace {

const Algorithm<ScheduleFn> kAlgorithms[] = {
    {"linear", "the root posts all receives at once; n-1 messages at most", igathervLinear,
     kAnySize},
};
AlgorithmTable gTable("igatherv", "CCMPI_IGATHERV_ALGORITHM", kAlgorithms);

}  // namespace

int igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
             comm::Comm& c, Mode mode, p2p::Request** out) {
  auto p = std::make_shared<Plan>(c, "igatherv");
  CollArgs& a = p->args;
  a.sendbuf = sendbuf;
  a.sendcount = sendcount;
  a.sendtype = sendtype;
  a.recvbuf = recvbuf;
  a.recvtype = recvtype;
  a.root = root;
  if (c.rank == root) {
    a.recvcounts.assign(recvcounts, recvcounts + c.size);
    a.rdispls.assign(displs, displs + c.size);
  }
  const int rc = gTable.run(SelectContext{c.size, true}, *p);
  return launch(std::move(p), rc, mode, out);
}

}  // namespace ccmpi::coll
