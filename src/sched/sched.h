#pragma once
// Message scheduling for phased many-to-many communication (CC-MPI, section 4.2).
//
// On a switched Ethernet the contention that matters is on the cable between a host and
// its switch port: two messages sent by one host at once, or two received by one host at
// once, share that cable. A phased communication splits a pattern of messages into phases
// in which every host sends at most one message and receives at most one; phases are
// separated by a synchronization, so a phase takes as long as its largest message. The
// schedulers here are pure functions: a pattern of (src, dst, bytes) in, phases out. They
// are deterministic (ties broken by the pattern's order), so every rank computing a
// schedule from the same pattern gets the same phases.
//
// Both schedulers put every remaining message in one final phase once the largest of
// them is below `smallThreshold` bytes: for small messages contention is light and a
// synchronization costs more than it saves. That phase (Phase::small) may have a host
// sending or receiving several messages; every other phase is contention-free.
//
//  - greedy: messages sorted by size, largest first; a phase takes each unscheduled
//    message that does not conflict with the phase so far. Phases hold messages of
//    similar sizes (balanced load).
//  - all-to-all based (the paper's Figure 4): a phase starts from the all-to-all phase
//    {j -> (j + i) mod n} that holds the largest unscheduled message, takes every
//    unscheduled message of that all-to-all phase, then fills up greedily. Never more
//    than n - 1 phases (plus the small phase).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ccmpi::sched {

struct Message {
  int src = 0;
  int dst = 0;
  int64_t bytes = 0;
  // A piece of a larger message (randomNodeHeap): the piece's first byte in it.
  int64_t offset = 0;
  bool operator==(const Message&) const = default;
};

struct Phase {
  std::vector<Message> messages;
  bool small = false;  // the final phase of small messages (not contention-free)
  int64_t largest() const;
};

using Pattern = std::vector<Message>;
using Phases = std::vector<Phase>;

// Messages to self and empty messages are not scheduled (the caller copies/skips them).
// n is the number of hosts (ranks); every src and dst must lie in [0, n).
Phases greedy(int n, const Pattern& pattern, int64_t smallThreshold);
Phases allToAllBased(int n, const Pattern& pattern, int64_t smallThreshold);

// The cost model used to choose between schedules: the sum over phases of the largest
// message's transfer time, plus one synchronization between consecutive phases.
struct CostModel {
  double bytesPerSecond = 12.5e6;  // link bandwidth
  double syncSeconds = 1e-3;       // one synchronization between phases
};
double estimateSeconds(const Phases& phases, const CostModel& model);

enum class Scheduler { kGreedy, kAllToAllBased };
const char* schedulerName(Scheduler s);
// Runs both schedulers and returns the cheaper schedule by estimateSeconds (ties: the
// all-to-all based one, which has the fewer phases); *which (optional) says which won.
Phases best(int n, const Pattern& pattern, int64_t smallThreshold, const CostModel& model,
            Scheduler* which = nullptr);

// Checks a schedule against its pattern: every schedulable message exactly once, no host
// sending or receiving twice in a non-small phase, the small phase (at most one, last)
// holding only messages below the threshold. Returns "" or what is wrong.
std::string validate(int n, const Pattern& pattern, const Phases& phases, int64_t smallThreshold);

// ---- The CM-5 seed's random schedulers (Wang, Lin, Ranka; sched/random.cc) ----
// RS_N (its Figure 4): the pattern decomposed into partial permutations. Every row (sender)
// holds its destinations in a random order; a phase visits the rows in a random order and
// each row takes the first of its remaining destinations that no earlier row of the phase
// took. Every phase is contention-free (no small phase). The random choices come from
// `seed` alone, so ranks computing from the same pattern and seed agree.
Phases randomNode(int n, const Pattern& pattern, uint64_t seed);
// RS_NH: RS_N with each row's destinations ordered by remaining size (a heap, largest
// first) and a cutoff per phase, the mean remaining size of the phase's messages (at least
// `minPiece` bytes, and a multiple of `unit`): a message above it sends a piece of cutoff
// bytes (Message::offset says where) and keeps the rest for a later phase, so one phase is
// not as long as its largest message while others idle.
Phases randomNodeHeap(int n, const Pattern& pattern, uint64_t seed, int64_t minPiece,
                      int64_t unit = 1);
// Checks a schedule whose messages may be split into pieces: the pieces of every
// schedulable message cover it exactly once in order, and no phase has a rank send or
// receive twice. Returns "" or what is wrong.
std::string validatePieces(int n, const Pattern& pattern, const Phases& phases);

// ---- Host-level schedules ----
// Several ranks of one host share its cable. A host-level schedule runs the conflict test
// on hosts: hostOf[r] is the host of rank r (ids in [0, hosts), hosts = 1 + the largest).
// Messages between two ranks of one host use no cable; they are returned in `local` and
// not scheduled (the caller moves them outside the phases, through shared memory). The
// messages between hosts are summed per host pair into a host pattern, which greedy or
// the all-to-all based scheduler splits into host phases: in a host phase every host
// sends to at most one host and receives from at most one. A host phase A -> B moves
// every rank message from a rank of A to a rank of B. It is expanded into rank phases
// (each rank sends at most one message and receives at most one, as RankPhases need):
// the messages of the host phase, in the order of their local rotation (the local index
// of the receiver minus that of the sender, modulo the largest host's rank count), go
// through greedy on ranks, so a dense L x L block needs L rank phases: the L ranks of A
// send to the L ranks of B at once, one stream per rank, all of them on the cable A -> B.
// The host small phase (host pairs with fewer than smallThreshold bytes in all) becomes
// one rank phase with Phase::small. With one rank per host this is the rank-level
// schedule.
struct HostSchedule {
  Phases phases;               // rank messages, host phase after host phase
  std::vector<int> hostPhase;  // per entry of phases: its host phase (index in hostLevel)
  Phases hostLevel;            // the host phases: src/dst are hosts, bytes summed per pair
  Pattern local;               // messages within one host (pattern order)
};
HostSchedule onHosts(Scheduler s, const std::vector<int>& hostOf, const Pattern& pattern,
                     int64_t smallThreshold);
// Both schedulers on the host pattern; the cheaper host-level schedule by estimateSeconds.
HostSchedule bestOnHosts(const std::vector<int>& hostOf, const Pattern& pattern,
                         int64_t smallThreshold, const CostModel& model,
                         Scheduler* which = nullptr);
// Checks a host schedule against its pattern: every message between hosts exactly once
// in phases and every one within a host exactly once in local; in a rank phase no rank
// sends or receives twice; in a host phase (the rank phases sharing a hostPhase, which
// does not decrease) no host sends to two hosts or receives from two hosts; the small
// phase (at most one, last, a host phase of its own) holds host pairs below the
// threshold in all. Returns "" or what is wrong.
std::string validateHosts(const std::vector<int>& hostOf, const Pattern& pattern,
                          const HostSchedule& s, int64_t smallThreshold);

// One rank's part of the dense all-to-all on hosts, built directly in O(ranks) (no
// pattern): H - 1 host phases, in host phase k host h sends to host (h + k) mod H; each
// host phase has L rank phases (L: the largest host's rank count), in rank phase d the
// rank of local index i sends to local index (i + d) mod L of the receiving host (nothing
// if that host has fewer ranks). steps[(k - 1) * L + d] = {sendTo, recvFrom} (-1: none);
// `local` lists the other ranks of this rank's host. hostOf must use every id in
// [0, H). With one rank per host these are the all-to-all phases {j -> (j + k) mod n}.
struct RankSteps {
  std::vector<std::pair<int, int>> steps;
  std::vector<int> local;
};
RankSteps allToAllOnHosts(const std::vector<int>& hostOf, int rank);

// A host map: the host of every rank, "HOST*COUNT,..." (runs, as mpirun's CCMPI_RANK_HOSTS)
// or "HOST,HOST,...", in rank order. False (and *out cleared) when malformed or empty.
bool parseHostMap(const std::string& spec, std::vector<int>* out);

}  // namespace ccmpi::sched
