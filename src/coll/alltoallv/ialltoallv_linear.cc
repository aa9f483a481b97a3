// Linear alltoallv as a schedule of one round (see ialltoall_linear.cc): block i of
// sendcounts[i] / recvcounts[i] elements at sdispls[i] / rdispls[i] extents of the type;
// empty blocks move no message.
#include "coll/nb_algorithms.h"

namespace ccmpi::coll {

int ialltoallvLinear(Plan& p) {
  p.algorithm = "linear";
  const CollArgs& a = p.args;
  const bool inPlace = a.sendbuf == MPI_IN_PLACE;
  addAlltoallLinear(
      *p.schedule, inPlace, [&](int i) { return alltoallvSendBlock(a, i); },
      [&](int i) { return alltoallvRecvBlock(a, i); });
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
