#pragma once
// Multicast collectives' common part: the communicator's multicast group (static group
// management: one group per communicator, joined at its first multicast collective and
// left when the communicator goes), the agreement that multicast works on it, the
// acknowledgement tree, and one reliable multicast message.
//
// Agreement (first multicast operation on a communicator): every rank joins the group;
// an allreduce (dissemination, logical AND) tells whether all could; then comm rank 0
// multicasts a probe and every rank reports whether the probe came by multicast (not
// only by repair), in a second AND. If either fails, a log line says why and every
// multicast algorithm declines on that communicator from then on, so the selector falls
// through to a unicast algorithm, consistently on all ranks. A blocking collective runs
// the agreement inline; a nonblocking or persistent one (whose initiation must not wait
// for other ranks) starts it as a schedule of its own when the operation starts, and its
// steps wait for the outcome (mcast_sched.h). A blocking collective that finds that
// schedule running waits for it.
//
// Lanes (transport/mcast.h): with several rails, the probe goes on every lane (the job's
// rails, coll::jobRails, at most kMcastMaxLanes), and the lanes that reached every rank by
// multicast, counted from lane 0 without a gap, are the communicator's: its messages'
// datagrams take all of them at once.
//
// Completion: a receiver returns as soon as it has the message, and acknowledges it to
// the root (transport/mcast.h). The root of a message of at most CCMPI_MCAST_EAGER bytes
// returns as soon as its datagrams are out (the transport keeps a copy for repairs until
// every acknowledgement is in); the root of a larger one waits for the acknowledgements,
// since repairs come from its buffer. The agreement's probe acknowledges up a binomial
// tree of zero-byte TCP messages instead.
#include <netinet/in.h>

#include <cstdint>
#include <memory>

#include "comm/comm.h"
#include "transport/mcast.h"

namespace ccmpi::coll {

class Schedule;

struct McastGroup {
  enum class State : uint8_t { kUnknown, kAgreeing, kOn, kOff };
  State state = State::kUnknown;
  in_addr_t group = 0;
  uint32_t context = 0;
  bool joined = false;  // this rank holds a join and a subscription of the group
  // The next multicast operation's number on this communicator: taken when an operation
  // starts (every rank starts its collectives in the same order, so numbers agree).
  uint64_t seq = 0;
  // This incarnation of the communicator's multicast: the largest of the members' random
  // numbers, agreed with the join (transport::McastKey::epoch).
  uint32_t epoch = 0;
  // Lanes every member receives by multicast (the agreement's probe), 1 .. kMcastMaxLanes.
  uint8_t lanes = 1;
  transport::McastLanes laneSet() const { return {0, lanes}; }
  std::shared_ptr<Schedule> agreement;  // the nonblocking agreement while it runs
  uint64_t groupPlans = 0;              // plans with a group of their own made on the communicator
  bool works() const { return state == State::kOn; }
  bool decided() const { return state == State::kOn || state == State::kOff; }
  ~McastGroup();
};

// The communicator's group after agreement, or nullptr when multicast does not work on
// it (every rank gets the same answer). May communicate: runs the agreement (first
// multicast operation), or waits for a nonblocking agreement that is running.
McastGroup* mcastGroup(comm::Comm& c);

// The communicator's group record, created without communicating (state kUnknown).
std::shared_ptr<McastGroup> mcastGroupRecord(comm::Comm& c);
// A nonblocking or persistent multicast operation starts: if no agreement ran on the
// communicator yet, start it as a schedule tagged `tag` (the starting operation's tag).
void mcastAgreeStart(comm::Comm& c, McastGroup& g, int tag);

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
