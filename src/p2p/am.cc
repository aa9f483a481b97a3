// Active messages (see am.h): a registry of handlers, the kAm frame out, and its delivery
// straight to the handler on arrival.
#include "p2p/am.h"

#include <mpi.h>

#include <deque>
#include <vector>

#include "base/error.h"
#include "p2p/engine.h"
#include "progress/engine.h"

namespace ccmpi::p2p {
namespace {

struct Entry {
  AmHandler fn = nullptr;
  void* state = nullptr;
  comm::Comm* comm = nullptr;  // holds a reference until amShutdown
};

std::vector<Entry> gHandlers;
// The payload of the kAm frame being received from each peer (a connection delivers one
// frame at a time; shared memory and TCP never interleave frames of one peer either).
std::vector<std::vector<unsigned char>> gStaging;
uint64_t gHandled = 0;

// Messages a rank sends itself run from the progress engine too (a hook), never inside
// MPIX_Am_send: a handler that sends to its own rank does not recurse.
struct SelfMessage {
  int handler;
  uint64_t word;
  std::vector<unsigned char> payload;
};
std::deque<SelfMessage> gSelf;

void run(int peer, const transport::FrameHeader& h, const void* payload, size_t len) {
  const Entry& e = gHandlers[static_cast<size_t>(h.tag)];
  ++gHandled;
  e.fn(e.comm->peerRankOfWorld(peer), h.a, payload, len, e.state);
}

bool runSelf() {
  if (gSelf.empty()) return false;
  // Only those queued before this turn: a handler that sends to itself again waits for the
  // next one.
  for (size_t n = gSelf.size(); n > 0 && !gSelf.empty(); --n) {
    SelfMessage m = std::move(gSelf.front());
    gSelf.pop_front();
    const Entry& e = gHandlers[static_cast<size_t>(m.handler)];
    ++gHandled;
    e.fn(e.comm->rank, m.word, m.payload.data(), m.payload.size(), e.state);
  }
  return true;
}

}  // namespace

int amRegister(comm::Comm& c, AmHandler fn, void* state, int* id) {
  if (gHandlers.size() >= static_cast<size_t>(transport::kAmMaxHandlers))
    return setErrorCause(MPI_ERR_OTHER, "all %d active-message handler ids are taken",
                         transport::kAmMaxHandlers);
  ++c.refs;
  gHandlers.push_back(Entry{fn, state, &c});
  *id = static_cast<int>(gHandlers.size()) - 1;
  return MPI_SUCCESS;
}

int amSend(const comm::Comm& c, int dest, int id, uint64_t word, const void* payload, size_t len) {
  if (id < 0 || id >= static_cast<int>(gHandlers.size()) ||
      gHandlers[static_cast<size_t>(id)].comm->contextId != c.contextId)
    return setErrorCause(MPI_ERR_ARG,
                         "active-message handler %d is not registered on this communicator", id);
  if (len > amMaxPayload())
    return setErrorCause(MPI_ERR_COUNT,
                         "an active message carries at most %zu bytes (CCMPI_EAGER_LIMIT), not %zu",
                         amMaxPayload(), len);
  const int world = c.peerWorldRank(dest);
  if (!c.isInter() && dest == c.rank) {
    const auto* p = static_cast<const unsigned char*>(payload);
    gSelf.push_back(SelfMessage{id, word, std::vector<unsigned char>(p, p + len)});
    progress::engine().addHook(runSelf);
    return MPI_SUCCESS;
  }
  sendActiveMessage(world, c.contextId, id, word, payload, len);
  return MPI_SUCCESS;
}

size_t amMaxPayload() {
  return static_cast<size_t>(eagerLimit());
}

uint64_t amHandled() {
  return gHandled;
}

void amShutdown() {
  for (Entry& e : gHandlers) --e.comm->refs;
  gHandlers.clear();
  gStaging.clear();
  gSelf.clear();
  comm::sweepFreed();
}

int amFrame(int peer, const transport::FrameHeader& h, transport::PayloadTarget* t) {
  if (h.tag < 0 || h.tag >= static_cast<int>(gHandlers.size()))
    return setErrorCause(MPI_ERR_INTERN,
                         "active message from rank %d for handler %d, which is not registered "
                         "here (%zu are): every rank must register the same handlers in the "
                         "same order",
                         peer, h.tag, gHandlers.size());
  if (gHandlers[static_cast<size_t>(h.tag)].comm->contextId != h.context)
    return setErrorCause(MPI_ERR_INTERN,
                         "active message from rank %d for handler %d on another communicator "
                         "than it is registered on here",
                         peer, h.tag);
  if (h.payloadLen == 0) {
    run(peer, h, nullptr, 0);
    return MPI_SUCCESS;
  }
  if (gStaging.size() <= static_cast<size_t>(peer)) gStaging.resize(static_cast<size_t>(peer) + 1);
  std::vector<unsigned char>& buf = gStaging[static_cast<size_t>(peer)];
  if (buf.size() < h.payloadLen) buf.resize(h.payloadLen);
  t->dest = buf.data();
  t->keep = h.payloadLen;
  return MPI_SUCCESS;
}

void amPayload(int peer, const transport::FrameHeader& h, const transport::PayloadTarget& t) {
  // The handler may send (and so poll nothing) but not receive: the staging buffer stays
  // valid while it runs.
  run(peer, h, t.dest, t.keep);
}

}  // namespace ccmpi::p2p
