// The CM-5 seed's random schedules as Alltoallv algorithms (Wang, Lin and Ranka, section
// 3.3): the ranks allgather every rank's send sizes (the matrix COM), every rank computes
// the same schedule from it with the same seed (sched/sched.h: randomNode, randomNodeHeap),
// and the data move in its phases, loosely synchronous: a rank goes on to its next phase
// when its own send and receive of the phase are done, with no barrier.
//  - rs_n: whole messages; phases are partial permutations (one message in and out per
//    rank).
//  - rs_nh: largest messages first, and each phase's cutoff splits the messages above it
//    into pieces carried by later phases. The pieces are byte ranges of the packed block:
//    a contiguous block is sent from and received into place, any other is packed first
//    and unpacked at the end.
// A persistent request (MPI_Alltoallv_init) gathers and schedules at its first start and
// replays the phases at every later one: the pattern of a persistent request is fixed.
// The seed is the communicator's context id, the same on every rank.
#include <cstring>
#include <memory>
#include <vector>

#include "coll/nb_algorithms.h"
#include "coll/phased/phased.h"
#include "sched/sched.h"

namespace ccmpi::coll {
namespace {

// RS_NH's smallest piece and piece unit (bytes).
constexpr int64_t kMinPiece = 4096;
constexpr int64_t kPieceUnit = 64;

// The schedule, kept for a persistent request's replays.
struct Call : AlltoallvCall {
  using AlltoallvCall::AlltoallvCall;
  bool scheduled = false;  // phases below hold the schedule (persistent replays)
  sched::Phases phases;
};

// Whole messages: the phases as RankPhases, moved with typed sends and receives.
void addWhole(Schedule& s, const std::shared_ptr<Call>& call) {
  addPhasedAlltoallv(s, rankPhasesOf(call->phases, s.rank()), PhaseSync::kNone, call);
}

// Pieces: byte ranges of each block, in place where the block is contiguous.
void addPieces(Schedule& s, const std::shared_ptr<Call>& call) {
  const int n = s.size(), r = s.rank();
  std::vector<unsigned char*> out(n, nullptr), in(n, nullptr);
  std::vector<bool> unpack(n, false);
  // Every outgoing block packed (or found in place) before anything is received.
  for (int p = 0; p < n; ++p) {
    if (p == r) continue;
    const Block b = call->inPlace ? call->recvBlock(p) : call->sendBlock(p);
    const int64_t bytes = dataBytes(b.count, b.type);
    if (bytes == 0) continue;
    const datatype::Datatype& t = typeOf(b.type);
    if (!call->inPlace && t.contiguous()) {
      out[p] = static_cast<unsigned char*>(const_cast<void*>(b.addr)) + t.trueLb();
    } else {
      out[p] = static_cast<unsigned char*>(s.tempBytes(bytes));
      if (!out[p]) return;  // buildError() is set
      s.copy(b.addr, b.count, b.type, out[p], bytes, MPI_BYTE);
    }
  }
  for (int p = 0; p < n; ++p) {
    if (p == r) continue;
    const Block b = call->recvBlock(p);
    const int64_t bytes = dataBytes(b.count, b.type);
    if (bytes == 0) continue;
    const datatype::Datatype& t = typeOf(b.type);
    if (t.contiguous()) {
      in[p] = static_cast<unsigned char*>(b.addr) + t.trueLb();
    } else {
      in[p] = static_cast<unsigned char*>(s.tempBytes(bytes));
      if (!in[p]) return;
      unpack[p] = true;
    }
  }
  if (!call->inPlace) {
    const Block from = call->sendBlock(r), to = call->recvBlock(r);
    s.copy(from.addr, from.count, from.type, to.addr, to.count, to.type);
  }
  s.endRound();
  for (const sched::Phase& ph : call->phases) {
    bool any = false;
    for (const sched::Message& m : ph.messages) {
      if (m.dst == r) {
        s.recv(in[m.src] + m.offset, m.bytes, MPI_BYTE, m.src);
        any = true;
      }
      if (m.src == r) {
        s.send(out[m.dst] + m.offset, m.bytes, MPI_BYTE, m.dst);
        any = true;
      }
    }
    if (any) s.endRound();
  }
  for (int p = 0; p < n; ++p)
    if (unpack[p]) {
      const Block b = call->recvBlock(p);
      s.copy(in[p], dataBytes(b.count, b.type), MPI_BYTE, b.addr, b.count, b.type);
    }
}

int addRandom(Plan& p, const char* name, bool pieces) {
  p.algorithm = name;
  Schedule& s = *p.schedule;
  auto call = std::make_shared<Call>(p.args);
  const uint64_t seed = p.comm.contextId;
  // Two deferred phases (they do not nest): the first gathers the pattern unless a
  // schedule is there already, the second schedules it once and moves the data.
  addDeferredPhase(s, [call](Schedule& inner) {
    if (call->scheduled) return;
    call->addGatherRows(inner, call->ownRow(inner.size(), inner.rank()));
  });
  addDeferredPhase(s, [call, seed, pieces](Schedule& inner) {
    const int n = inner.size(), r = inner.rank();
    if (!call->scheduled) {
      const sched::Pattern pattern = call->gatheredPattern(n, r);
      call->phases = pieces ? sched::randomNodeHeap(n, pattern, seed, kMinPiece, kPieceUnit)
                            : sched::randomNode(n, pattern, seed);
      call->scheduled = true;
      call->gathered = {};
    }
    if (pieces)
      addPieces(inner, call);
    else
      addWhole(inner, call);
  });
  return MPI_SUCCESS;
}

}  // namespace

int alltoallvRsNSchedule(Plan& p) {
  return addRandom(p, "rs_n", false);
}

int alltoallvRsNHSchedule(Plan& p) {
  return addRandom(p, "rs_nh", true);
}

}  // namespace ccmpi::coll
