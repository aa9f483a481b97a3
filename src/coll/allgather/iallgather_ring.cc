// Ring allgather as a schedule. Round 0 also puts the rank's own block into its slot of
// recvbuf; round i = 0..n-2 sends block (r - i) to the right neighbour and receives block
// (r - i - 1) from the left one, forwarding what arrived in the previous round. n-1
// rounds, one block per link each: bandwidth-optimal on a switch.
#include "coll/nb_algorithms.h"

namespace ccmpi::coll {

int iallgatherRing(Plan& p) {
  p.algorithm = "ring";
  Schedule& s = *p.schedule;
  const CollArgs& a = p.args;
  const int n = s.size(), r = s.rank();
  const datatype::Datatype& rt = typeOf(a.recvtype);
  auto block = [&](int i) { return elemAt(a.recvbuf, i * a.recvcount, rt); };
  if (a.sendbuf != MPI_IN_PLACE)
    s.copy(a.sendbuf, a.sendcount, a.sendtype, block(r), a.recvcount, a.recvtype);
  if (dataBytes(a.recvcount, a.recvtype) == 0) return MPI_SUCCESS;
  const int right = (r + 1) % n, left = (r - 1 + n) % n;
  for (int i = 0; i < n - 1; ++i) {
    s.send(block((r - i + n) % n), a.recvcount, a.recvtype, right);
    s.recv(block((r - i - 1 + n) % n), a.recvcount, a.recvtype, left);
    s.endRound();
  }
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
