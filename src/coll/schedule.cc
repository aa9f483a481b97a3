// The schedule engine (see schedule.h): building rounds, running them from the progress
// engine's hook, and the list of running schedules.
#include "coll/schedule.h"

#include <algorithm>
#include <utility>

#include "base/error.h"
#include "datatype/datatype.h"
#include "op/op.h"
#include "progress/engine.h"

namespace ccmpi::coll {
namespace {

// Running schedules. A schedule adds itself when it starts and removes itself when it
// finishes; the shared pointers keep it alive while it runs even if its request is freed.
// Never destroyed: a schedule still running at exit must not be torn down after the
// layers it uses.
std::vector<std::shared_ptr<Schedule>>& active() {
  static auto* list = new std::vector<std::shared_ptr<Schedule>>;
  return *list;
}

}  // namespace

int scheduleTag(uint64_t seq) {
  constexpr uint64_t kSpan = static_cast<uint64_t>(p2p::kTagUb) - kFirstScheduleTag + 1;
  return kFirstScheduleTag + static_cast<int>(seq % kSpan);
}

// A schedule holds a reference on its communicator for its lifetime; it counts as idle
// (comm::Comm::idleRefs) while it is not running.
Schedule::Schedule(comm::Comm& c, int tag) : comm_(c), tag_(tag) {
  ++comm_.refs;
  ++comm_.idleRefs;
}

Schedule::~Schedule() {
  for (p2p::Request* r : pending_) p2p::requestFree(r);
  for (p2p::Request* r : late_) p2p::requestFree(r);
  for (auto& [user, own] : types_) datatype::free(&own);
  for (MPI_Op o : ops_) op::release(o);
  --comm_.refs;
  if (!running_) --comm_.idleRefs;
}

// ---------- building ----------

MPI_Datatype Schedule::keep(MPI_Datatype t) {
  const datatype::Datatype* dt = datatype::lookup(t);
  if (!dt || dt->predefined()) return t;
  for (const auto& [user, own] : types_)
    if (user == t) return own;
  MPI_Datatype own = MPI_DATATYPE_NULL;
  if (int rc = datatype::dup(t, &own)) {
    if (!buildError_) buildError_ = rc;
    return t;
  }
  types_.emplace_back(t, own);
  return own;
}

void Schedule::add(Step s) {
  s.type = keep(s.type);
  s.rtype = keep(s.rtype);
  if (s.op != MPI_OP_NULL && std::find(ops_.begin(), ops_.end(), s.op) == ops_.end()) {
    op::retain(s.op);
    ops_.push_back(s.op);
  }
  steps_.push_back(std::move(s));
}

void Schedule::forEachStep(const std::function<void(size_t, const StepView&)>& fn) const {
  // Rounds start at rounds_[k]; steps after the last endRound() form one more.
  std::vector<size_t> starts = rounds_;
  if (roundStart_ < steps_.size()) starts.push_back(roundStart_);
  size_t round = 0;
  for (size_t i = 0; i < steps_.size(); ++i) {
    while (round + 1 < starts.size() && starts[round + 1] <= i) ++round;
    const Step& s = steps_[i];
    StepView v{s.kind,
               s.late,
               s.peer,
               0,
               s.after >= 0 ? static_cast<int>(static_cast<size_t>(s.after) - starts[round]) : -1,
               s.rail};
    if (s.kind == Step::Kind::kSend || s.kind == Step::Kind::kRecv || s.kind == Step::Kind::kCopy ||
        s.kind == Step::Kind::kReduce)
      v.bytes = dataBytes(s.count, s.type);
    fn(round, v);
  }
}

void Schedule::send(const void* buf, int64_t count, MPI_Datatype type, int peer, int rail,
                    int after) {
  Step s{Step::Kind::kSend};
  s.src = buf;
  s.count = count;
  s.type = type;
  s.peer = peer;
  s.rail = rail;
  checkAfter(after, false);
  s.after = after;
  add(std::move(s));
}

int Schedule::recv(void* buf, int64_t count, MPI_Datatype type, int peer) {
  Step s{Step::Kind::kRecv};
  s.dst = buf;
  s.count = count;
  s.type = type;
  s.peer = peer;
  add(std::move(s));
  return static_cast<int>(steps_.size() - 1);
}

// `after` must name a step of the round being built (a receive where `recvOnly`): any
// other could never be waited for.
void Schedule::checkAfter(int after, bool recvOnly) {
  if (after < 0 || buildError_) return;
  const size_t a = static_cast<size_t>(after);
  if (a < roundStart_ || a >= steps_.size() || (recvOnly && steps_[a].kind != Step::Kind::kRecv))
    buildError_ = MPI_ERR_INTERN;
}

void Schedule::recvLate(void* buf, int64_t count, MPI_Datatype type, int peer) {
  recv(buf, count, type, peer);
  steps_.back().late = true;
}

void Schedule::copy(const void* src, int64_t scount, MPI_Datatype stype, void* dst, int64_t rcount,
                    MPI_Datatype rtype) {
  Step s{Step::Kind::kCopy};
  s.src = src;
  s.count = scount;
  s.type = stype;
  s.dst = dst;
  s.rcount = rcount;
  s.rtype = rtype;
  add(std::move(s));
}

int Schedule::reduce(MPI_Op op, const void* in, void* inout, int64_t count, MPI_Datatype type,
                     int after) {
  if (count == 0) return -1;
  checkAfter(after, true);
  Step s{Step::Kind::kReduce};
  s.after = after;
  s.op = op;
  s.src = in;
  s.dst = inout;
  s.count = count;
  s.type = type;
  add(std::move(s));
  return static_cast<int>(steps_.size() - 1);
}

void Schedule::local(std::function<int()> fn) {
  Step s{Step::Kind::kLocal};
  s.fn = std::move(fn);
  add(std::move(s));
}

void Schedule::poll(PollFn fn, std::function<void()> abort) {
  Step s{Step::Kind::kPoll};
  s.pollFn = std::move(fn);
  s.abort = std::move(abort);
  add(std::move(s));
}

void Schedule::endRound() {
  if (steps_.size() > roundStart_) {
    rounds_.push_back(roundStart_);
    roundSkip_.push_back(std::move(pendingSkip_));
  }
  pendingSkip_ = nullptr;
  roundStart_ = steps_.size();
}

void* Schedule::temp(int64_t count, MPI_Datatype type) {
  if (count <= 0) return nullptr;
  auto t = std::make_unique<TempBuffer>();
  if (int rc = t->alloc(count, typeOf(type))) {
    if (!buildError_) buildError_ = rc;
    return nullptr;
  }
  void* p = t->get();
  temps_.push_back(std::move(t));
  return p;
}

// ---------- running ----------

int Schedule::start(p2p::Request* owner) {
  if (running_) return setErrorCause(MPI_ERR_REQUEST, "collective schedule is still running");
  endRound();
  owner_ = owner;
  next_ = 0;
  error_ = MPI_SUCCESS;
  pending_.clear();
  late_.clear();
  polls_.clear();
  waiting_.clear();
  stepReq_.clear();
  stepRan_.clear();
  firstPending_ = 0;
  running_ = true;
  --comm_.idleRefs;
  for (auto& fn : onStart_) fn();
  active().push_back(shared_from_this());
  static bool hooked = false;
  if (!hooked) {
    progress::engine().addHook(&Schedule::advanceAll);
    hooked = true;
  }
  advance();
  return MPI_SUCCESS;
}

int Schedule::post(const Step& s, p2p::Request** r) {
  switch (s.kind) {
    case Step::Kind::kSend:
      return s.rail >= 0
                 ? p2p::isendOnRail(s.src, s.count, s.type, s.peer, tag_, comm_, kCtx, s.rail, r)
                 : p2p::isend(s.src, s.count, s.type, s.peer, tag_, comm_, kCtx,
                              p2p::SendMode::kStandard, r);
    case Step::Kind::kRecv:
      return p2p::irecv(s.dst, s.count, s.type, s.peer, tag_, comm_, kCtx, r);
    default:
      return MPI_ERR_INTERN;
  }
}

void Schedule::runRound(size_t round) {
  const size_t first = rounds_[round];
  const size_t last = round + 1 < rounds_.size() ? rounds_[round + 1] : steps_.size();
  // The late receives of the previous round complete with this one.
  pending_.insert(pending_.end(), late_.begin(), late_.end());
  late_.clear();
  roundFirst_ = first;
  stepReq_.assign(last - first, nullptr);
  stepRan_.assign(last - first, 0);
  waiting_.clear();
  waitPeers_ = 0;
  waitReduces_ = 0;
  held_.clear();
  const bool lastRound = round + 1 == rounds_.size();
  for (size_t i = first; i < last && !error_; ++i) {
    const Step& s = steps_[i];
    int rc = MPI_SUCCESS;
    p2p::Request* r = nullptr;
    switch (s.kind) {
      case Step::Kind::kSend:
        if (s.after >= 0) {
          // Counted once per peer (held_ gathers them): postWaiting stops when all of them
          // are held.
          if (std::find(held_.begin(), held_.end(), s.peer) == held_.end()) {
            held_.push_back(s.peer);
            ++waitPeers_;
          }
          waiting_.push_back(i);
          continue;
        }
        rc = post(s, &r);
        break;
      case Step::Kind::kRecv:
        rc = post(s, &r);
        break;
      case Step::Kind::kCopy:
        rc = copyLocal(s.src, s.count, s.type, s.dst, s.rcount, s.rtype);
        break;
      case Step::Kind::kReduce:
        if (s.after >= 0) {
          ++waitReduces_;
          waiting_.push_back(i);
          continue;
        }
        rc = op::apply(s.op, s.src, s.dst, s.count, s.type);
        break;
      case Step::Kind::kLocal:
        rc = s.fn();
        break;
      case Step::Kind::kPoll: {
        bool done = false;
        rc = s.pollFn(&done);
        if (!done && rc == MPI_SUCCESS) polls_.push_back(i);
        break;
      }
    }
    stepRan_[i - first] = 1;
    if (r) (s.late && !lastRound ? late_ : pending_).push_back(r);
    stepReq_[i - first] = r;
    if (rc) error_ = rc;
  }
}

// Runs the waiting steps whose step has completed: reductions in step order, each send
// after the earlier waiting sends to its peer. True if any ran. Called on every advance
// while steps wait, so it allocates nothing and stops scanning once every peer and the
// reductions are held (a pipeline's list is hundreds of segments long; the ready ones are
// at its front).
bool Schedule::postWaiting() {
  bool ran = false;
  // Peers with an earlier send still waiting: a few (a pipeline's children).
  std::vector<int>& held = held_;
  held.clear();
  bool reduceHeld = false;  // an earlier reduction is still waiting
  size_t kept = 0, w = 0;
  for (; w < waiting_.size(); ++w) {
    if (held.size() == waitPeers_ && (reduceHeld || waitReduces_ == 0)) break;
    const size_t i = waiting_[w];
    const Step& s = steps_[i];
    const size_t d = static_cast<size_t>(s.after) - roundFirst_;
    const p2p::Request* dep = stepReq_[d];
    const bool depDone = dep ? dep->complete : stepRan_[d] != 0;
    const bool isSend = s.kind == Step::Kind::kSend;
    const bool wasHeld =
        isSend ? std::find(held.begin(), held.end(), s.peer) != held.end() : reduceHeld;
    if (error_ || !depDone || wasHeld) {
      if (isSend && !wasHeld) held.push_back(s.peer);
      if (!isSend) reduceHeld = true;
      waiting_[kept++] = i;
      continue;
    }
    if (!isSend) {
      if (int rc = op::apply(s.op, s.src, s.dst, s.count, s.type)) error_ = rc;
      stepRan_[i - roundFirst_] = 1;
      --waitReduces_;
      ran = true;
      continue;
    }
    p2p::Request* r = nullptr;
    if (int rc = post(s, &r)) {
      error_ = rc;
      waiting_[kept++] = i;
      continue;
    }
    pending_.push_back(r);
    stepReq_[i - roundFirst_] = r;
    stepRan_[i - roundFirst_] = 1;
    ran = true;
  }
  // The rest (not looked at) stays, in order.
  kept = static_cast<size_t>(std::copy(waiting_.begin() + static_cast<std::ptrdiff_t>(w),
                                       waiting_.end(),
                                       waiting_.begin() + static_cast<std::ptrdiff_t>(kept)) -
                             waiting_.begin());
  waiting_.resize(kept);
  return ran;
}

bool Schedule::advance() {
  if (!running_ || advancing_) return false;
  advancing_ = true;
  // Keeps this schedule alive even if finishing releases every other reference.
  std::shared_ptr<Schedule> self = shared_from_this();
  bool progressed = false;
  while (running_) {
    // After an error no round starts; receives still posted are withdrawn, polled
    // operations abandoned.
    if (error_) {
      pending_.insert(pending_.end(), late_.begin(), late_.end());
      late_.clear();
      for (size_t i = firstPending_; i < pending_.size(); ++i) p2p::cancel(pending_[i]);
      for (size_t i : polls_)
        if (steps_[i].abort) steps_[i].abort();
      polls_.clear();
      waiting_.clear();  // never posted: nothing to withdraw
    }
    bool failed = false;  // a step failed in this pass: withdraw the others first (above)
    for (size_t k = 0; k < polls_.size();) {
      bool done = false;
      const int rc = steps_[polls_[k]].pollFn(&done);
      if (rc != MPI_SUCCESS) {
        error_ = rc;
        failed = true;
        polls_.erase(polls_.begin() + static_cast<std::ptrdiff_t>(k));
        break;
      }
      if (done) {
        polls_.erase(polls_.begin() + static_cast<std::ptrdiff_t>(k));
        progressed = true;
      } else {
        ++k;
      }
    }
    if (!failed && !error_ && !waiting_.empty()) {
      progressed |= postWaiting();
      failed = error_ != MPI_SUCCESS;
    }
    if (failed) continue;
    while (firstPending_ < pending_.size() && pending_[firstPending_]->complete) ++firstPending_;
    if (firstPending_ < pending_.size() || !polls_.empty() || !waiting_.empty()) break;
    for (p2p::Request* r : pending_) {
      const int rc = p2p::wait(r, MPI_STATUS_IGNORE);  // complete: only releases
      if (rc && !error_) error_ = rc;
    }
    pending_.clear();
    stepReq_.clear();
    stepRan_.clear();
    firstPending_ = 0;
    while (!error_ && next_ < rounds_.size() && roundSkip_[next_] && roundSkip_[next_]()) ++next_;
    if (!error_ && next_ == rounds_.size() && !late_.empty()) {
      // Late receives of a round whose successors were all skipped.
      pending_.swap(late_);
      continue;
    }
    if (error_ || next_ == rounds_.size()) {
      finish();
      progressed = true;
      break;
    }
    runRound(next_++);
    progressed = true;
  }
  advancing_ = false;
  return progressed;
}

void Schedule::finish() {
  running_ = false;
  ++comm_.idleRefs;
  auto& list = active();
  auto it = std::find_if(list.begin(), list.end(),
                         [this](const std::shared_ptr<Schedule>& s) { return s.get() == this; });
  if (it != list.end()) list.erase(it);
  p2p::Request* owner = owner_;
  owner_ = nullptr;
  if (owner) {
    owner->error = error_;
    p2p::completeRequest(owner);
  }
}

bool Schedule::advanceAll() {
  auto& list = active();
  if (list.empty()) return false;
  bool progressed = false;
  // A copy: advancing may start or finish schedules.
  const std::vector<std::shared_ptr<Schedule>> running = list;
  for (const auto& s : running) progressed |= s->advance();
  return progressed;
}

}  // namespace ccmpi::coll
