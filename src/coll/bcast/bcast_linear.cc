// Linear broadcast: the root starts one send of the whole buffer to every other rank, all
// at once; every other rank receives once. One round; n-1 messages leave the root, so the
// root's link carries (n-1) x the buffer. For small communicators or tiny messages.
// Any size.
#include "coll/nb_algorithms.h"

namespace ccmpi::coll {

int bcastLinearSchedule(Plan& p) {
  p.algorithm = "linear";
  Schedule& s = *p.schedule;
  const CollArgs& a = p.args;
  const int n = s.size(), r = s.rank();
  if (r != a.root) {
    s.recv(a.recvbuf, a.recvcount, a.recvtype, a.root);
  } else {
    for (int i = 0; i < n; ++i)
      if (i != r) s.send(a.recvbuf, a.recvcount, a.recvtype, i);
  }
  s.endRound();
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
