// MPI_Ibcast / MPI_Bcast_init: the schedule algorithm table and the entry point.
#include "coll/algorithm.h"
#include "coll/coll_nb.h"
#include "coll/nb_algorithms.h"

namespace ccmpi::coll {
namespace {

const Algorithm<ScheduleFn> kAlgorithms[] = {
    {"binomial", "binomial tree from the root: receive once, then send to all children at once",
     ibcastBinomial, kAnySize},
    {"linear", "the root sends the whole buffer to every rank, all at once; one round",
     bcastLinearSchedule, kAnySize},
    {"chain", "pipeline root -> root+1 -> ...: segments received and forwarded in rounds",
     bcastChainSchedule, kAnySize, "CCMPI_BCAST_SEGMENT"},
    {"binary_tree", "pipelined binary tree: segments received and forwarded to 2 children",
     bcastBinaryTreeSchedule, kAnySize, "CCMPI_BCAST_SEGMENT"},
    {"two_tree",
     "two binary trees, each rank interior in at most one, half the buffer pipelined down each; "
     "edges spread over two rails",
     bcastTwoTreeSchedule, kAnySize, "CCMPI_BCAST_LANE_SEGMENT,CCMPI_RAIL_HOP_US"},
    {"two_chain",
     "two pipelines in opposite directions, half the buffer each; edges spread over two rails",
     bcastTwoChainSchedule, kAnySize, "CCMPI_BCAST_LANE_SEGMENT,CCMPI_RAIL_HOP_US"},
    {"scatter_rd_allgather", "binomial scatter of the bytes + recursive-doubling allgather",
     bcastScatterRdAllgatherSchedule, kPowerOfTwo},
    {"scatter_ring_allgather", "binomial scatter of the bytes + ring allgather",
     bcastScatterRingAllgatherSchedule, kAnySize},
    {"mcast",
     "one paced IP multicast of the buffer to the communicator's group, NAK repair, "
     "acknowledgements up a binomial tree (TCP from the root where multicast does not work)",
     ibcastMcast, kAnySize, "CCMPI_MCAST_MBITS,CCMPI_MCAST_NAK_US"},
};
AlgorithmTable gTable("ibcast", "CCMPI_IBCAST_ALGORITHM", kAlgorithms);

}  // namespace

std::shared_ptr<Plan> makeBcastPlan(void* buf, int64_t count, MPI_Datatype type, int root,
                                    comm::Comm& c, const char* collective) {
  auto p = std::make_shared<Plan>(c, collective);
  p->args.recvbuf = buf;
  p->args.recvcount = count;
  p->args.recvtype = type;
  p->args.root = root;
  return p;
}

int ibcast(void* buf, int count, MPI_Datatype type, int root, comm::Comm& c, Mode mode,
           p2p::Request** out) {
  auto p = makeBcastPlan(buf, count, type, root, c, "ibcast");
  const int64_t bytes = dataBytes(count, type);
  int rc = MPI_SUCCESS;
  if (c.size > 1 && bytes > 0) rc = gTable.run(SelectContext{c.size, true, bytes, &c}, *p);
  return launch(std::move(p), rc, mode, out);
}

}  // namespace ccmpi::coll
