// Two-chain broadcast: two pipelines over the same ranks in opposite directions,
// root -> root+1 -> ... -> root+n-1 and root -> root+n-1 -> ... -> root+1 (mod n), each
// carrying half of the buffer in segments (bcast_segments.cc). Every rank receives and
// sends each half once; where hosts have two NICs the chains' edges are spread over both
// rails (twoRailColouring), so each NIC carries half of the buffer each way. Cost: n-1
// hops of latency plus B/(2b) on two rails of b each.
#include "coll/nb_algorithms.h"

namespace ccmpi::coll {

int bcastTwoChainSchedule(Plan& p) {
  p.algorithm = "two_chain";
  const int n = p.schedule->size();
  addBcastTwoLanes(*p.schedule, p.args, twoChainEdges(n), n - 1);
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
