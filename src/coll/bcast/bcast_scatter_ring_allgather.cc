// Scatter + ring allgather broadcast (van de Geijn): the buffer's B bytes are cut into n
// blocks and scattered down a binomial tree (addBcastScatterBytes), then n-1 ring steps
// rebuild the whole buffer everywhere: at step i rank v sends block v-i to v+1 and
// receives block v-i-1 from v-1 (all steps in one round, each block forwarded once in). Cost:
// ceil(log2 n) + n - 1 rounds, about 2B bytes sent per rank, each only to a neighbour: long
// messages on any communicator size. Derived types: packed into / unpacked from a temporary;
// buffers of fewer than n bytes leave some blocks empty (no message). Any size.
#include <algorithm>

#include "coll/nb_algorithms.h"

namespace ccmpi::coll {

int bcastScatterRingAllgatherSchedule(Plan& p) {
  p.algorithm = "scatter_ring_allgather";
  Schedule& s = *p.schedule;
  const CollArgs& a = p.args;
  const int n = s.size();
  const int v = (s.rank() - a.root + n) % n;
  const int64_t total = dataBytes(a.recvcount, a.recvtype);
  const int64_t chunk = (total + n - 1) / n;
  unsigned char* bytes = addBcastPackBytes(s, a.recvbuf, a.recvcount, a.recvtype, a.root);
  addBcastScatterBytes(s, bytes, total, chunk, a.root);
  auto at = [&](int64_t i) { return std::min(total, i * chunk); };
  const int right = (s.rank() + 1) % n, left = (s.rank() - 1 + n) % n;
  // One round: each block received is sent on to the right as soon as it is in (the block
  // sent at step i is the one received at step i-1), so the ring's steps flow rather than
  // wait for each other's slowest rank.
  int got = -1;  // the receive of the block this step sends on (none at step 0)
  for (int i = 0; i < n - 1; ++i) {
    const int64_t out = ((v - i) % n + n) % n, in = ((v - i - 1) % n + n) % n;
    const int64_t inOff = at(in), inLen = at(in + 1) - inOff;
    const int64_t outOff = at(out), outLen = at(out + 1) - outOff;
    const int prev = got;
    got = inLen > 0 ? s.recv(bytes + inOff, inLen, MPI_BYTE, left) : -1;
    if (outLen > 0) s.send(bytes + outOff, outLen, MPI_BYTE, right, -1, prev);
  }
  s.endRound();
  addBcastUnpackBytes(s, bytes, a.recvbuf, a.recvcount, a.recvtype, a.root);
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
