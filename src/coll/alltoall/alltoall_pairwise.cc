// Pairwise-exchange alltoall. Step i = 1..n-1: rank r sends its block for (r + i) mod n
// and receives the block from (r - i) mod n. Each step is a permutation, so no rank
// receives two messages at once; steps are not synchronized with each other.
// MPI_IN_PLACE: blocks are swapped with one partner per step (exchangeInPlace), each
// block packed aside before its slot is overwritten.
#include "coll/algorithms.h"
#include "coll/util.h"

namespace ccmpi::coll {

int alltoallPairwise(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype, void* recvbuf,
                     int64_t recvcount, MPI_Datatype recvtype, comm::Comm& c) {
  const int n = c.size, r = c.rank;
  const datatype::Datatype& rt = typeOf(recvtype);
  if (sendbuf == MPI_IN_PLACE) {
    return exchangeInPlace(c, kTagAlltoall, [&](int p) {
      return Block{elemAt(recvbuf, p * recvcount, rt), recvcount, recvtype};
    });
  }
  const datatype::Datatype& st = typeOf(sendtype);
  if (int rc = copyLocal(elemAt(sendbuf, r * sendcount, st), sendcount, sendtype,
                         elemAt(recvbuf, r * recvcount, rt), recvcount, recvtype))
    return rc;
  if (dataBytes(recvcount, recvtype) == 0) return MPI_SUCCESS;
  for (int i = 1; i < n; ++i) {
    const int to = (r + i) % n, from = (r - i + n) % n;
    if (int rc = p2p::sendrecv(elemAt(sendbuf, to * sendcount, st), sendcount, sendtype, to,
                               kTagAlltoall, elemAt(recvbuf, from * recvcount, rt), recvcount,
                               recvtype, from, kTagAlltoall, c, MPI_STATUS_IGNORE, kCtx))
      return rc;
  }
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
