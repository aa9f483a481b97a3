// MPI_Igather / MPI_Gather_init: the schedule algorithm table and the entry point.
#include "coll/algorithm.h"
#include "coll/coll_nb.h"
#include "coll/nb_algorithms.h"

namespace ccmpi::coll {
namespace {

const Algorithm<ScheduleFn> kAlgorithms[] = {
    {"linear", "the root posts all receives at once; n-1 messages", igatherLinear, kAnySize},
};
AlgorithmTable gTable("igather", "CCMPI_IGATHER_ALGORITHM", kAlgorithms);

}  // namespace

int igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
            MPI_Datatype recvtype, int root, comm::Comm& c, Mode mode, p2p::Request** out) {
  auto p = std::make_shared<Plan>(c, "igather");
  CollArgs& a = p->args;
  a.sendbuf = sendbuf;
  a.sendcount = sendcount;
  a.sendtype = sendtype;
  a.recvbuf = recvbuf;
  a.recvcount = recvcount;
  a.recvtype = recvtype;
  a.root = root;
  const int rc = gTable.run(SelectContext{c.size, true}, *p);
  return launch(std::move(p), rc, mode, out);
}

}  // namespace ccmpi::coll
