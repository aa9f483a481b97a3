// Linear gatherv as a schedule of one round: as linear gather, with block i of
// recvcounts[i] elements at displs[i] extents of recvtype. Empty blocks move no message.
#include "coll/nb_algorithms.h"

namespace ccmpi::coll {

int igathervLinear(Plan& p) {
  p.algorithm = "linear";
  Schedule& s = *p.schedule;
  const CollArgs& a = p.args;
  const int n = s.size(), r = s.rank();
  if (r != a.root) {
    if (dataBytes(a.sendcount, a.sendtype) > 0) s.send(a.sendbuf, a.sendcount, a.sendtype, a.root);
    return MPI_SUCCESS;
  }
  const datatype::Datatype& rt = typeOf(a.recvtype);
  for (int i = 0; i < n; ++i)
    if (i != r && dataBytes(a.recvcounts[i], a.recvtype) > 0)
      s.recv(elemAt(a.recvbuf, a.rdispls[i], rt), a.recvcounts[i], a.recvtype, i);
  if (a.sendbuf != MPI_IN_PLACE)
    s.copy(a.sendbuf, a.sendcount, a.sendtype, elemAt(a.recvbuf, a.rdispls[r], rt), a.recvcounts[r],
           a.recvtype);
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
