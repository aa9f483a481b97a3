// Multicast broadcast as a schedule (MPI_Ibcast, MPI_Bcast_init): the nonblocking form of
// bcast_mcast.cc. Rounds: wait for the communicator's multicast agreement (started by the
// first multicast operation on it); the root packs a non-contiguous buffer; one paced
// multicast of the whole buffer to the communicator's group, repaired by NAK, or TCP sends
// from the root where multicast does not work; receivers acknowledge to the root (which
// completes once they all did, or at once for a message the transport copied) and
// unpack. A persistent request
// replays these rounds at every MPI_Start, each start a new message number on the group.
#include "coll/mcast/mcast_sched.h"
#include "coll/nb_algorithms.h"
#include "coll/util.h"
#include "datatype/datatype.h"

namespace ccmpi::coll {

int ibcastMcast(Plan& p) {
  Schedule& s = *p.schedule;
  const CollArgs& a = p.args;
  const datatype::Datatype& dt = typeOf(a.recvtype);
  const int64_t bytes = dataBytes(a.recvcount, a.recvtype);
  p.algorithm = "mcast";
  auto op = appendMcastStart(s, p.comm);
  auto m = std::make_shared<McastMsg>();
  m->root = a.root;
  m->bytes = static_cast<uint64_t>(bytes);
  for (int r = 0; r < s.size(); ++r)
    if (r != a.root) m->receivers.push_back(r);
  const bool root = s.rank() == a.root;
  unsigned char* data;
  if (dt.contiguous()) {
    data = static_cast<unsigned char*>(a.recvbuf) + dt.trueLb();
  } else {
    data = static_cast<unsigned char*>(s.tempBytes(bytes));
    if (root) {
      s.copy(a.recvbuf, a.recvcount, a.recvtype, data, bytes, MPI_BYTE);
      s.endRound();
    }
  }
  m->send = data;
  m->recv = data;
  appendMcastMessage(s, op, m);
  appendMcastDone(s, op, m);
  if (!root && !dt.contiguous()) {
    s.copy(data, bytes, MPI_BYTE, a.recvbuf, a.recvcount, a.recvtype);
    s.endRound();
  }
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
