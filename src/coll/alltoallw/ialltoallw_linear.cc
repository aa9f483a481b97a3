// Linear alltoallw as a schedule of one round (see ialltoall_linear.cc): displacements in
// bytes and a datatype per peer; empty blocks move no message.
#include "coll/nb_algorithms.h"

namespace ccmpi::coll {

int ialltoallwLinear(Plan& p) {
  p.algorithm = "linear";
  const CollArgs& a = p.args;
  const bool inPlace = a.sendbuf == MPI_IN_PLACE;
  addAlltoallLinear(
      *p.schedule, inPlace,
      [&](int i) {
        return Block{const_cast<void*>(byteAt(a.sendbuf, a.sdispls[i])), a.sendcounts[i],
                     a.sendtypes[i]};
      },
      [&](int i) {
        return Block{byteAt(a.recvbuf, a.rdispls[i]), a.recvcounts[i], a.recvtypes[i]};
      });
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
