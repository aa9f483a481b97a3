// Greedy and all-to-all based message scheduling (see sched.h).
#include "sched/sched.h"

#include <algorithm>
#include <cstdint>
#include <functional>
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

// The schedulable messages indexed for fast phase building: m (largest first), each
// sender's messages and each all-to-all offset's messages (indices into m, ascending),
// what is scheduled, and per list the first entry that may still be unscheduled.
struct Index {
  Index(int n, std::vector<Message> msgs) : m(std::move(msgs)), done(m.size(), 0) {
    bySrc.resize(n);
    byOffset.resize(n);
    for (uint32_t i = 0; i < m.size(); ++i) {
      bySrc[m[i].src].push_back(i);
      byOffset[((m[i].dst - m[i].src) % n + n) % n].push_back(i);
    }
    srcStart.assign(n, 0);
    offsetStart.assign(n, 0);
  }
  // The first unscheduled message of `list` from *start on (advancing *start past
  // scheduled ones for good); list.size() if none.
  size_t firstOpen(const std::vector<uint32_t>& list, size_t* start) const {
    while (*start < list.size() && done[list[*start]]) ++*start;
    return *start;
  }
  // Drops scheduled messages from the sender lists (which phases would walk again).
  void compact() {
    for (size_t s = 0; s < bySrc.size(); ++s) {
      std::vector<uint32_t>& list = bySrc[s];
      list.erase(std::remove_if(list.begin(), list.end(), [&](uint32_t i) { return done[i]; }),
                 list.end());
      srcStart[s] = 0;
    }
  }
  // Called after every phase: compacts every 32 phases.
  void phaseDone() {
    if (++phases % 32 == 0) compact();
  }
  std::vector<Message> m;
  std::vector<char> done;
  size_t phases = 0;
  std::vector<std::vector<uint32_t>> bySrc, byOffset;
  std::vector<size_t> srcStart, offsetStart;
  size_t first = 0;  // no unscheduled message before m[first]
};

// Adds to the phase every unscheduled message that fits, in the order of m: the same as
// scanning m from the start, but each free sender only walks its own messages (a heap
// holds each free sender's next candidate, smallest index first). Returns how many.
size_t fillGreedy(Index* x, PhaseBuilder* b) {
  struct Cand {
    uint32_t idx;
    int src;
    size_t pos;
    bool operator>(const Cand& o) const { return idx > o.idx; }
  };
  std::vector<Cand> heap;
  auto next = [&](int s, size_t pos) {
    const std::vector<uint32_t>& list = x->bySrc[s];
    for (; pos < list.size(); ++pos) {
      const uint32_t i = list[pos];
      if (!x->done[i] && !b->receiving[x->m[i].dst]) {
        heap.push_back({i, s, pos});
        std::push_heap(heap.begin(), heap.end(), std::greater<Cand>());
        return;
      }
    }
  };
  const int n = static_cast<int>(x->bySrc.size());
  for (int s = 0; s < n; ++s)
    if (!b->sending[s]) next(s, x->firstOpen(x->bySrc[s], &x->srcStart[s]));
  size_t taken = 0;
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), std::greater<Cand>());
    const Cand c = heap.back();
    heap.pop_back();
    const Message& msg = x->m[c.idx];
    if (b->receiving[msg.dst]) {  // taken by an earlier message since it was found
      next(c.src, c.pos + 1);
      continue;
    }
    b->add(msg);
    x->done[c.idx] = 1;
    ++taken;
  }
  return taken;
}

// Appends the small phase (every unscheduled message) if the largest unscheduled message
// is below the threshold; returns whether it did.
bool smallPhase(Index* x, int64_t smallThreshold, Phases* out) {
  while (x->first < x->m.size() && x->done[x->first]) ++x->first;
  if (x->first == x->m.size() || x->m[x->first].bytes >= smallThreshold) return false;
  Phase p;
  p.small = true;
  for (size_t i = x->first; i < x->m.size(); ++i)
    if (!x->done[i]) p.messages.push_back(x->m[i]);
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
  Index x(n, sortedMessages(pattern));
  size_t left = x.m.size();
  Phases out;
  while (left > 0) {
    if (smallPhase(&x, smallThreshold, &out)) break;
    PhaseBuilder b(n);
    left -= fillGreedy(&x, &b);
    out.push_back(std::move(b.phase));
    x.phaseDone();
  }
  return out;
}

Phases allToAllBased(int n, const Pattern& pattern, int64_t smallThreshold) {
  Index x(n, sortedMessages(pattern));
  size_t left = x.m.size();
  Phases out;
  while (left > 0) {
    if (smallPhase(&x, smallThreshold, &out)) break;  // also moves x.first to the largest
    const Message& lead = x.m[x.first];
    const int o = ((lead.dst - lead.src) % n + n) % n;
    PhaseBuilder b(n);
    // the all-to-all phase's messages never conflict with each other, but a pattern may
    // hold the same (src, dst) pair twice: fits() keeps the phase contention-free
    const std::vector<uint32_t>& list = x.byOffset[o];
    for (size_t k = x.firstOpen(list, &x.offsetStart[o]); k < list.size(); ++k) {
      const uint32_t i = list[k];
      if (x.done[i] || !b.fits(x.m[i])) continue;
      b.add(x.m[i]);
      x.done[i] = 1;
      --left;
    }
    left -= fillGreedy(&x, &b);
    out.push_back(std::move(b.phase));
    x.phaseDone();
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
