// Pairwise-exchange alltoallv as a schedule (see ialltoall_pairwise.cc): block i of
// sendcounts[i] / recvcounts[i] elements at sdispls[i] / rdispls[i] extents of the type;
// empty blocks move no message.
#include "coll/nb_algorithms.h"

namespace ccmpi::coll {

int ialltoallvPairwise(Plan& p) {
  p.algorithm = "pairwise";
  const CollArgs& a = p.args;
  addAlltoallPairwise(
      *p.schedule, a.sendbuf == MPI_IN_PLACE, [&](int i) { return alltoallvSendBlock(a, i); },
      [&](int i) { return alltoallvRecvBlock(a, i); });
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
