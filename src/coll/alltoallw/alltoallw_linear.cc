// Linear alltoallw: every rank posts all its receives, then starts all its sends, and
// waits for everything; the local block is copied. Displacements are in bytes and each
// peer has its own datatypes. MPI_IN_PLACE: blocks are swapped with one partner per step
// (exchangeInPlace).
#include <vector>

#include "coll/algorithms.h"
#include "coll/util.h"
#include "p2p/request.h"

namespace ccmpi::coll {

int alltoallwLinear(const void* sendbuf, const int* sendcounts, const int* sdispls,
                    const MPI_Datatype* sendtypes, void* recvbuf, const int* recvcounts,
                    const int* rdispls, const MPI_Datatype* recvtypes, comm::Comm& c) {
  const int n = c.size, r = c.rank;
  if (sendbuf == MPI_IN_PLACE) {
    return exchangeInPlace(c, kTagAlltoallw, [&](int p) {
      return Block{byteAt(recvbuf, rdispls[p]), recvcounts[p], recvtypes[p]};
    });
  }
  std::vector<p2p::Request*> reqs;
  reqs.reserve(2 * n);
  int err = MPI_SUCCESS;
  for (int i = 1; i < n && !err; ++i) {
    const int from = (r - i + n) % n;
    if (dataBytes(recvcounts[from], recvtypes[from]) == 0) continue;
    p2p::Request* q = nullptr;
    err = p2p::irecv(byteAt(recvbuf, rdispls[from]), recvcounts[from], recvtypes[from], from,
                     kTagAlltoallw, c, kCtx, &q);
    if (q) reqs.push_back(q);
  }
  for (int i = 1; i < n && !err; ++i) {
    const int to = (r + i) % n;
    if (dataBytes(sendcounts[to], sendtypes[to]) == 0) continue;
    p2p::Request* q = nullptr;
    err = p2p::isend(byteAt(sendbuf, sdispls[to]), sendcounts[to], sendtypes[to], to, kTagAlltoallw,
                     c, kCtx, p2p::SendMode::kStandard, &q);
    if (q) reqs.push_back(q);
  }
  if (!err)
    err = copyLocal(byteAt(sendbuf, sdispls[r]), sendcounts[r], sendtypes[r],
                    byteAt(recvbuf, rdispls[r]), recvcounts[r], recvtypes[r]);
  const int werr = p2p::waitAll(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
  return err ? err : werr;
}

}  // namespace ccmpi::coll
