// Deferred phases: part of a schedule built only when the schedule reaches it, for
// algorithms whose message sizes travel in earlier rounds (the binomial gatherv and
// scatterv: inner tree ranks learn their subtrees' counts at run time).
//
// The outer schedule gets a round with a local step that builds the inner schedule (same
// communicator, same tag) and starts it, plus a zero-byte receive from this rank itself.
// When the inner schedule finishes (done or failed) its owner request's completion sends
// that zero-byte message, which ends the outer round; the next round's local step hands
// on the inner error. While the inner schedule runs, the outer one waits only on its
// self-receive, so the two never compete for a message: all messages between two ranks
// keep the order both sides issue them in. A persistent plan builds a new inner schedule
// at every start.
#include <memory>

#include "coll/nb_algorithms.h"

namespace ccmpi::coll {

void addDeferredPhase(Schedule& s, std::function<void(Schedule& inner)> build) {
  struct State {
    std::shared_ptr<Schedule> inner;
    int error = MPI_SUCCESS;
  };
  auto st = std::make_shared<State>();
  comm::Comm* c = &s.comm();
  const int tag = s.tag(), self = s.rank();
  s.endRound();
  s.local([st, c, tag, self, build = std::move(build)]() {
    st->error = MPI_SUCCESS;
    st->inner = std::make_shared<Schedule>(*c, tag);
    build(*st->inner);
    if (int rc = st->inner->buildError()) return rc;  // the self-receive is never posted
    p2p::Request* owner = p2p::newRequest(p2p::Request::Kind::kOther);
    owner->freeOnComplete = true;
    owner->onComplete = [st, c, tag, self](p2p::Request* r) {
      st->error = r->error;
      p2p::Request* signal = nullptr;
      const int rc =
          p2p::isend(nullptr, 0, MPI_BYTE, self, tag, *c, kCtx, p2p::SendMode::kStandard, &signal);
      if (rc && !st->error) st->error = rc;
      if (signal) p2p::requestFree(signal);
    };
    if (int rc = st->inner->start(owner)) {
      owner->onComplete = nullptr;
      p2p::releaseRequest(owner);
      return rc;
    }
    return MPI_SUCCESS;
  });
  s.recv(nullptr, 0, MPI_BYTE, self);
  s.endRound();
  s.local([st]() { return st->error; });
  s.endRound();
}

}  // namespace ccmpi::coll
