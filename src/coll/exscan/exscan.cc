// MPI_Exscan: the algorithm table and the entry point.
#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/util.h"
#include "op/op.h"

namespace ccmpi::coll {
namespace {

const Algorithm<ScanFn> kAlgorithms[] = {
    {"recursive_doubling", "ceil(log2 n) exchanges of group partials; keeps rank order",
     exscanRecursiveDoubling, kAnySize},
};
AlgorithmTable gTable("exscan", "CCMPI_EXSCAN_ALGORITHM", kAlgorithms);

}  // namespace

int exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
           comm::Comm& c) {
  ++c.collSeq;
  if (count == 0 || c.size == 1) return MPI_SUCCESS;
  return gTable.run(SelectContext{c.size, op::isCommutative(op)}, sendbuf, recvbuf,
                    static_cast<int64_t>(count), type, op, c);
}

}  // namespace ccmpi::coll
