// Hierarchical reduce (ranks on several hosts, some sharing one): every host reduces to
// its leader (shared memory within a host where the rules say so), the leaders reduce to
// the root's leader, and that leader hands the result to the root if the root is not it.
// One vector crosses each host's cable. A non-commutative op needs every host's ranks to
// be consecutive (hosts in rank order): declines otherwise, and with one rank per host or
// on one host.
#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/node/shm.h"
#include "coll/util.h"
#include "op/op.h"

namespace ccmpi::coll {

int reduceNode(const void* sendbuf, void* recvbuf, int64_t count, MPI_Datatype type, MPI_Op op,
               int root, comm::Comm& c) {
  node::Topology* t;
  comm::Comm *local, *leaders;
  if (int rc = node::hierBeginReduction(c, op, &t, &local, &leaders)) return rc;
  const int rootHost = t->hostOf[static_cast<size_t>(root)];
  const int localRoot = t->localOf[static_cast<size_t>(root)];
  const bool amRoot = c.rank == root;
  const void* in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  // The host's partial result: at the root when it leads, else in a temporary.
  TempBuffer tmp;
  void* acc = nullptr;
  if (t->isLeader()) {
    if (amRoot) {
      acc = recvbuf;
    } else {
      if (int rc = tmp.alloc(count, typeOf(type))) return rc;
      acc = tmp.get();
    }
    if (int rc = reduceSelect(in == acc ? MPI_IN_PLACE : in, acc, count, type, op, 0, *local))
      return rc;
    if (int rc = reduceSelect(leaders->rank == rootHost ? MPI_IN_PLACE : acc,
                              leaders->rank == rootHost ? acc : nullptr, count, type, op, rootHost,
                              *leaders))
      return rc;
  } else if (int rc = reduceSelect(in, nullptr, count, type, op, 0, *local)) {
    return rc;
  }
  if (t->myHost != rootHost || localRoot == 0) return MPI_SUCCESS;
  if (t->isLeader()) return p2p::send(acc, count, type, localRoot, kTagReduce, *local, kCtx);
  if (amRoot)
    return p2p::recv(recvbuf, count, type, 0, kTagReduce, *local, MPI_STATUS_IGNORE, kCtx);
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
