// MPI_Exscan: the algorithm table and the entry point. Algorithms written as schedules
// (coll/nb_algorithms.h) serve here through viaSchedule: the plan is compiled and run to
// completion at once.
#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/nb_algorithms.h"
#include "coll/util.h"
#include "op/op.h"

namespace ccmpi::coll {
namespace {

template <ScheduleFn F>
int viaSchedule(const void* sendbuf, void* recvbuf, int64_t count, MPI_Datatype type, MPI_Op op,
                comm::Comm& c) {
  return runBlocking(makeExscanPlan(sendbuf, recvbuf, count, type, op, c, "exscan"), F);
}

const Algorithm<ScanFn> kAlgorithms[] = {
    {"recursive_doubling", "ceil(log2 n) exchanges of group partials; keeps rank order",
     exscanRecursiveDoubling, kAnySize},
    {"linear", "chain from rank 0 to rank n-1, n-1 sequential messages",
     viaSchedule<exscanLinearSchedule>, kAnySize},
};
AlgorithmTable gTable("exscan", "CCMPI_EXSCAN_ALGORITHM", kAlgorithms);

}  // namespace

int exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
           comm::Comm& c) {
  ++c.collSeq;
  if (count == 0 || c.size == 1) return MPI_SUCCESS;
  return gTable.run(SelectContext{c.size, op::isCommutative(op), dataBytes(count, type), &c},
                    sendbuf, recvbuf, static_cast<int64_t>(count), type, op, c);
}

}  // namespace ccmpi::coll
