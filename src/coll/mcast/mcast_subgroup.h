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
// broadcast) and the caller moves the data by TCP (MPIX_Scatterv_data_movement sends each
// member its block, as a linear Scatterv): the MPIX calls work everywhere, only without
// multicast. (The dynamic scheme declines there.)
//
// Data by TCP on purpose (compiler-assisted groups, CCMPI_MPIX_SCATTERV_DATA=auto): every
// member needs bytes of its own, so multicast cannot take bytes off the root's cable as it
// does for a broadcast; it saves packets when blocks are smaller than a datagram, and costs
// more header per byte (UDP, the transport's header and MAC, the end-of-message mark) for
// large ones. The group opened for such sizes decides from the block sizes, which every
// rank knows after the opening, and sends each member its block by TCP when that puts
// fewer bytes on the root's cable; members then join no address.
#include <netinet/in.h>

#include <cstdint>
#include <vector>

#include "comm/comm.h"
#include "mpi.h"
#include "transport/mcast.h"

namespace ccmpi::coll {

struct McastSubgroup {
  comm::Comm* comm = nullptr;
  int root = 0;
  std::vector<uint64_t> sizes;  // bytes of each comm rank's block
  std::vector<int> members;     // comm ranks with a block, the root excluded
  bool member = false;          // this rank is a member
  bool mcast = false;           // multicast works on the communicator
  bool tcpData = false;         // data by TCP although multicast works (the cheaper way)
  in_addr_t group = 0;
  uint32_t context = 0;
  uint64_t seq = 0;
  uint32_t epoch = 0;           // the communicator's epoch and this subgroup's number (McastKey)
  transport::McastLanes lanes;  // the communicator's (McastGroup::laneSet)
  bool open = false;
};

// Collective over c. sizesAtRoot (significant at the root only): bytes per comm rank.
// chooseTransport: the data may go by TCP where that is cheaper (compiler-assisted
// groups; the dynamic scheme, an algorithm chosen or forced as multicast, always
// multicasts).
int subgroupOpen(comm::Comm& c, int root, const uint64_t* sizesAtRoot, McastSubgroup* s,
                 bool chooseTransport = false);
// The multicast data movement (s.mcast and not s.tcpData; the caller moves the data by TCP
// otherwise). Root: `aggregate` holds the members' blocks in rank order (sizes[members[i]]
// bytes each); the transport may take it as its copy for repairs (it is left empty then).
// Members: their block (sizes[rank] bytes, which the receive must hold) is unpacked into
// recvbuf. Others: nothing to do.
int subgroupScatter(McastSubgroup& s, std::vector<unsigned char>* aggregate, void* recvbuf,
                    int64_t recvcount, MPI_Datatype recvtype);
// Leaves the group (local).
void subgroupClose(McastSubgroup& s);

}  // namespace ccmpi::coll
