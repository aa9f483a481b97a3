// Pairwise-exchange alltoallw as a schedule (see ialltoall_pairwise.cc): displacements in
// bytes and a datatype per peer; empty blocks move no message.
#include "coll/nb_algorithms.h"

namespace ccmpi::coll {

int ialltoallwPairwise(Plan& p) {
  p.algorithm = "pairwise";
  const CollArgs& a = p.args;
  addAlltoallPairwise(
      *p.schedule, a.sendbuf == MPI_IN_PLACE,
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
