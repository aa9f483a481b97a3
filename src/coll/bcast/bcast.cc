// MPI_Bcast: the algorithm table and the entry point. Algorithms written as schedules
// (coll/nb_algorithms.h) serve here through viaSchedule: the plan is compiled and run to
// completion at once.
#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/nb_algorithms.h"
#include "coll/util.h"

namespace ccmpi::coll {
namespace {

template <ScheduleFn F>
int viaSchedule(void* buf, int64_t count, MPI_Datatype type, int root, comm::Comm& c) {
  return runBlocking(makeBcastPlan(buf, count, type, root, c, "bcast"), F);
}

const Algorithm<BcastFn> kAlgorithms[] = {
    {"binomial", "binomial tree from the root, ceil(log2 n) rounds of the whole buffer",
     bcastBinomial, kAnySize},
    {"linear", "the root sends the whole buffer to every rank, all at once; one round",
     viaSchedule<bcastLinearSchedule>, kAnySize},
    {"chain", "pipeline root -> root+1 -> ...: segments received and forwarded in rounds",
     viaSchedule<bcastChainSchedule>, kAnySize, "CCMPI_BCAST_SEGMENT"},
    {"binary_tree", "pipelined binary tree: segments received and forwarded to 2 children",
     viaSchedule<bcastBinaryTreeSchedule>, kAnySize, "CCMPI_BCAST_SEGMENT"},
    {"two_tree",
     "two binary trees, each rank interior in at most one, half the buffer pipelined down each; "
     "edges spread over two rails",
     viaSchedule<bcastTwoTreeSchedule>, kAnySize, "CCMPI_BCAST_LANE_SEGMENT,CCMPI_RAIL_HOP_US"},
    {"two_chain",
     "two pipelines in opposite directions, half the buffer each; edges spread over two rails",
     viaSchedule<bcastTwoChainSchedule>, kAnySize, "CCMPI_BCAST_LANE_SEGMENT,CCMPI_RAIL_HOP_US"},
    {"scatter_rd_allgather", "binomial scatter of the bytes + recursive-doubling allgather",
     viaSchedule<bcastScatterRdAllgatherSchedule>, kPowerOfTwo},
    {"scatter_ring_allgather", "binomial scatter of the bytes + ring allgather",
     viaSchedule<bcastScatterRingAllgatherSchedule>, kAnySize},
    {"mcast",
     "reliable IP multicast to the communicator's group (NAK repair over TCP, ACK tree); "
     "declines where multicast does not work",
     bcastMcast, kAnySize, "CCMPI_MCAST_MBITS"},
    {"shm",
     "one host: the root packs chunks into a shared-memory segment, the others copy them out at "
     "once",
     bcastShm, kAnySize, "CCMPI_NODE_SHM_SLOT,CCMPI_NODE_SHM"},
    {"node", "hosts: within the root's host, among the host leaders, within the other hosts",
     bcastNode, kAnySize},
};
AlgorithmTable gTable("bcast", "CCMPI_BCAST_ALGORITHM", kAlgorithms);

}  // namespace

int bcastSelect(void* buf, int64_t count, MPI_Datatype type, int root, comm::Comm& c) {
  const int64_t bytes = dataBytes(count, type);
  if (c.size == 1 || bytes == 0) return MPI_SUCCESS;
  return gTable.run(SelectContext{c.size, true, bytes, &c}, buf, count, type, root, c);
}

int bcast(void* buf, int count, MPI_Datatype type, int root, comm::Comm& c) {
  ++c.collSeq;
  return bcastSelect(buf, count, type, root, c);
}

}  // namespace ccmpi::coll
