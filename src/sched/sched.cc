// Greedy and all-to-all based message scheduling (see sched.h).
#include "sched/sched.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>

namespace ccmpi::sched {
namespace {

// The schedulable messages, largest first; equal sizes keep the pattern's order.
std::vector<Message> sortedMessages(const Pattern& pattern) {
  std::vector<Message> m;
  for (const Message& x : pattern)
    if (x.src != x.dst && x.bytes > 0) m.push_back(x);
  std::stable_sort(m.begin(), m.end(),
                   [](const Message& a, const Message& b) { return a.bytes > b.bytes; });
  return m;
}

// Busy senders/receivers of the phase being built.
struct PhaseBuilder {
  explicit PhaseBuilder(int n) : sending(n, false), receiving(n, false) {}
  bool fits(const Message& m) const { return !sending[m.src] && !receiving[m.dst]; }
  void add(const Message& m) {
    sending[m.src] = receiving[m.dst] = true;
    phase.messages.push_back(m);
  }
  std::vector<bool> sending, receiving;
  Phase phase;
};

// Adds to the phase, in order, every unscheduled message that `want`s and that fits;
// returns how many it took.
template <typename Want>
size_t takeFitting(const std::vector<Message>& m, std::vector<bool>* done, PhaseBuilder* b,
                   Want want) {
  size_t taken = 0;
  for (size_t i = 0; i < m.size(); ++i) {
    if ((*done)[i] || !want(m[i]) || !b->fits(m[i])) continue;
    b->add(m[i]);
    (*done)[i] = true;
    ++taken;
  }
  return taken;
}

// Appends the small phase (all of `rest` from `first` on, unscheduled ones) if the largest
// unscheduled message is below the threshold; returns whether it did.
bool smallPhase(const std::vector<Message>& m, const std::vector<bool>& done,
                int64_t smallThreshold, Phases* out) {
  size_t first = 0;
  while (first < m.size() && done[first]) ++first;
  if (first == m.size() || m[first].bytes >= smallThreshold) return false;
  Phase p;
  p.small = true;
  for (size_t i = first; i < m.size(); ++i)
    if (!done[i]) p.messages.push_back(m[i]);
  out->push_back(std::move(p));
  return true;
}

}  // namespace

int64_t Phase::largest() const {
  int64_t b = 0;
  for (const Message& m : messages) b = std::max(b, m.bytes);
  return b;
}

Phases greedy(int n, const Pattern& pattern, int64_t smallThreshold) {
  const std::vector<Message> m = sortedMessages(pattern);
  std::vector<bool> done(m.size(), false);
  size_t left = m.size();
  Phases out;
  while (left > 0) {
    if (smallPhase(m, done, smallThreshold, &out)) break;
    PhaseBuilder b(n);
    left -= takeFitting(m, &done, &b, [](const Message&) { return true; });
    out.push_back(std::move(b.phase));
  }
  return out;
}

Phases allToAllBased(int n, const Pattern& pattern, int64_t smallThreshold) {
  const std::vector<Message> m = sortedMessages(pattern);
  std::vector<bool> done(m.size(), false);
  size_t left = m.size();
  Phases out;
  auto offset = [n](const Message& x) { return ((x.dst - x.src) % n + n) % n; };
  while (left > 0) {
    if (smallPhase(m, done, smallThreshold, &out)) break;
    size_t first = 0;
    while (done[first]) ++first;
    const int phaseOffset = offset(m[first]);
    PhaseBuilder b(n);
    // the all-to-all phase's messages never conflict with each other, but a pattern may
    // hold the same (src, dst) pair twice: fits() keeps the phase contention-free
    left -= takeFitting(m, &done, &b, [&](const Message& x) { return offset(x) == phaseOffset; });
    left -= takeFitting(m, &done, &b, [](const Message&) { return true; });
    out.push_back(std::move(b.phase));
  }
  return out;
}

double estimateSeconds(const Phases& phases, const CostModel& model) {
  double t = 0;
  for (const Phase& p : phases) {
    if (!p.small) {
      t += static_cast<double>(p.largest()) / model.bytesPerSecond;
      continue;
    }
    // the small phase: bounded by the busiest host's bytes in or out
    std::map<int, int64_t> in, out;
    int64_t busiest = 0;
    for (const Message& x : p.messages) {
      busiest = std::max(busiest, out[x.src] += x.bytes);
      busiest = std::max(busiest, in[x.dst] += x.bytes);
    }
    t += static_cast<double>(busiest) / model.bytesPerSecond;
  }
  if (phases.size() > 1) t += static_cast<double>(phases.size() - 1) * model.syncSeconds;
  return t;
}

const char* schedulerName(Scheduler s) {
  return s == Scheduler::kGreedy ? "greedy" : "all-to-all based";
}

Phases best(int n, const Pattern& pattern, int64_t smallThreshold, const CostModel& model,
            Scheduler* which) {
  Phases a = allToAllBased(n, pattern, smallThreshold);
  Phases g = greedy(n, pattern, smallThreshold);
  const bool greedyWins = estimateSeconds(g, model) < estimateSeconds(a, model);
  if (which) *which = greedyWins ? Scheduler::kGreedy : Scheduler::kAllToAllBased;
  return greedyWins ? g : a;
}

std::string validate(int n, const Pattern& pattern, const Phases& phases, int64_t smallThreshold) {
  std::map<std::tuple<int, int, int64_t>, int> want;
  for (const Message& x : pattern) {
    if (x.src < 0 || x.src >= n || x.dst < 0 || x.dst >= n) return "message outside [0, n)";
    if (x.src != x.dst && x.bytes > 0) ++want[{x.src, x.dst, x.bytes}];
  }
  for (size_t k = 0; k < phases.size(); ++k) {
    const Phase& p = phases[k];
    if (p.messages.empty()) return "phase " + std::to_string(k) + " is empty";
    if (p.small && k + 1 != phases.size()) return "the small phase is not the last";
    std::vector<int> sends(n, 0), recvs(n, 0);
    for (const Message& x : p.messages) {
      auto it = want.find({x.src, x.dst, x.bytes});
      if (it == want.end() || it->second == 0)
        return "phase " + std::to_string(k) + " holds a message not in the pattern (or twice)";
      --it->second;
      if (p.small) {
        if (x.bytes >= smallThreshold)
          return "the small phase holds a message of " + std::to_string(x.bytes) + " bytes";
        continue;
      }
      if (++sends[x.src] > 1)
        return "phase " + std::to_string(k) + ": host " + std::to_string(x.src) + " sends twice";
      if (++recvs[x.dst] > 1)
        return "phase " + std::to_string(k) + ": host " + std::to_string(x.dst) + " receives twice";
    }
  }
  for (const auto& [key, left] : want)
    if (left) return "a message of the pattern is not scheduled";
  return "";
}

}  // namespace ccmpi::sched
