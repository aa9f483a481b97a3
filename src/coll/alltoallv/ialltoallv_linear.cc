// Linear alltoallv as a schedule of one round (see ialltoall_linear.cc): block i of
// sendcounts[i] / recvcounts[i] elements at sdispls[i] / rdispls[i] extents of the type;
// empty blocks move no message.
#include "coll/nb_algorithms.h"

namespace ccmpi::coll {

int ialltoallvLinear(Plan& p) {
  p.algorithm = "linear";
  const CollArgs& a = p.args;
  const bool inPlace = a.sendbuf == MPI_IN_PLACE;
  const datatype::Datatype& rt = typeOf(a.recvtype);
  addAlltoallLinear(
      *p.schedule, inPlace,
      [&](int i) {
        const datatype::Datatype& st = typeOf(a.sendtype);
        return Block{const_cast<void*>(elemAt(a.sendbuf, a.sdispls[i], st)), a.sendcounts[i],
                     a.sendtype};
      },
      [&](int i) {
        return Block{elemAt(a.recvbuf, a.rdispls[i], rt), a.recvcounts[i], a.recvtype};
      });
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
