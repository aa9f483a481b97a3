#pragma once
// Multicast collectives' common part: the communicator's multicast group (static group
// management: one group per communicator, joined at its first multicast collective and
// left when the communicator goes), the agreement that multicast works on it, the
// acknowledgement tree, and one reliable multicast message.
//
// Agreement (first multicast collective on a communicator): every rank joins the group;
// an allreduce (dissemination, logical AND) tells whether all could; then comm rank 0
// multicasts a probe and every rank reports whether the probe came by multicast (not
// only by repair), in a second AND. If either fails, a log line says why and every
// multicast algorithm declines on that communicator from then on, so the selector falls
// through to a unicast algorithm, consistently on all ranks.
//
// Completion: after a multicast message, the ranks acknowledge up a binomial tree
// rooted at the sender (zero-byte TCP messages): the root learns that everyone has the
// message from its ceil(log2 n) children, not from n-1 ACKs, and may then reuse its
// buffer. Ranks not in the tree's path to the root return as soon as they acknowledged.
#include <netinet/in.h>

#include <cstdint>

#include "comm/comm.h"
#include "transport/mcast.h"

namespace ccmpi::coll {

struct McastGroup {
  in_addr_t group = 0;
  uint32_t context = 0;
  bool works = false;
  uint64_t seq = 0;  // multicast operations on this communicator (same on every rank)
  ~McastGroup();
};

// The communicator's group after agreement, or nullptr when multicast does not work on
// it (every rank gets the same answer). May communicate (first call only).
McastGroup* mcastGroup(comm::Comm& c);

// One multicast message of `bytes` from comm rank `root` to every other rank of the
// communicator, acknowledged up the tree. Every rank calls it with the same bytes.
// `sendData` (root) / `recvData` (others) are contiguous buffers.
int mcastMessage(McastGroup& g, comm::Comm& c, int root, const void* sendData, void* recvData,
                 uint64_t bytes, uint16_t sub);

// The parts of mcastMessage, for collectives that send several messages and acknowledge
// once at the end (allgather): key of comm rank root's message `sub` of this operation.
transport::McastKey mcastKey(const McastGroup& g, comm::Comm& c, int root, uint16_t sub);
// Every rank has everything (dissemination barrier over TCP): the senders may retire.
int mcastAllDone(comm::Comm& c);

// Ends one multicast collective: its datagrams are stale from now on.
void mcastRetire(McastGroup& g);

}  // namespace ccmpi::coll
