#pragma once
// Phased exchanges (CC-MPI section 4.2): an all-to-all or many-to-many exchange run as a
// sequence of phases in which every host sends at most one message and receives at most
// one, so that no cable between a host and its switch carries two messages at once. The
// phases come from a message schedule (sched/sched.h) or, for Alltoall and Allgather, from
// the all-to-all phases {j -> (j + i) mod n}.
//
// Phases must not overlap, or two messages meet on a cable after all. Two ways keep them
// apart (PhaseSync):
//  - barrier (the paper's): a dissemination barrier between consecutive phases;
//  - ready: a receiver tells the sender of its next message that it is ready (an empty
//    message) once its previous receive and send have completed, and a sender starts a
//    message only when its receiver said so. Each cable then carries one message at a
//    time, without a global step: phases flow into each other only where they share no
//    cable, and a phase costs one message latency instead of a barrier's log2(n).
// CCMPI_PHASE_SYNC=ready|barrier|none sets the synchronization of the phased algorithms
// that do not name one (none: phases only order the messages, like pairwise exchange).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "coll/schedule.h"
#include "coll/util.h"
#include "sched/sched.h"

namespace ccmpi::coll {

enum class PhaseSync : uint8_t { kReady, kBarrier, kNone };
const char* phaseSyncName(PhaseSync s);
// CCMPI_PHASE_SYNC (read once; default ready). An unknown value is reported on stderr
// once and the default used.
PhaseSync defaultPhaseSync();

// One rank's part of a phased exchange: in contention-free phase k it sends to
// phases[k].sendTo and receives from phases[k].recvFrom (-1: nothing). Every rank holds
// every phase (barriers count them). The final phase of small messages (sched::Phase::small)
// may have several messages per rank; hasSmall says whether the schedule has one at all.
struct RankPhases {
  struct Step {
    int sendTo = -1;
    int recvFrom = -1;
  };
  std::vector<Step> phases;
  std::vector<int> smallSendTo, smallRecvFrom;
  bool hasSmall = false;
};

// The all-to-all phases: phase i - 1 (i = 1..n-1) sends to (rank + i) mod n and receives
// from (rank - i) mod n.
RankPhases allToAllRankPhases(int n, int rank);
// This rank's part of a schedule computed for the whole communicator.
RankPhases rankPhasesOf(const sched::Phases& phases, int rank);

// Checks that a schedule moves exactly this rank's messages: for every peer p != rank, a
// message rank -> p of sendBytes(p) bytes is in it iff sendBytes(p) > 0, and likewise for
// receives. Returns "" or what differs (for an error message).
std::string checkRankPhases(const sched::Phases& phases, int rank, int n,
                            const std::function<int64_t(int)>& sendBytes,
                            const std::function<int64_t(int)>& recvBytes);

// Appends the phased exchange to s: the message to peer p is out[p], the one from peer p
// lands in recvBlock(p). Only the messages of rp move (the caller copies its own block);
// rp must name every peer with a non-empty block.
void addPhasedExchange(Schedule& s, const RankPhases& rp, PhaseSync sync,
                       const std::vector<Block>& out, const std::function<Block(int)>& recvBlock);
// The same for the blocks of an all-to-all exchange as addAlltoallLinear takes them
// (coll/nb_algorithms.h): in place, outgoing blocks are packed first; else the own block
// is copied.
void addPhasedAlltoall(Schedule& s, const RankPhases& rp, PhaseSync sync, bool inPlace,
                       const std::function<Block(int)>& sendBlock,
                       const std::function<Block(int)>& recvBlock);

// Dissemination barrier rounds (empty messages) appended to s.
void addDisseminationBarrier(Schedule& s);

// The message schedule for a global pattern, by the cheaper of the two schedulers
// (sched::best), with the small-message threshold CCMPI_PHASE_SMALL (bytes, default
// 4096) and the cost model's link rate CCMPI_LINK_MBITS (default 100) and
// synchronization cost CCMPI_PHASE_SYNC_US (default 200).
sched::Phases schedulePattern(int n, const sched::Pattern& pattern,
                              sched::Scheduler* which = nullptr);
int64_t phaseSmallThreshold();

}  // namespace ccmpi::coll
