// Hierarchical allreduce (ranks on several hosts, some sharing one): every host reduces
// to its leader, the leaders allreduce among themselves (any algorithm the selector picks
// for them: the vector crosses each host's cable as often as that algorithm sends it for
// one rank, not once per rank of the host), and every leader broadcasts the result to its
// host. Within a host both steps use shared memory where the rules say so. A
// non-commutative op needs every host's ranks to be consecutive: declines otherwise, and
// with one rank per host or on one host.
#include <climits>

#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/coll.h"
#include "coll/node/shm.h"
#include "coll/util.h"
#include "op/op.h"

namespace ccmpi::coll {

int allreduceNode(const void* sendbuf, void* recvbuf, int64_t count, MPI_Datatype type, MPI_Op op,
                  comm::Comm& c) {
  if (count > INT_MAX) return kDecline;
  node::Topology* t;
  comm::Comm *local, *leaders;
  if (int rc = node::hierBeginReduction(c, op, &t, &local, &leaders)) return rc;
  const bool inPlace = sendbuf == MPI_IN_PLACE;
  if (t->isLeader()) {
    if (int rc = reduceSelect(sendbuf, recvbuf, count, type, op, 0, *local)) return rc;
    if (int rc = allreduce(MPI_IN_PLACE, recvbuf, static_cast<int>(count), type, op, *leaders))
      return rc;
  } else if (int rc =
                 reduceSelect(inPlace ? recvbuf : sendbuf, nullptr, count, type, op, 0, *local)) {
    return rc;
  }
  return bcastSelect(recvbuf, count, type, 0, *local);
}

}  // namespace ccmpi::coll
