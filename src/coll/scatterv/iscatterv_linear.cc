// Linear scatterv as a schedule of one round: as linear scatter, with block i of
// sendcounts[i] elements at displs[i] extents of sendtype. Empty blocks move no message.
#include "coll/nb_algorithms.h"

namespace ccmpi::coll {

void addScattervLinear(Schedule& s, const void* sendbuf, const int* sendcounts, const int* displs,
                       MPI_Datatype sendtype, void* recvbuf, int64_t recvcount,
                       MPI_Datatype recvtype, int root) {
  const int n = s.size(), r = s.rank();
  if (r != root) {
    if (dataBytes(recvcount, recvtype) > 0) s.recv(recvbuf, recvcount, recvtype, root);
  } else {
    const datatype::Datatype& st = typeOf(sendtype);
    for (int i = 0; i < n; ++i)
      if (i != r && dataBytes(sendcounts[i], sendtype) > 0)
        s.send(elemAt(sendbuf, displs[i], st), sendcounts[i], sendtype, i);
    if (recvbuf != MPI_IN_PLACE)
      s.copy(elemAt(sendbuf, displs[r], st), sendcounts[r], sendtype, recvbuf, recvcount, recvtype);
  }
  s.endRound();
}

int iscattervLinear(Plan& p) {
  p.algorithm = "linear";
  const CollArgs& a = p.args;
  addScattervLinear(*p.schedule, a.sendbuf, a.sendcounts.data(), a.sdispls.data(), a.sendtype,
                    a.recvbuf, a.recvcount, a.recvtype, a.root);
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
