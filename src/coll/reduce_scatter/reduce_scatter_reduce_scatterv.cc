// Reduce_scatter as a reduction of the whole vector (sum of recvcounts) to rank 0
// followed by a scatterv of recvcounts[i] elements to rank i, each with the selected
// algorithm of its own collective. Correct for any op; the simple fallback.
#include <cstdint>
#include <vector>

#include "base/error.h"
#include "coll/algorithms.h"
#include "coll/util.h"

namespace ccmpi::coll {

int reduceScatterReduceScatterv(const void* sendbuf, void* recvbuf, const int* recvcounts,
                                MPI_Datatype type, MPI_Op op, comm::Comm& c) {
  const int n = c.size;
  std::vector<int> displs(n);
  int64_t total = 0;
  for (int i = 0; i < n; ++i) {
    displs[i] = static_cast<int>(total);
    total += recvcounts[i];
  }
  if (total == 0) return MPI_SUCCESS;
  if (total > INT32_MAX)
    return setErrorCause(MPI_ERR_COUNT, "reduce_scatter of %lld elements in total",
                         static_cast<long long>(total));
  const void* in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  TempBuffer result;
  if (c.rank == 0) {
    if (int rc = result.alloc(total, typeOf(type))) return rc;
  }
  if (int rc = reduceSelect(in, result.get(), total, type, op, 0, c)) return rc;
  return scattervSelect(result.get(), recvcounts, displs.data(), type, recvbuf, recvcounts[c.rank],
                        type, 0, c);
}

}  // namespace ccmpi::coll
