// Linear scatter as a schedule of one round: the root starts one send per rank from that
// rank's block of sendbuf (all outstanding at once) and copies its own block; every other
// rank receives once. Empty blocks move no message.
#include "coll/nb_algorithms.h"

namespace ccmpi::coll {

void addScatterLinear(Schedule& s, const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype,
                      void* recvbuf, int64_t recvcount, MPI_Datatype recvtype, int root) {
  const int n = s.size(), r = s.rank();
  if (r != root) {
    if (dataBytes(recvcount, recvtype) > 0) s.recv(recvbuf, recvcount, recvtype, root);
  } else if (dataBytes(sendcount, sendtype) > 0) {
    const datatype::Datatype& st = typeOf(sendtype);
    for (int i = 0; i < n; ++i)
      if (i != r) s.send(elemAt(sendbuf, i * sendcount, st), sendcount, sendtype, i);
    if (recvbuf != MPI_IN_PLACE)
      s.copy(elemAt(sendbuf, r * sendcount, st), sendcount, sendtype, recvbuf, recvcount, recvtype);
  }
  s.endRound();
}

int iscatterLinear(Plan& p) {
  p.algorithm = "linear";
  const CollArgs& a = p.args;
  addScatterLinear(*p.schedule, a.sendbuf, a.sendcount, a.sendtype, a.recvbuf, a.recvcount,
                   a.recvtype, a.root);
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
