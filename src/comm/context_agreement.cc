// Nonblocking context-id agreement (see context_agreement.h).
#include "comm/context_agreement.h"

#include <algorithm>
#include <string>

#include "base/error.h"
#include "coll/coll_nb.h"
#include "comm/internal.h"
#include "p2p/request.h"
#include "progress/engine.h"

namespace ccmpi::comm {
namespace {

// Agreements in flight; never destroyed (one still running at exit must not be torn down
// after the layers it uses).
std::vector<std::shared_ptr<ContextAgreement>>& running() {
  static auto* list = new std::vector<std::shared_ptr<ContextAgreement>>;
  return *list;
}

// Ids tentatively reserved by this process's agreements between their two phases.
std::vector<uint32_t>& tentative() {
  static auto* ids = new std::vector<uint32_t>;
  return *ids;
}

bool isTentative(uint32_t id) {
  const auto& t = tentative();
  return std::find(t.begin(), t.end(), id) != t.end();
}

void dropTentative(uint32_t id) {
  auto& t = tentative();
  auto it = std::find(t.begin(), t.end(), id);
  if (it != t.end()) t.erase(it);
}

// Starts one run of a persistent allreduce (nullptr: a single member, nothing to do).
int startRun(p2p::Request* r) {
  return r ? p2p::start(r) : MPI_SUCCESS;
}

// True once the run of r is over (*rc its result); releases the run.
bool runDone(p2p::Request* r, int* rc) {
  *rc = MPI_SUCCESS;
  if (!r) return true;
  p2p::Request* run = r->active;
  if (!run) return true;
  if (!run->complete) {
    if (run->poll) run->poll(run);
    if (!run->complete) return false;
  }
  *rc = run->error;
  r->active = nullptr;
  p2p::releaseRequest(run);
  return true;
}

constexpr uint64_t kAll = ~uint64_t{0};
// Phase 1 words after the free mask: "no tentative reservation here", "quiet here" (see
// ContextAgreement::startPhase1), then the callers' extra words.
constexpr size_t kNoTentativeWord = ContextIdPool::kWords;
constexpr size_t kQuietWord = ContextIdPool::kWords + 1;
constexpr size_t kExtraWord = ContextIdPool::kWords + 2;

}  // namespace

int ContextAgreement::start(Comm& over, bool reserve, std::vector<uint64_t> extra, Check check,
                            Done done) {
  return startImpl(over, reserve, false, std::move(extra), std::move(check), std::move(done));
}

int ContextAgreement::startImpl(Comm& over, bool reserve, bool blocking,
                                std::vector<uint64_t> extra, Check check, Done done) {
  sweepFreed();
  std::shared_ptr<ContextAgreement> a(new ContextAgreement);
  a->over_ = &over;
  a->reserve_ = reserve;
  a->extra_ = std::move(extra);
  a->check_ = std::move(check);
  a->done_ = std::move(done);
  a->blocking_ = blocking;
  a->buf1_.assign(kExtraWord + a->extra_.size(), 0);
  if (over.size > 1) {
    // Both persistent allreduces are created now: the agreement's place among the
    // collective calls on `over` is the call, whatever the number of attempts.
    if (int rc = coll::iallreduce(MPI_IN_PLACE, a->buf1_.data(), static_cast<int>(a->buf1_.size()),
                                  MPI_UINT64_T, MPI_BAND, over, coll::Mode::kPersistent, &a->req1_))
      return rc;
    if (int rc = coll::iallreduce(MPI_IN_PLACE, &a->buf2_, 1, MPI_UINT64_T, MPI_BAND, over,
                                  coll::Mode::kPersistent, &a->req2_))
      return rc;
  }
  if (int rc = a->startPhase1()) return rc;
  running().push_back(a);
  static bool hooked = false;
  if (!hooked) {
    progress::engine().addHook(&ContextAgreement::advanceAll);
    hooked = true;
  }
  a->advance();
  return MPI_SUCCESS;
}

int ContextAgreement::agree(Comm& over, bool reserve, std::vector<uint64_t> extra, Check check,
                            uint32_t* ctx) {
  bool finished = false;
  int result = MPI_SUCCESS;
  std::string cause;
  if (int rc = startImpl(over, reserve, true, std::move(extra), std::move(check),
                         [&](int rc, uint32_t id) {
                           finished = true;
                           result = rc;
                           *ctx = id;
                           if (rc) cause = lastErrorCause();
                         }))
    return rc;
  progress::engine().waitUntil([&] {
    if (!finished) advanceAll();
    return finished;
  });
  if (result) return setErrorCause(result, "%s", cause.c_str());
  return MPI_SUCCESS;
}

ContextAgreement::~ContextAgreement() {
  if (tentative_) dropTentative(static_cast<uint32_t>(candidate_));
  for (p2p::Request* r : {req1_, req2_}) {
    if (!r) continue;
    if (r->active) p2p::requestFree(r->active);
    r->active = nullptr;
    p2p::releaseRequest(r);
  }
}

int ContextAgreement::startPhase1() {
  const ContextIdPool& pool = contextPool();
  std::copy(pool.freeMask().begin(), pool.freeMask().end(), buf1_.begin());
  for (uint32_t id : tentative()) {
    const uint32_t slot = id / 2;
    buf1_[slot / 64] &= ~(uint64_t{1} << (slot % 64));
  }
  buf1_[kNoTentativeWord] = tentative().empty() ? kAll : 0;
  // Quiet: a blocking agreement with no other agreement in flight here. No agreement can
  // start here until it returns, so when every member is quiet nobody can take the
  // candidate in between and phase 2 is skipped (one allreduce, like the old blocking
  // constructors).
  size_t others = 0;
  for (const auto& a : running()) others += a.get() != this;
  buf1_[kQuietWord] = blocking_ && others == 0 && tentative().empty() ? kAll : 0;
  std::copy(extra_.begin(), extra_.end(), buf1_.begin() + kExtraWord);
  phase_ = 1;
  return startRun(req1_);
}

bool ContextAgreement::advance() {
  if (phase_ == 0 || advancing_) return false;
  advancing_ = true;
  std::shared_ptr<ContextAgreement> self = shared_from_this();
  bool progressed = false;
  while (phase_ != 0) {
    int rc = MPI_SUCCESS;
    if (phase_ == 1) {
      if (!runDone(req1_, &rc)) break;
      progressed = true;
      if (rc) {
        finish(rc);
        break;
      }
      if (check_) {
        if (int crc = check_(buf1_.data() + kExtraWord)) {
          finish(crc);
          break;
        }
      }
      candidate_ = ContextIdPool::lowestFree(buf1_.data());
      if (candidate_ < 0) {
        if (buf1_[kNoTentativeWord] == kAll) {
          const ContextIdPool& pool = contextPool();
          finish(setErrorCause(MPI_ERR_INTERN,
                               "no context id is free on every member (%d communicators in use "
                               "here; free some with MPI_Comm_free)",
                               ContextIdPool::kSlots - pool.freeCount()));
          break;
        }
        // Some member's free ids are all tentatively reserved: try again.
        if ((rc = startPhase1())) finish(rc);
        continue;
      }
      const uint32_t id = static_cast<uint32_t>(candidate_);
      if (buf1_[kQuietWord] == kAll) {
        if (reserve_ && !contextPool().reserve(id)) {
          finish(setErrorCause(MPI_ERR_INTERN, "agreed context id %u is not free here", id));
          break;
        }
        finish(MPI_SUCCESS);
        break;
      }
      bool ok = true;
      if (reserve_) {
        ok = contextPool().isFree(id) && !isTentative(id);
        if (ok) {
          tentative().push_back(id);
          tentative_ = true;
        }
      }
      buf2_ = ok ? kAll : 0;
      phase_ = 2;
      if ((rc = startRun(req2_))) finish(rc);
      continue;
    }
    if (!runDone(req2_, &rc)) break;
    progressed = true;
    if (rc) {
      finish(rc);
      break;
    }
    const uint32_t id = static_cast<uint32_t>(candidate_);
    if (tentative_) {
      dropTentative(id);
      tentative_ = false;
    }
    if (buf2_ == kAll) {
      if (reserve_ && !contextPool().reserve(id)) {
        finish(setErrorCause(MPI_ERR_INTERN, "agreed context id %u is not free here", id));
        break;
      }
      finish(MPI_SUCCESS);
      break;
    }
    if ((rc = startPhase1())) finish(rc);
  }
  advancing_ = false;
  return progressed;
}

void ContextAgreement::finish(int rc) {
  phase_ = 0;
  if (tentative_) {
    dropTentative(static_cast<uint32_t>(candidate_));
    tentative_ = false;
  }
  auto& list = running();
  auto it =
      std::find_if(list.begin(), list.end(), [this](const auto& a) { return a.get() == this; });
  std::shared_ptr<ContextAgreement> self;
  if (it != list.end()) {
    self = *it;
    list.erase(it);
  }
  Done done = std::move(done_);
  done_ = nullptr;
  if (done) done(rc, rc ? 0 : static_cast<uint32_t>(candidate_));
}

bool ContextAgreement::advanceAll() {
  auto& list = running();
  if (list.empty()) return false;
  const std::vector<std::shared_ptr<ContextAgreement>> now = list;
  bool progressed = false;
  for (const auto& a : now) progressed |= a->advance();
  return progressed;
}

}  // namespace ccmpi::comm
