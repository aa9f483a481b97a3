// Hierarchical broadcast (ranks on several hosts, some sharing one): within the root's
// host from the root (so its leader has the message), then among the host leaders from
// the root's leader, then within every other host from its leader. Each phase picks its
// own algorithm (multicast or a tree among the leaders, shared memory within a host), and
// the message crosses each host's cable once. Declines with one rank per host or on one
// host.
#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/node/shm.h"

namespace ccmpi::coll {

int bcastNode(void* buf, int64_t count, MPI_Datatype type, int root, comm::Comm& c) {
  node::Topology* t;
  comm::Comm *local, *leaders;
  if (int rc = node::hierBegin(c, &t, &local, &leaders)) return rc;
  const int rootHost = t->hostOf[static_cast<size_t>(root)];
  if (t->myHost == rootHost)
    if (int rc = bcastSelect(buf, count, type, t->localOf[static_cast<size_t>(root)], *local))
      return rc;
  if (leaders)
    if (int rc = bcastSelect(buf, count, type, rootHost, *leaders)) return rc;
  if (t->myHost != rootHost) return bcastSelect(buf, count, type, 0, *local);
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
