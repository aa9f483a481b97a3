// Ring allgather. Every rank first puts its own block into its slot of recvbuf; then in
// step i = 0..n-2 it sends block (r - i) to the right neighbour and receives block
// (r - i - 1) from the left one, forwarding what it got in the previous step. n-1 steps,
// each moving one block per link, all links busy at once: bandwidth-optimal on a switch.
#include "coll/algorithms.h"
#include "coll/util.h"

namespace ccmpi::coll {

int allgatherRing(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int64_t recvcount, MPI_Datatype recvtype, comm::Comm& c) {
  const int n = c.size, r = c.rank;
  const datatype::Datatype& rt = typeOf(recvtype);
  auto block = [&](int i) { return elemAt(recvbuf, i * recvcount, rt); };
  if (sendbuf != MPI_IN_PLACE) {
    if (int rc = copyLocal(sendbuf, sendcount, sendtype, block(r), recvcount, recvtype)) return rc;
  }
  if (dataBytes(recvcount, recvtype) == 0) return MPI_SUCCESS;
  const int right = (r + 1) % n, left = (r - 1 + n) % n;
  for (int i = 0; i < n - 1; ++i) {
    const int out = (r - i + n) % n, in = (r - i - 1 + n) % n;
    if (int rc =
            p2p::sendrecv(block(out), recvcount, recvtype, right, kTagAllgather, block(in),
                          recvcount, recvtype, left, kTagAllgather, c, MPI_STATUS_IGNORE, kCtx))
      return rc;
  }
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
