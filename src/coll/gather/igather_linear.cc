// Linear gather as a schedule of one round: the root posts one receive per rank straight
// into its block of recvbuf (arrivals taken in any order) and copies its own block; every
// other rank sends once. Empty blocks move no message (both sides know).
#include "coll/nb_algorithms.h"

namespace ccmpi::coll {

int igatherLinear(Plan& p) {
  p.algorithm = "linear";
  Schedule& s = *p.schedule;
  const CollArgs& a = p.args;
  const int n = s.size(), r = s.rank();
  if (r != a.root) {
    if (dataBytes(a.sendcount, a.sendtype) > 0) s.send(a.sendbuf, a.sendcount, a.sendtype, a.root);
    return MPI_SUCCESS;
  }
  const datatype::Datatype& rt = typeOf(a.recvtype);
  if (dataBytes(a.recvcount, a.recvtype) == 0) return MPI_SUCCESS;
  for (int i = 0; i < n; ++i)
    if (i != r) s.recv(elemAt(a.recvbuf, i * a.recvcount, rt), a.recvcount, a.recvtype, i);
  if (a.sendbuf != MPI_IN_PLACE)
    s.copy(a.sendbuf, a.sendcount, a.sendtype, elemAt(a.recvbuf, r * a.recvcount, rt), a.recvcount,
           a.recvtype);
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
