// Linear (chain) inclusive scan as a schedule, for any op. Rank r waits for the prefix
// x_0 op ... op x_{r-1} from r - 1, computes prefix op x_r into recvbuf and passes it to
// r + 1. Cost: n-1 sequential messages of the whole vector, one temporary; the reference
// algorithm, fine for very small n. No restrictions. (The blocking table keeps its own
// point-to-point version, coll/scan/scan_linear.cc.)
#include "coll/nb_algorithms.h"

namespace ccmpi::coll {

int scanLinearSchedule(Plan& p) {
  p.algorithm = "linear";
  Schedule& s = *p.schedule;
  const CollArgs& a = p.args;
  const int n = s.size(), r = s.rank();
  const int64_t count = a.recvcount;
  const MPI_Datatype type = a.recvtype;
  if (a.sendbuf != MPI_IN_PLACE) s.copy(a.sendbuf, count, type, a.recvbuf, count, type);
  if (r > 0) {
    void* prefix = s.temp(count, type);
    s.recv(prefix, count, type, r - 1);
    s.endRound();
    s.reduce(a.op, prefix, a.recvbuf, count, type);
  }
  if (r < n - 1) s.send(a.recvbuf, count, type, r + 1);
  s.endRound();
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
