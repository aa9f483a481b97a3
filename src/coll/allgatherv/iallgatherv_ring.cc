// Ring allgatherv as a schedule: the ring allgather with block j of recvcounts[j]
// elements at displs[j] extents of recvtype. Every rank knows every block size, so empty
// blocks travel as empty messages and the ring stays in step.
#include "coll/nb_algorithms.h"

namespace ccmpi::coll {

int iallgathervRing(Plan& p) {
  p.algorithm = "ring";
  Schedule& s = *p.schedule;
  const CollArgs& a = p.args;
  const int n = s.size(), r = s.rank();
  const datatype::Datatype& rt = typeOf(a.recvtype);
  auto block = [&](int i) { return elemAt(a.recvbuf, a.rdispls[i], rt); };
  if (a.sendbuf != MPI_IN_PLACE)
    s.copy(a.sendbuf, a.sendcount, a.sendtype, block(r), a.recvcounts[r], a.recvtype);
  const int right = (r + 1) % n, left = (r - 1 + n) % n;
  for (int i = 0; i < n - 1; ++i) {
    const int out = (r - i + n) % n, in = (r - i - 1 + n) % n;
    s.send(block(out), a.recvcounts[out], a.recvtype, right);
    s.recv(block(in), a.recvcounts[in], a.recvtype, left);
    s.endRound();
  }
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
