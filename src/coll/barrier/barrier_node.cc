// Hierarchical barrier (ranks on several hosts, some sharing one): a barrier among the
// ranks of each host, one among the host leaders, and a second one on each host that
// releases its ranks once their leader is back. Each phase picks its own algorithm
// (the shm barrier within a host). Declines with one rank per host or on one host.
#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/coll.h"
#include "coll/node/shm.h"

namespace ccmpi::coll {

int barrierNode(comm::Comm& c) {
  node::Topology* t;
  comm::Comm *local, *leaders;
  if (int rc = node::hierBegin(c, &t, &local, &leaders)) return rc;
  if (int rc = barrier(*local)) return rc;
  if (leaders)
    if (int rc = barrier(*leaders)) return rc;
  return barrier(*local);
}

}  // namespace ccmpi::coll
