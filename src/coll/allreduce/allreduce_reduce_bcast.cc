// Allreduce as a reduction to rank 0 followed by a broadcast from rank 0, each with the
// selected algorithm of its own collective. Two trees, 2*ceil(log2 n) rounds; correct
// for any op because the reduction keeps rank order when the op is not commutative.
#include "coll/algorithms.h"
#include "coll/util.h"

namespace ccmpi::coll {

int allreduceReduceBcast(const void* sendbuf, void* recvbuf, int64_t count, MPI_Datatype type,
                         MPI_Op op, comm::Comm& c) {
  // In place on every rank: rank 0 reduces in place; the others' input is recvbuf.
  const void* in = sendbuf;
  if (sendbuf == MPI_IN_PLACE && c.rank != 0) in = recvbuf;
  if (int rc = reduceSelect(in, recvbuf, count, type, op, 0, c)) return rc;
  return bcastSelect(recvbuf, count, type, 0, c);
}

}  // namespace ccmpi::coll
