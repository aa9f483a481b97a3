// Plans (see plan.h): creation, and the requests that run them once (nonblocking) or at
// every MPI_Start (persistent).
#include "coll/plan.h"

#include "coll/algorithm.h"
#include "p2p/p2p.h"

#include <utility>

namespace ccmpi::coll {
namespace {

// The request of one run of a plan: completed by the schedule when its last round is
// done; waiting on it advances the schedule.
p2p::Request* runRequest(const std::shared_ptr<Plan>& plan) {
  p2p::Request* r = p2p::newRequest(p2p::Request::Kind::kOther);
  r->comm = &plan->comm;
  ++plan->comm.refs;
  r->poll = [plan](p2p::Request*) { plan->schedule->advance(); };
  return r;
}

}  // namespace

Plan::Plan(comm::Comm& c, const char* coll)
    : comm(c),
      collective(coll),
      seq(++c.collSeq),
      schedule(std::make_shared<Schedule>(c, scheduleTag(seq))) {}

int launch(std::shared_ptr<Plan> plan, int built, Mode mode, p2p::Request** out) {
  *out = nullptr;
  if (built) return built;
  if (int rc = plan->schedule->buildError()) return rc;
  if (mode == Mode::kNonblocking) {
    p2p::Request* r = runRequest(plan);
    if (int rc = plan->schedule->start(r)) {
      p2p::releaseRequest(r);
      return rc;
    }
    *out = r;
    return MPI_SUCCESS;
  }
  p2p::Request* p = p2p::newRequest(p2p::Request::Kind::kPersistentColl);
  p->comm = &plan->comm;
  ++plan->comm.refs;
  p->phase = p2p::Request::Phase::kIdle;
  p->complete = true;  // inactive
  p2p::markIdle(p);
  p->startHook = [plan](p2p::Request* self) {
    p2p::Request* r = runRequest(plan);
    if (int rc = plan->schedule->start(r)) {
      p2p::releaseRequest(r);
      return rc;
    }
    self->active = r;
    self->complete = false;
    return MPI_SUCCESS;
  };
  *out = p;
  return MPI_SUCCESS;
}

int runBlocking(std::shared_ptr<Plan> plan, ScheduleFn fn) {
  const int built = fn(*plan);
  if (built == kDecline) return kDecline;
  p2p::Request* r = nullptr;
  if (int rc = launch(std::move(plan), built, Mode::kNonblocking, &r)) return rc;
  return p2p::wait(r, MPI_STATUS_IGNORE);
}

}  // namespace ccmpi::coll
