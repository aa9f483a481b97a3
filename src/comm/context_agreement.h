#pragma once
// Nonblocking context-id agreement: the members of a communicator agree on a context id
// for a new communicator without blocking (MPI_Comm_idup), progressing inside the
// progress engine. The blocking constructors use it too (start, then wait), so that every
// agreement of a process follows the same rules.
//
// An attempt has two phases, each a persistent nonblocking allreduce (MPI_BAND) over the
// members, created once at the start of the agreement (so the agreement takes exactly two
// collective sequence numbers of the communicator, at the call, whatever the number of
// attempts):
//   1. every member contributes its free-id bitmap minus the ids tentatively reserved by
//      its other agreements in flight; the lowest id of the AND is the candidate (the same
//      on every member);
//   2. a member that will belong to the new communicator tentatively reserves the
//      candidate if it is still free and not tentatively reserved by another agreement of
//      this process, and contributes 1 if it could (a member that will not belong
//      contributes 1: an id needs to be unique only among the communicators of a process);
//      if the AND is 1 everywhere the tentative reservations become real, otherwise they
//      are dropped and a new attempt starts.
// Concurrent agreements of one process (several idups outstanding on one or different
// communicators, an idup overlapped by a blocking constructor) therefore never take the
// same id: only the agreement holding the tentative reservation of an id can commit it,
// and no agreement waits for another to finish (no lock is held across communication), so
// an outstanding idup never blocks other communicator constructors. Two agreements racing
// for the same candidate on two processes both retry, with fresh bitmaps.
// A blocking agreement (the blocking constructors) with no other agreement in flight on
// its process is "quiet": nothing can start there before it ends. When phase 1 finds every
// member quiet (a word ANDed along), the candidate is taken at once without phase 2.
// Phase 1 also ANDs a word saying "this member holds no tentative reservation": an empty
// AND when it is all ones means no id is free on every member (MPI_ERR_INTERN on all
// members alike); otherwise the attempt is repeated. Callers may add words of their own
// to phase 1 (MPI_Comm_create_from_group checks the string tags that way).
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "comm/comm.h"

namespace ccmpi::p2p {
struct Request;
}

namespace ccmpi::comm {

class ContextAgreement : public std::enable_shared_from_this<ContextAgreement> {
 public:
  // Called once when the agreement ends: MPI_SUCCESS (the id is reserved if `reserve`)
  // or an MPI error class with the cause recorded.
  using Done = std::function<void(int rc, uint32_t ctx)>;
  // Checks the AND of the callers' extra words after phase 1 (every member sees the same
  // words): an error class ends the agreement on every member.
  using Check = std::function<int(const uint64_t* extra)>;

  // Starts agreeing over the members of `over` (a collective call on it). `reserve`:
  // this process will be a member of the new communicator. Returns an error class if the
  // agreement could not start (then `done` is never called).
  static int start(Comm& over, bool reserve, std::vector<uint64_t> extra, Check check, Done done);
  // Blocking form: waits for the agreement; *ctx receives the id.
  static int agree(Comm& over, bool reserve, std::vector<uint64_t> extra, Check check,
                   uint32_t* ctx);
  // Advances every agreement in flight (progress engine hook).
  static bool advanceAll();

  ~ContextAgreement();
  ContextAgreement(const ContextAgreement&) = delete;
  ContextAgreement& operator=(const ContextAgreement&) = delete;

 private:
  ContextAgreement() = default;
  static int startImpl(Comm& over, bool reserve, bool blocking, std::vector<uint64_t> extra,
                       Check check, Done done);
  int startPhase1();
  // Does what can be done now; true if something happened.
  bool advance();
  void finish(int rc);

  Comm* over_ = nullptr;
  bool reserve_ = false;
  bool blocking_ = false;  // agree(): nothing else can start here until it ends
  std::vector<uint64_t> extra_;
  Check check_;
  Done done_;
  std::vector<uint64_t> buf1_;  // free mask, "no tentative" word, extra words
  uint64_t buf2_ = 0;           // phase 2 vote
  p2p::Request* req1_ = nullptr;
  p2p::Request* req2_ = nullptr;
  int phase_ = 0;  // 1 or 2 while in flight, 0 when finished
  int64_t candidate_ = -1;
  bool tentative_ = false;  // this agreement holds the tentative reservation of candidate_
  bool advancing_ = false;
};

}  // namespace ccmpi::comm
