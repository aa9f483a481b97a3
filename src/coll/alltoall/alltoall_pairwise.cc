// Pairwise-exchange alltoall. Step i = 1..n-1: rank r sends its block for (r + i) mod n
// and receives the block from (r - i) mod n. Each step is a permutation, so no rank
// receives two messages at once; steps are not synchronized with each other.
// MPI_IN_PLACE: blocks are swapped with one partner per step (exchangeInPlace), each
// block packed aside before its slot is overwritten.
//
// On a lossy network (transport::lossSeen(): this rank's connections retransmit) each of
// the n-1 steps can wait for a retransmission, one after the other: a rank that has seen
// loss posts every exchange at once instead (one round; at 2% loss on 8 emulated hosts
// the Alltoalls of bench/reliability took 2.2-3.2 s that way against 7.4 s in steps, 40
// iterations, drafts). The messages are the same (one per pair, the same tag), so each
// rank may choose alone: a rank in steps still receives in order what another sent at once.
#include <vector>

#include "base/log.h"
#include "coll/algorithms.h"
#include "coll/util.h"
#include "p2p/request.h"
#include "transport/tcp.h"

namespace ccmpi::coll {
namespace {

int allAtOnce(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype, void* recvbuf,
              int64_t recvcount, MPI_Datatype recvtype, comm::Comm& c) {
  const int n = c.size, r = c.rank;
  const datatype::Datatype& st = typeOf(sendtype);
  const datatype::Datatype& rt = typeOf(recvtype);
  if (log::verbosity() >= 3)
    log::debug("alltoall: pairwise with every exchange posted at once (loss seen)");
  std::vector<p2p::Request*> reqs;
  reqs.reserve(2 * static_cast<size_t>(n));
  int err = MPI_SUCCESS;
  for (int i = 1; i < n && !err; ++i) {
    const int from = (r - i + n) % n;
    p2p::Request* q = nullptr;
    err = p2p::irecv(elemAt(recvbuf, from * recvcount, rt), recvcount, recvtype, from, kTagAlltoall,
                     c, kCtx, &q);
    if (q) reqs.push_back(q);
  }
  for (int i = 1; i < n && !err; ++i) {
    const int to = (r + i) % n;
    p2p::Request* q = nullptr;
    err = p2p::isend(elemAt(sendbuf, to * sendcount, st), sendcount, sendtype, to, kTagAlltoall, c,
                     kCtx, p2p::SendMode::kStandard, &q);
    if (q) reqs.push_back(q);
  }
  const int werr = p2p::waitAll(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
  return err ? err : werr;
}

}  // namespace

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
  if (n > 2 && transport::lossSeen())
    return allAtOnce(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, c);
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
