// MPI_Scan: the algorithm table and the entry point.
#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/util.h"
#include "op/op.h"

namespace ccmpi::coll {
namespace {

const Algorithm<ScanFn> kAlgorithms[] = {
    {"recursive_doubling", "ceil(log2 n) exchanges of group partials; keeps rank order",
     scanRecursiveDoubling, kAnySize},
    {"linear", "chain from rank 0 to rank n-1, n-1 sequential messages", scanLinear, kAnySize},
};
AlgorithmTable gTable("scan", "CCMPI_SCAN_ALGORITHM", kAlgorithms);

}  // namespace

int scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
         comm::Comm& c) {
  ++c.collSeq;
  if (count == 0) return MPI_SUCCESS;
  if (c.size == 1) {
    if (sendbuf == MPI_IN_PLACE) return MPI_SUCCESS;
    return copyLocal(sendbuf, count, type, recvbuf, count, type);
  }
  return gTable.run(SelectContext{c.size, op::isCommutative(op), dataBytes(count, type), &c},
                    sendbuf, recvbuf, static_cast<int64_t>(count), type, op, c);
}

}  // namespace ccmpi::coll
