// Linear (chain) exclusive scan as a schedule, for any op. Rank 0 sends x_0 to rank 1;
// rank r > 0 receives the prefix x_0 op ... op x_{r-1} from r - 1 into recvbuf (its
// result) and, unless it is the last rank, sends prefix op x_r on (computed in a
// temporary that holds a copy of x_r taken before recvbuf is overwritten, so MPI_IN_PLACE
// works). Rank 0's recvbuf is left untouched, as the standard allows.
// Cost: n-1 sequential messages of the whole vector, one temporary. No restrictions.
#include "coll/nb_algorithms.h"

namespace ccmpi::coll {

int exscanLinearSchedule(Plan& p) {
  p.algorithm = "linear";
  Schedule& s = *p.schedule;
  const CollArgs& a = p.args;
  const int n = s.size(), r = s.rank();
  const int64_t count = a.recvcount;
  const MPI_Datatype type = a.recvtype;
  const void* mine = a.sendbuf == MPI_IN_PLACE ? a.recvbuf : a.sendbuf;
  if (r == 0) {
    s.send(mine, count, type, 1);
  } else if (r == n - 1) {
    s.recv(a.recvbuf, count, type, r - 1);
  } else {
    void* next = s.temp(count, type);
    s.copy(mine, count, type, next, count, type);
    s.recv(a.recvbuf, count, type, r - 1);
    s.endRound();
    s.reduce(a.op, a.recvbuf, next, count, type);
    s.send(next, count, type, r + 1);
  }
  s.endRound();
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
