#pragma once
// Schedules: how nonblocking and persistent collectives run without a thread.
//
// A schedule is a list of rounds built once by an algorithm; a round is a list of steps:
// sends and receives (p2p on the communicator's collective context, all with the
// schedule's tag), local operations (copy between typed buffers, reduce with an op, or
// any function) and polled operations (a function called on every advance until it says
// done: a multicast message being paced out or awaited). Running a round executes its
// steps in order: local operations at once, communication posted without waiting. The
// next round starts when every request and polled operation of the current one has
// completed, so a step may use anything earlier rounds received or sent. Within a round, a
// send or a reduction may wait for a receive of the same round (`after`): a pipeline is
// then one round whose segments flow through a rank as they come, with no rank in step
// with another. Temporary
// buffers belong to the schedule and live as long as it does.
//
// Running schedules sit on a list that the progress engine advances on every poll (a
// hook), so a collective progresses inside any MPI call that drives progress (MPI_Test,
// MPI_Wait, MPI_Probe, a blocking send ...), not only while its own request is waited on.
// When the last round completes, the schedule completes its owner request.
//
// A schedule can be started again once it is done (persistent collectives replay the
// schedule their plan compiled at MPI_<Coll>_init): the steps keep their buffers and
// peers; only the requests are new.
//
// Matching: every rank runs the same algorithm with the same tag, so for each pair of
// ranks the sends of one and the receives of the other are issued in the same order and
// p2p's non-overtaking rule pairs them up. Collectives outstanding at once on one
// communicator differ by tag (scheduleTag). Zero-byte messages are never skipped by the
// schedule: an algorithm that skips one must do so on both sides.
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "coll/util.h"
#include "comm/comm.h"
#include "p2p/request.h"

namespace ccmpi::coll {

// Tags of the schedules: one per collective call, from the communicator's collective
// sequence number (all ranks number their collective calls alike), in
// [kFirstScheduleTag, p2p::kTagUb]. The blocking algorithms' fixed tags (coll/util.h)
// lie below, so no schedule ever matches a blocking collective's message either. Two
// collectives outstanding at once collide only if 2^30 - 64 collective calls on the
// same communicator lie between them.
constexpr int kFirstScheduleTag = 64;
static_assert(kTagEnd <= kFirstScheduleTag, "blocking collective tags must stay below");
int scheduleTag(uint64_t seq);

class Schedule : public std::enable_shared_from_this<Schedule> {
 public:
  Schedule(comm::Comm& c, int tag);
  ~Schedule();
  Schedule(const Schedule&) = delete;
  Schedule& operator=(const Schedule&) = delete;

  comm::Comm& comm() const { return comm_; }
  int rank() const { return comm_.rank; }
  int size() const { return comm_.size; }
  int tag() const { return tag_; }

  // ---- building ----
  // rail >= 0: the message's data goes on that rail of the host (p2p::isendOnRail), where
  // it joins the two ranks (rail 0: whole on rail 0, not striped); otherwise (-1) the
  // ordinary way.
  //
  // after >= 0 (a step of the same round, as recv() or reduce() returned it): the send is
  // posted only once that step has completed, not when the round starts, and the round
  // waits for it too. Such sends keep their order per peer: one is posted only when every
  // earlier send of the round to the same peer has been. A pipeline is then one round: each
  // segment is forwarded as soon as it is in, while the next ones are on their way,
  // rather than one segment per round with every rank in step (a round's handshakes then
  // overlap the data, and one slow edge does not stall the whole tree's round).
  void send(const void* buf, int64_t count, MPI_Datatype type, int peer, int rail = -1,
            int after = -1);
  // Returns the step's index, for a later step's `after`.
  int recv(void* buf, int64_t count, MPI_Datatype type, int peer);
  // A receive posted in this round but awaited only at the end of the next one (phased
  // exchanges post the receive, then tell the sender they are ready, in one round).
  void recvLate(void* buf, int64_t count, MPI_Datatype type, int peer);
  // copyLocal(src, scount, stype, dst, rcount, rtype).
  void copy(const void* src, int64_t scount, MPI_Datatype stype, void* dst, int64_t rcount,
            MPI_Datatype rtype);
  // inout = in (op) inout, elementwise (op::apply). after >= 0 (a receive of the same
  // round): done once that receive has completed, not when the round starts; such
  // reductions run in step order (one only after every earlier waiting one), so a send
  // `after` the last of several has all of them in its buffer. Returns the step's index
  // (-1 when count is 0: nothing to do or wait for).
  int reduce(MPI_Op op, const void* in, void* inout, int64_t count, MPI_Datatype type,
             int after = -1);
  // Any local work; returns an MPI error class.
  void local(std::function<int()> fn);
  // An operation that completes over time: fn is called when the round runs and then on
  // every advance until it sets *done (or returns an error class). A polled operation
  // waiting for a time rather than an event asks the progress engine to wake it
  // (progress::Engine::wakeBy). `abort` (optional) is called instead of further polls
  // when the schedule stops on an error before fn said done.
  using PollFn = std::function<int(bool* done)>;
  void poll(PollFn fn, std::function<void()> abort = {});
  // Work done by start() before the first round, every time the schedule starts: what
  // must happen in the order of MPI_Start calls rather than when a round runs (the
  // collective's place among the communicator's operations).
  void onStart(std::function<void()> fn) { onStart_.push_back(std::move(fn)); }
  // Ends the current round: later steps run once all its communication has completed.
  // Empty rounds are dropped.
  void endRound();
  // The round being built is skipped when `skip` holds at the time it would run. Every
  // rank must reach the same answer (a value all of them computed alike, such as the
  // outcome of an agreement), since a skipped round's messages are not exchanged.
  void skipRoundIf(std::function<bool()> skip) { pendingSkip_ = std::move(skip); }
  // A temporary buffer for `count` elements of `type`, laid out like a user buffer of that
  // type (see TempBuffer); nullptr when count is 0. An allocation failure gives nullptr
  // and is kept in buildError(), which makes launching the plan fail.
  void* temp(int64_t count, MPI_Datatype type);
  void* tempBytes(int64_t bytes) { return temp(bytes, MPI_BYTE); }
  // The schedule's own handle for type t (a duplicate of a derived type, kept as long as
  // the schedule): for local functions that use a type after the user may have freed it.
  MPI_Datatype ownType(MPI_Datatype t) { return keep(t); }
  int buildError() const { return buildError_; }
  size_t rounds() const { return rounds_.size(); }

  // ---- running ----
  // Starts (or restarts, once done) from the first round and completes `owner` when the
  // last round is done (its error field carries the first error). Returns an error only
  // if the schedule cannot start (it is still running).
  int start(p2p::Request* owner);
  // Does whatever can be done now; true if a round completed or the schedule finished.
  bool advance();
  bool running() const { return running_; }

  // Advances every running schedule once (the progress engine hook).
  static bool advanceAll();

  // ---- reading: what the schedule does, for a model of its run (tools/sim) ----
  struct StepView {
    enum class Kind : uint8_t { kSend, kRecv, kCopy, kReduce, kLocal, kPoll };
    Kind kind;
    bool late;      // kRecv posted in one round and awaited at the end of the next
    int peer;       // kSend, kRecv
    int64_t bytes;  // kSend, kRecv, kReduce: count x type size; kCopy: the source's
    int after;      // kSend, kReduce: the step of the same round (its index within the
                    // round) it waits for (`after`), or -1
    int rail;       // kSend: send's `rail`, or -1
  };
  // fn(round, step) for every step, round by round, in the order they run.
  void forEachStep(const std::function<void(size_t, const StepView&)>& fn) const;

 private:
  struct Step {
    using Kind = StepView::Kind;
    Kind kind;
    bool late = false;          // kRecv: awaited at the end of the next round
    const void* src = nullptr;  // send buffer / copy source / reduce input
    void* dst = nullptr;        // receive buffer / copy destination / reduce in-out
    int64_t count = 0;          // send/recv/reduce count, copy source count
    int64_t rcount = 0;         // copy destination count
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_Datatype rtype = MPI_DATATYPE_NULL;  // copy destination type
    MPI_Op op = MPI_OP_NULL;
    int peer = 0;
    int rail = -1;   // kSend
    int after = -1;  // kSend, kReduce: step index it waits for (`after`)
    std::function<int()> fn;
    PollFn pollFn;
    std::function<void()> abort;
  };

  void add(Step s);
  MPI_Datatype keep(MPI_Datatype t);
  void runRound(size_t round);
  int post(const Step& s, p2p::Request** r);
  void checkAfter(int after, bool recvOnly);
  bool postWaiting();
  void finish();

  comm::Comm& comm_;
  const int tag_;
  std::vector<Step> steps_;
  std::vector<size_t> rounds_;                    // index of the first step of each round
  std::vector<std::function<bool()>> roundSkip_;  // per round (may be empty)
  std::function<bool()> pendingSkip_;             // for the round being built
  size_t roundStart_ = 0;                         // first step of the round being built
  std::vector<std::unique_ptr<TempBuffer>> temps_;
  // (user's handle, the schedule's own duplicate) of every derived type the steps use:
  // the user may free a type while an operation using it is pending (or, persistent,
  // waiting to be started again); the steps use the duplicates.
  std::vector<std::pair<MPI_Datatype, MPI_Datatype>> types_;
  std::vector<MPI_Op> ops_;
  int buildError_ = MPI_SUCCESS;

  bool running_ = false;
  bool advancing_ = false;
  size_t next_ = 0;  // next round to run
  std::vector<p2p::Request*> pending_;
  std::vector<p2p::Request*> late_;  // posted this round, joining pending_ in the next
  std::vector<size_t> polls_;        // polled steps of the current round not yet done
  // The current round: its first step, each step's request (while the round runs) or
  // whether it ran (a local step), and its steps waiting for an earlier one (`after`), in
  // step order.
  size_t roundFirst_ = 0;
  std::vector<p2p::Request*> stepReq_;
  std::vector<uint8_t> stepRan_;
  std::vector<size_t> waiting_;
  size_t waitPeers_ = 0;    // distinct peers of the round's waiting sends
  size_t waitReduces_ = 0;  // waiting reductions not yet run
  std::vector<int> held_;   // postWaiting's scratch: peers with a send still waiting
  std::vector<std::function<void()>> onStart_;
  size_t firstPending_ = 0;  // pending_[0..firstPending_) are known complete
  int error_ = MPI_SUCCESS;
  p2p::Request* owner_ = nullptr;
};

}  // namespace ccmpi::coll
