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
//
// Ranks that share a host share its cable: when they do (commHosts), the phases are
// host-level (sched.h, HostSchedule): in a host phase every host sends to one host and
// receives from one, its ranks taking turns over the other host's ranks, and messages
// between ranks of one host go outside the phases (posted with the first phase; they take
// shared memory, or TCP loopback, not the cable).
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "coll/plan.h"
#include "coll/schedule.h"
#include "coll/util.h"
#include "sched/sched.h"

namespace ccmpi::coll {

enum class PhaseSync : uint8_t { kReady, kBarrier, kNone };
const char* phaseSyncName(PhaseSync s);
// CCMPI_PHASE_SYNC (read once; default ready). An unknown value is reported on stderr
// once and the default used.
PhaseSync defaultPhaseSync();
// The synchronization of a phased exchange of this pattern (the same on every rank, which
// all hold the pattern): CCMPI_PHASE_SYNC where it is set, else barrier where the phases'
// messages differ in size (the largest scheduled message more than twice the smallest;
// messages below CCMPI_PHASE_SMALL go in the last phase and do not count), ready where
// they are alike. With ready, a phase starts on a cable when the cable's previous messages
// are done, so where one phase's messages are long and the next one's short the phases
// run into each other and chains of waiting ranks form; a barrier bounds each phase by
// its longest message. Measured on 16-24 emulated hosts at 25 Mbit/s (bench/sim/
// phase_sync.py, docs/results/sim/phase-sync.csv, ms): CC-MPI's random pattern (64 KiB,
// 16 KiB, 100 B) barrier 365, ready 480; the CM-5 paper's test set 2 (4-128 KiB, 24
// hosts) 271 / 282; every pair 64 KiB ready 363, barrier 379.
PhaseSync phaseSyncFor(const sched::Pattern& pattern);
PhaseSync phaseSyncFor(const sched::Phases& phases);

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
  // Messages to and from ranks of the same host: outside the phases.
  std::vector<int> localSendTo, localRecvFrom;
};

// The host of every rank of c: ids 0, 1, ... in the order of each host's lowest rank;
// ranks share an id iff they share a host. The one place that says which ranks share a
// host (a topology module may replace it). The source: CCMPI_HOST_MAP if set (emulated
// hosts, for tests), else the launcher's CCMPI_RANK_HOSTS; both "HOST*COUNT,..." over
// the world ranks in order. Unknown (another launcher, ranks of another job, a malformed
// map): every rank its own host.
std::vector<int> commHosts(const comm::Comm& c);
// Whether the map has two hosts or more and some ranks share one: where host-level
// phases (and one multicast receiver per host) apply. All ranks on one host (a job on
// one machine, as the tests run) keep the rank-level phases: no cable to schedule, and
// the phased algorithms behave there as they do across hosts of one rank each.
bool sharesHosts(const std::vector<int>& hostOf);

// The all-to-all phases: phase i - 1 (i = 1..n-1) sends to (rank + i) mod n and receives
// from (rank - i) mod n.
RankPhases allToAllRankPhases(int n, int rank);
// The same on hosts (sched::allToAllOnHosts): host phases, local messages outside.
RankPhases allToAllRankPhases(const std::vector<int>& hostOf, int rank);
// This rank's part of a schedule computed for the whole communicator.
RankPhases rankPhasesOf(const sched::Phases& phases, int rank);
RankPhases rankPhasesOf(const sched::HostSchedule& hs, int rank);

// Checks that a schedule moves exactly this rank's messages: for every peer p != rank, a
// message rank -> p of sendBytes(p) bytes is in it iff sendBytes(p) > 0, and likewise for
// receives. Returns "" or what differs (for an error message).
std::string checkRankPhases(const sched::Phases& phases, int rank, int n,
                            const std::function<int64_t(int)>& sendBytes,
                            const std::function<int64_t(int)>& recvBytes);

// Appends the phased exchange to s: the message to peer p is out[p], the one from peer p
// lands in recvBlock(p). Only the messages of rp move (the caller copies its own block);
// rp must name every peer with a non-empty block. `rails` > 1 (hosts with that many NICs,
// coll::jobRails): that many consecutive phases run at once, the j-th of them on rail j
// (rail-directed messages, docs/multirail.md), one permutation per rail's switch.
void addPhasedExchange(Schedule& s, const RankPhases& rp, PhaseSync sync,
                       const std::vector<Block>& out, const std::function<Block(int)>& recvBlock,
                       int rails = 1);
// The same for the blocks of an all-to-all exchange as addAlltoallLinear takes them
// (coll/nb_algorithms.h): in place, outgoing blocks are packed first; else the own block
// is copied.
void addPhasedAlltoall(Schedule& s, const RankPhases& rp, PhaseSync sync, bool inPlace,
                       const std::function<Block(int)>& sendBlock,
                       const std::function<Block(int)>& recvBlock, int rails = 1);

// Dissemination barrier rounds (empty messages) appended to s.
void addDisseminationBarrier(Schedule& s);

// The message schedule for a global pattern, by the cheaper of the two schedulers
// (sched::best), with the small-message threshold CCMPI_PHASE_SMALL (bytes, default
// 4096) and the cost model's link rate CCMPI_LINK_MBITS (default 100) and
// synchronization cost CCMPI_PHASE_SYNC_US (default 200).
sched::Phases schedulePattern(int n, const sched::Pattern& pattern,
                              sched::Scheduler* which = nullptr);
// The same on hosts (sched::bestOnHosts).
sched::HostSchedule schedulePatternOnHosts(const std::vector<int>& hostOf,
                                           const sched::Pattern& pattern,
                                           sched::Scheduler* which = nullptr);
int64_t phaseSmallThreshold();
// This rank's part of the schedule of a global pattern on c: host-level where ranks of c
// share hosts (commHosts), else rank-level.
RankPhases scheduleRankPhases(const comm::Comm& c, const sched::Pattern& pattern, int rank);
// This rank's part of the all-to-all phases on c, host-level where ranks share hosts.
RankPhases allToAllRankPhases(const comm::Comm& c, int rank);

// An Alltoallv call of the algorithms that gather the pattern and schedule it (phased,
// rs_n, rs_nh: alltoallv_phased.cc, alltoallv_random.cc): what their schedule's steps need
// after the call's arguments are gone from the stack. The algorithms extend it.
struct AlltoallvCall {
  CollArgs args;
  bool inPlace = false;
  std::vector<int64_t> gathered;  // n rows, rotated: row i is rank (r + i) mod n's

  explicit AlltoallvCall(const CollArgs& a);
  Block sendBlock(int i) const;
  Block recvBlock(int i) const;
  // This rank's row: the bytes it sends to each rank of n (its own entry 0).
  std::vector<int64_t> ownRow(int n, int r) const;
  // Appends the allgather of every rank's row (addAllgatherRows) into gathered, this
  // rank's being `row`.
  void addGatherRows(Schedule& s, const std::vector<int64_t>& row);
  // The gathered pattern, in rank order on every rank: the schedulers break ties by the
  // pattern's order, and every rank must compute the same schedule.
  sched::Pattern gatheredPattern(int n, int r) const;
};
// addPhasedAlltoall of the call's blocks (the steps keep the call).
void addPhasedAlltoallv(Schedule& s, const RankPhases& rp, PhaseSync sync,
                        const std::shared_ptr<const AlltoallvCall>& call);

}  // namespace ccmpi::coll
