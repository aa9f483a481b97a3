// Active messages (see am.h): a registry of handlers, the kAm frame out, and its delivery
// straight to the handler on arrival.
#include "p2p/am.h"

#include <mpi.h>

#include <deque>
#include <vector>

#include "base/error.h"
#include "base/log.h"
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

// Messages that wait for the progress engine (a hook): those a rank sends itself (never
// run inside MPIX_Am_send, so a handler that sends to its own rank does not recurse), and
// those that arrived before this rank registered their handler (ranks register in their
// own time), until it does. Messages for one handler stay in order.
struct Deferred {
  int handler;
  uint32_t context;
  int peer;  // world rank of the sender
  uint64_t word;
  std::vector<unsigned char> payload;
};
std::deque<Deferred> gDeferred;
std::vector<size_t> gDeferredOf;  // deferred messages per handler id

InternalAmHandler gInternal[transport::kAmInternalHandlers] = {};

bool internal(int id) {
  return id < 0;
}
InternalAmHandler internalHandler(int id) {
  return id < 0 && id >= -transport::kAmInternalHandlers ? gInternal[-id - 1] : nullptr;
}

bool registered(int id) {
  if (internal(id)) return internalHandler(id) != nullptr;
  return id >= 0 && id < static_cast<int>(gHandlers.size());
}

// Messages for this id wait behind earlier ones (internal handlers never wait).
bool waiting(int id) {
  return !internal(id) && static_cast<size_t>(id) < gDeferredOf.size() &&
         gDeferredOf[static_cast<size_t>(id)] > 0;
}

void defer(int id, uint32_t context, int peer, uint64_t word, const void* payload, size_t len) {
  const auto* p = static_cast<const unsigned char*>(payload);
  gDeferred.push_back(Deferred{id, context, peer, word, std::vector<unsigned char>(p, p + len)});
  if (internal(id)) return;
  if (gDeferredOf.size() <= static_cast<size_t>(id))
    gDeferredOf.resize(static_cast<size_t>(id) + 1);
  ++gDeferredOf[static_cast<size_t>(id)];
}

int contextError(int peer, int id) {
  return setErrorCause(MPI_ERR_INTERN,
                       "active message from rank %d for handler %d on another communicator "
                       "than it is registered on here",
                       peer, id);
}

void run(int id, uint32_t context, int peer, uint64_t word, const void* payload, size_t len) {
  if (internal(id)) {
    ++gHandled;
    internalHandler(id)(context, peer, word, payload, len);
    return;
  }
  const Entry& e = gHandlers[static_cast<size_t>(id)];
  ++gHandled;
  e.fn(e.comm->peerRankOfWorld(peer), word, payload, len, e.state);
}

bool runDeferred() {
  if (gDeferred.empty()) return false;
  bool ran = false;
  // Only those deferred before this turn: what a handler sends itself waits for the next.
  const size_t n = gDeferred.size();
  std::deque<Deferred> keep;
  for (size_t i = 0; i < n; ++i) {
    Deferred m = std::move(gDeferred.front());
    gDeferred.pop_front();
    if (!registered(m.handler)) {
      keep.push_back(std::move(m));
      continue;
    }
    if (!internal(m.handler)) {
      --gDeferredOf[static_cast<size_t>(m.handler)];
      if (gHandlers[static_cast<size_t>(m.handler)].comm->contextId != m.context) {
        contextError(m.peer, m.handler);
        log::fatal("%s", lastErrorCause().c_str());
      }
    }
    run(m.handler, m.context, m.peer, m.word, m.payload.data(), m.payload.size());
    ran = true;
  }
  // Those still waiting go before what handlers deferred meanwhile.
  while (!keep.empty()) {
    gDeferred.push_front(std::move(keep.back()));
    keep.pop_back();
  }
  return ran;
}

}  // namespace

int amRegister(comm::Comm& c, AmHandler fn, void* state, int* id) {
  if (gHandlers.size() >= static_cast<size_t>(transport::kAmMaxHandlers))
    return setErrorCause(MPI_ERR_OTHER, "all %d active-message handler ids are taken",
                         transport::kAmMaxHandlers);
  ++c.refs;
  gHandlers.push_back(Entry{fn, state, &c});
  *id = static_cast<int>(gHandlers.size()) - 1;
  // Messages that came before the registration run at the next progress turn.
  if (!gDeferred.empty()) progress::engine().addHook(runDeferred);
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
    defer(id, c.contextId, world, word, payload, len);
    progress::engine().addHook(runDeferred);
    return MPI_SUCCESS;
  }
  sendActiveMessage(world, c.contextId, id, word, payload, len);
  return MPI_SUCCESS;
}

void amSetInternal(InternalAm slot, InternalAmHandler fn) {
  gInternal[static_cast<int>(slot)] = fn;
}

void amSendInternal(const comm::Comm& c, int dest, InternalAm slot, uint64_t word,
                    const void* payload, size_t len) {
  const int id = -1 - static_cast<int>(slot);
  const int world = c.peerWorldRank(dest);
  if (!c.isInter() && dest == c.rank) {
    defer(id, c.contextId, world, word, payload, len);
    progress::engine().addHook(runDeferred);
    return;
  }
  sendActiveMessage(world, c.contextId, id, word, payload, len);
}

size_t amMaxPayload() {
  return static_cast<size_t>(eagerLimit());
}

uint64_t amHandled() {
  return gHandled;
}

void amShutdown() {
  for (const Deferred& m : gDeferred)
    log::warn(
        "an active message from rank %d for handler %d was never run: no handler %d was "
        "registered here",
        m.peer, m.handler, m.handler);
  for (Entry& e : gHandlers) --e.comm->refs;
  gHandlers.clear();
  gStaging.clear();
  gDeferred.clear();
  gDeferredOf.clear();
  comm::sweepFreed();
}

int amFrame(int peer, const transport::FrameHeader& h, transport::PayloadTarget* t) {
  const int id = h.tag;
  const bool later = !registered(id) || waiting(id);
  if (!later && !internal(id) && gHandlers[static_cast<size_t>(id)].comm->contextId != h.context)
    return contextError(peer, id);
  if (h.payloadLen == 0) {
    if (later) {
      defer(id, h.context, peer, h.a, nullptr, 0);
      progress::engine().addHook(runDeferred);
    } else {
      run(id, h.context, peer, h.a, nullptr, 0);
    }
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
  const int id = h.tag;
  if (!registered(id) || waiting(id)) {
    defer(id, h.context, peer, h.a, t.dest, t.keep);
    progress::engine().addHook(runDeferred);
    return;
  }
  run(id, h.context, peer, h.a, t.dest, t.keep);
}

}  // namespace ccmpi::p2p
