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
#include <vector>

namespace ccmpi::sched {

struct Message {
  int src = 0;
  int dst = 0;
  int64_t bytes = 0;
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

}  // namespace ccmpi::sched
