#pragma once
// Multicast collectives as schedules: the building blocks of the nonblocking
// (MPI_Ibcast, MPI_Iscatterv) and persistent (MPI_Bcast_init, MPI_Scatterv_init)
// multicast algorithms.
//
// An operation's schedule starts with a round that waits for the communicator's
// agreement on multicast (mcast_coll.h); the first multicast operation started on a
// communicator also starts that agreement, as a schedule of its own, from its start
// (MPI_Start or the MPI_I... call), so no initiation waits for another rank. Every start
// takes the operation's number on the context its datagrams use, in start order, which
// every rank shares. A message round then delivers the bytes: by the transport's paced
// multicast and NAK repair where the agreement found that multicast works, else by
// unicast from the root to each receiver (the same rounds on every rank either way, so
// the acknowledgement rounds that follow match up). Pacing and repair deadlines are
// progress-engine wake-ups, not waits: other MPI calls and other schedules go on.
#include <netinet/in.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "coll/mcast/mcast_coll.h"
#include "coll/schedule.h"
#include "comm/comm.h"

namespace ccmpi::coll {

// One multicast operation of a plan: where its datagrams go and its number for this start.
struct McastOp {
  std::shared_ptr<McastGroup> agreed;  // the communicator's agreement
  in_addr_t group = 0;
  uint32_t context = 0;
  uint64_t seq = 0;
  // Draws seq when the operation starts (default: the communicator's counter, shared by
  // every multicast operation on it).
  std::function<uint64_t()> nextSeq;
  bool mcast() const { return agreed->works(); }
};

// Adds the start-up (agreement, numbering) and the round that waits for the agreement's
// outcome. group/context default to the communicator's static group.
std::shared_ptr<McastOp> appendMcastStart(Schedule& s, comm::Comm& c);

// One message from comm rank `root` to `receivers` (comm ranks). The buffers are read when
// the message's round runs, so earlier rounds may set them.
struct McastMsg {
  int root = 0;
  uint16_t sub = 1;
  const void* send = nullptr;  // root: `bytes` bytes
  void* recv = nullptr;        // receivers: `bytes` bytes
  uint64_t bytes = 0;
  std::vector<int> receivers;
  // Unicast fallback: the (offset, length) of the message each receiver needs (root: per
  // receiver, in the order of `receivers`; receiver: its own, one entry). Empty: all.
  std::vector<std::pair<uint64_t, uint64_t>> parts;
};

// Appends a round delivering *m (this rank is its root or one of its receivers).
void appendMcastMessage(Schedule& s, const std::shared_ptr<McastOp>& op,
                        const std::shared_ptr<McastMsg>& m);
// Appends the end of the operation's (last) message: receivers acknowledge it to the root
// and mark the operation's number stale; the root is done once the transport took the
// message over (a copy, up to CCMPI_MCAST_EAGER bytes) or every acknowledgement is in.
// Nothing to do where the message went by TCP.
void appendMcastDone(Schedule& s, const std::shared_ptr<McastOp>& op,
                     const std::shared_ptr<McastMsg>& m);

}  // namespace ccmpi::coll
