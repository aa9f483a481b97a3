// Scatter + recursive-doubling allgather broadcast (van de Geijn): the buffer's B bytes
// are cut into n blocks and scattered down a binomial tree (addBcastScatterBytes), then
// log2 n exchange rounds rebuild the whole buffer everywhere: in round k rank v swaps the
// 2^k blocks it holds with partner v xor 2^k. Cost: 2 log2 n rounds, about 2B bytes sent
// per rank instead of B log2 n (binomial): the choice for long messages.
// Restriction: power-of-two communicator size (else selection falls through).
// Derived types: packed into / unpacked from a temporary; buffers of fewer than n bytes
// leave some blocks empty (no message).
#include <algorithm>

#include "coll/algorithm.h"
#include "coll/nb_algorithms.h"

namespace ccmpi::coll {

int bcastScatterRdAllgatherSchedule(Plan& p) {
  Schedule& s = *p.schedule;
  const CollArgs& a = p.args;
  const int n = s.size();
  if (n & (n - 1)) return kDecline;
  p.algorithm = "scatter_rd_allgather";
  const int v = (s.rank() - a.root + n) % n;
  const int64_t total = dataBytes(a.recvcount, a.recvtype);
  const int64_t chunk = (total + n - 1) / n;
  unsigned char* bytes = addBcastPackBytes(s, a.recvbuf, a.recvcount, a.recvtype, a.root);
  addBcastScatterBytes(s, bytes, total, chunk, a.root);
  auto at = [&](int64_t i) { return std::min(total, i * chunk); };
  for (int mask = 1; mask < n; mask <<= 1) {
    const int partner = v ^ mask;
    const int64_t mine = v & ~(mask - 1), theirs = partner & ~(mask - 1);
    const int peer = (partner + a.root) % n;
    const int64_t inOff = at(theirs), inLen = at(theirs + mask) - inOff;
    const int64_t outOff = at(mine), outLen = at(mine + mask) - outOff;
    if (inLen > 0) s.recv(bytes + inOff, inLen, MPI_BYTE, peer);
    if (outLen > 0) s.send(bytes + outOff, outLen, MPI_BYTE, peer);
    s.endRound();
  }
  addBcastUnpackBytes(s, bytes, a.recvbuf, a.recvcount, a.recvtype, a.root);
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
