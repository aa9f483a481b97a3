#pragma once
// What the shared-memory ("shm") algorithms share: the segment of a one-host
// communicator (made on first use, coll/node/segment.h) and the node-aware algorithms'
// entry conditions.
#include <cstdint>

#include "coll/node/segment.h"
#include "coll/node/topology.h"
#include "comm/comm.h"

namespace ccmpi::coll::node {

// The segment of c when c spans one host with 2 or more ranks and shared memory works;
// nullptr otherwise (the caller declines: the same answer on every rank). *rc is set when
// communication failed (the caller returns it). `slotBytes` is the slot size the call
// would like (every rank must ask alike): the segment is made, or made again larger, up
// to CCMPI_NODE_SHM_SLOT per slot, so a communicator that only synchronises holds a few
// pages and one that moves large messages a few MiB.
Segment* shmSegment(comm::Comm& c, int* rc, size_t slotBytes = 0);

// The topology of c when the hierarchical algorithms apply (2 or more hosts, some host
// with 2 or more ranks, not while the node communicators are being built); nullptr
// otherwise (decline). *rc as above.
Topology* hierTopology(comm::Comm& c, int* rc);

// hierTopology and the node communicators in one step: MPI_SUCCESS with *t, *node and
// *leaders (nullptr unless I lead my host) set; kDecline; or an error.
int hierBegin(comm::Comm& c, Topology** t, comm::Comm** node, comm::Comm** leaders);
// hierBegin for a reduction with `op`: a non-commutative op (3 or more ranks) declines
// unless every host's ranks are consecutive (the reduction order stays rank order).
int hierBeginReduction(comm::Comm& c, MPI_Op op, Topology** t, comm::Comm** node,
                       comm::Comm** leaders);

// A datatype whose `count` elements are `count * size` dense bytes from the buffer
// address (what the shm reductions need to apply the op to slices in the segment).
bool denseType(MPI_Datatype type);

}  // namespace ccmpi::coll::node
