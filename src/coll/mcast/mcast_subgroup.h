#pragma once
// One-to-many multicast for Scatterv with a group of only the ranks that receive data
// (CC-MPI §4.1): the dynamic scheme (a group created and destroyed around one call) and
// the compiler-assisted scheme (MPIX_Scatterv_open_group / _data_movement / _close_group,
// a group created once for many calls).
//
// Opening (collective over the communicator): the root multicasts the block sizes to the
// communicator's static group; the ranks with a non-empty block (the members) join a
// group address of the pool under a fresh context id and tell the root, which waits for
// all of them; the others are done. Data movement (root and members only): the root
// multicasts the members' blocks as one aggregate, each member keeps its own and
// acknowledges to the root. Closing: members leave the group (local).
//
// Where multicast does not work on the communicator, the sizes go by TCP (a binomial
// broadcast) and data movement sends each member its block by TCP: the MPIX calls work
// everywhere, only without multicast.
#include <netinet/in.h>

#include <cstdint>
#include <vector>

#include "comm/comm.h"

namespace ccmpi::coll {

struct McastSubgroup {
  comm::Comm* comm = nullptr;
  int root = 0;
  std::vector<uint64_t> sizes;  // bytes of each comm rank's block
  std::vector<int> members;     // comm ranks with a block, the root excluded
  bool member = false;          // this rank is a member
  bool mcast = false;           // multicast (else TCP fallback)
  in_addr_t group = 0;
  uint32_t context = 0;
  uint64_t seq = 0;
  bool open = false;
};

// Collective over c. sizesAtRoot (significant at the root only): bytes per comm rank.
int subgroupOpen(comm::Comm& c, int root, const uint64_t* sizesAtRoot, McastSubgroup* s);
// Root: `aggregate` holds the members' blocks in rank order (sizes[members[i]] bytes
// each). Members: their block goes to `mine` (sizes[rank] bytes). Others: nothing to do.
int subgroupScatter(McastSubgroup& s, const void* aggregate, void* mine);
// Leaves the group (local).
void subgroupClose(McastSubgroup& s);

}  // namespace ccmpi::coll
