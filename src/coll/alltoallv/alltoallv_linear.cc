// Linear alltoallv: every rank posts all its receives, then starts all its sends, and
// waits for everything; the local block is copied. Empty blocks move no message (sender
// and receiver agree on sizes by the standard's matching rule). MPI_IN_PLACE: blocks are
// swapped with one partner per step (exchangeInPlace).
#include <vector>

#include "coll/algorithms.h"
#include "coll/util.h"
#include "p2p/request.h"

namespace ccmpi::coll {

int alltoallvLinear(const void* sendbuf, const int* sendcounts, const int* sdispls,
                    MPI_Datatype sendtype, void* recvbuf, const int* recvcounts, const int* rdispls,
                    MPI_Datatype recvtype, comm::Comm& c) {
  const int n = c.size, r = c.rank;
  const datatype::Datatype& rt = typeOf(recvtype);
  if (sendbuf == MPI_IN_PLACE) {
    return exchangeInPlace(c, kTagAlltoallv, [&](int p) {
      return Block{elemAt(recvbuf, rdispls[p], rt), recvcounts[p], recvtype};
    });
  }
  const datatype::Datatype& st = typeOf(sendtype);
  std::vector<p2p::Request*> reqs;
  reqs.reserve(2 * n);
  int err = MPI_SUCCESS;
  for (int i = 1; i < n && !err; ++i) {
    const int from = (r - i + n) % n;
    if (dataBytes(recvcounts[from], recvtype) == 0) continue;
    p2p::Request* q = nullptr;
    err = p2p::irecv(elemAt(recvbuf, rdispls[from], rt), recvcounts[from], recvtype, from,
                     kTagAlltoallv, c, kCtx, &q);
    if (q) reqs.push_back(q);
  }
  for (int i = 1; i < n && !err; ++i) {
    const int to = (r + i) % n;
    if (dataBytes(sendcounts[to], sendtype) == 0) continue;
    p2p::Request* q = nullptr;
    err = p2p::isend(elemAt(sendbuf, sdispls[to], st), sendcounts[to], sendtype, to, kTagAlltoallv,
                     c, kCtx, p2p::SendMode::kStandard, &q);
    if (q) reqs.push_back(q);
  }
  if (!err)
    err = copyLocal(elemAt(sendbuf, sdispls[r], st), sendcounts[r], sendtype,
                    elemAt(recvbuf, rdispls[r], rt), recvcounts[r], recvtype);
  const int werr = p2p::waitAll(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
  return err ? err : werr;
}

}  // namespace ccmpi::coll
