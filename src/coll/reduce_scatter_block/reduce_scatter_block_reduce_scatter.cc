// Reduce_scatter_block as a reduction of the whole n*recvcount vector to rank 0 followed
// by a scatter of recvcount elements to each rank, each with the selected algorithm of its
// own collective. Correct for any op (the reduction keeps rank order); moves the whole
// vector through rank 0, so it is the simple fallback, not the fast path for long vectors.
#include "coll/algorithms.h"
#include "coll/util.h"

namespace ccmpi::coll {

int reduceScatterBlockReduceScatter(const void* sendbuf, void* recvbuf, int64_t recvcount,
                                    MPI_Datatype type, MPI_Op op, comm::Comm& c) {
  const int64_t total = recvcount * c.size;
  const void* in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  TempBuffer result;
  if (c.rank == 0) {
    if (int rc = result.alloc(total, typeOf(type))) return rc;
  }
  if (int rc = reduceSelect(in, result.get(), total, type, op, 0, c)) return rc;
  return scatterSelect(result.get(), recvcount, type, recvbuf, recvcount, type, 0, c);
}

}  // namespace ccmpi::coll
