// Greedy and all-to-all based message scheduling (see sched.h).
//
// Both schedulers work on the schedulable messages sorted largest first (a stable radix
// sort: equal sizes keep the pattern's order); a message's index in that order is its
// priority.
//
// greedy: building phase after phase, each taking every remaining message (in index
// order) whose sender and receiver are still free, puts every message in the lowest phase
// where its sender and receiver are free given the messages before it (first fit in index
// order): whether message i joins phase p depends only on the messages before i in phase
// p, in both formulations. So greedy is one pass over the messages with a bitset of busy
// phases per sender and per receiver, O(messages) instead of rewalking the remaining
// messages for every phase. The small-message phase: with K = 1 + the highest phase of a
// message at or above the threshold, the phase-by-phase loop would stop after phase K - 1
// and put everything left (the messages first fit places at K or later) in it.
//
// all-to-all based: each phase takes the unscheduled messages of one all-to-all offset
// (dst - src mod n, a list per offset) and then fills up greedily, which is done by
// deferred acceptance over per-sender lists (see fill()) rather than by scanning every
// remaining message.
#include "sched/sched.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <map>
#include <numeric>
#include <tuple>
#include <utility>

namespace ccmpi::sched {
namespace {

constexpr uint32_t kNone = UINT32_MAX;

// The schedulable messages, largest first; equal sizes keep the pattern's order. LSD radix
// sort on ~bytes, 11 bits a pass, skipping the digits every message shares.
std::vector<Message> sortedMessages(const Pattern& pattern) {
  std::vector<Message> m;
  m.reserve(pattern.size());
  for (const Message& x : pattern)
    if (x.src != x.dst && x.bytes > 0) m.push_back(x);
  if (m.size() < 64) {
    std::stable_sort(m.begin(), m.end(),
                     [](const Message& a, const Message& b) { return a.bytes > b.bytes; });
    return m;
  }
  auto key = [](const Message& x) { return ~static_cast<uint64_t>(x.bytes); };
  uint64_t varying = 0;
  for (const Message& x : m) varying |= key(x) ^ key(m[0]);
  constexpr int kBits = 11;
  constexpr uint64_t kMask = (uint64_t{1} << kBits) - 1;
  std::vector<Message> tmp(m.size());
  for (int shift = 0; shift < 64; shift += kBits) {
    if (((varying >> shift) & kMask) == 0) continue;
    std::array<size_t, kMask + 1> start{};
    for (const Message& x : m) ++start[(key(x) >> shift) & kMask];
    size_t sum = 0;
    for (size_t& c : start) sum += std::exchange(c, sum);
    for (const Message& x : m) tmp[start[(key(x) >> shift) & kMask]++] = x;
    m.swap(tmp);
  }
  return m;
}

// Phases from a phase per message (kNone or >= phases: the small phase, if any such).
Phases collect(const std::vector<Message>& m, const std::vector<uint32_t>& phaseOf,
               uint32_t phases) {
  std::vector<size_t> count(phases + 1, 0);
  for (uint32_t p : phaseOf) ++count[std::min(p, phases)];
  Phases out(count[phases] ? phases + 1 : phases);
  for (uint32_t p = 0; p < out.size(); ++p) out[p].messages.reserve(count[p]);
  if (count[phases]) out.back().small = true;
  for (size_t i = 0; i < m.size(); ++i) out[std::min(phaseOf[i], phases)].messages.push_back(m[i]);
  return out;
}

Phases greedySorted(int n, const std::vector<Message>& m, int64_t smallThreshold) {
  if (m.empty()) return {};
  auto big = [&](uint32_t i) { return m[i].bytes >= smallThreshold; };
  std::vector<uint32_t> phaseOf(m.size(), kNone);
  // Bitsets of busy phases in windows of 64 * w phases: a message that finds no phase free
  // in the window goes to the next window's pass (phases before the window cannot take
  // it, the ones in it do not concern it). w: enough for every phase if that fits 8 MB.
  std::vector<uint32_t> outDeg(n, 0), inDeg(n, 0);
  for (const Message& x : m) ++outDeg[x.src], ++inDeg[x.dst];
  const uint64_t bound = static_cast<uint64_t>(*std::max_element(outDeg.begin(), outDeg.end())) +
                         *std::max_element(inDeg.begin(), inDeg.end());
  const size_t w = std::max<size_t>(1, std::min<uint64_t>(bound / 64 + 1, (size_t{1} << 19) / n));
  std::vector<uint64_t> sends(n * w), recvs(n * w);
  std::vector<uint32_t> sendHint(n), recvHint(n);  // below: full words
  std::vector<uint32_t> todo(m.size()), next;
  std::iota(todo.begin(), todo.end(), 0u);
  uint32_t phases = 0;  // 1 + the highest phase of a message at or above the threshold
  for (uint64_t base = 0; !todo.empty() && big(todo[0]); base += 64 * w) {
    std::fill(sends.begin(), sends.end(), 0);
    std::fill(recvs.begin(), recvs.end(), 0);
    std::fill(sendHint.begin(), sendHint.end(), 0);
    std::fill(recvHint.begin(), recvHint.end(), 0);
    next.clear();
    for (uint32_t i : todo) {
      uint64_t* s = &sends[m[i].src * w];
      uint64_t* r = &recvs[m[i].dst * w];
      uint32_t& hs = sendHint[m[i].src];
      uint32_t& hr = recvHint[m[i].dst];
      while (hs < w && s[hs] == ~uint64_t{0}) ++hs;
      while (hr < w && r[hr] == ~uint64_t{0}) ++hr;
      size_t j = std::max(hs, hr);
      while (j < w && (s[j] | r[j]) == ~uint64_t{0}) ++j;
      if (j == w) {
        next.push_back(i);
        continue;
      }
      const uint64_t bit = uint64_t{1} << std::countr_one(s[j] | r[j]);
      s[j] |= bit;
      r[j] |= bit;
      phaseOf[i] = static_cast<uint32_t>(base + 64 * j + std::countr_zero(bit));
      if (big(i)) phases = std::max(phases, phaseOf[i] + 1);
    }
    todo.swap(next);
  }
  return collect(m, phaseOf, phases);
}

// The all-to-all based scheduler's state: m (largest first), per offset and (built on
// first use) per sender the messages in index order, what is scheduled, and the phase
// being built (a host is busy when its stamp is the phase's).
class AllToAll {
 public:
  AllToAll(int n, const std::vector<Message>& m)
      : n_(n), m_(m), done_(m.size(), 0), sendStamp_(n, 0), recvStamp_(n, 0) {
    offBegin_.assign(n + 1, 0);
    for (const Message& x : m) ++offBegin_[offset(x) + 1];
    std::partial_sum(offBegin_.begin(), offBegin_.end(), offBegin_.begin());
    offLo_.assign(offBegin_.begin(), offBegin_.end() - 1);
    std::vector<size_t> at = offLo_;
    byOffset_.resize(m.size());
    for (uint32_t i = 0; i < m.size(); ++i) byOffset_[at[offset(m[i])]++] = {m[i], i};
  }

  Phases run(int64_t smallThreshold) {
    Phases out;
    size_t first = 0;  // no unscheduled message before m[first]
    while (left_ > 0) {
      while (done_[first]) ++first;
      if (m_[first].bytes < smallThreshold) {
        Phase p;
        p.small = true;
        for (size_t i = first; i < m_.size(); ++i)
          if (!done_[i]) p.messages.push_back(m_[i]);
        out.push_back(std::move(p));
        break;
      }
      ++stamp_;
      Phase p;
      // the all-to-all phase's messages never conflict with each other, but a pattern may
      // hold the same (src, dst) pair twice: the busy check keeps the phase contention-free
      const int o = offset(m_[first]);
      while (offLo_[o] < offBegin_[o + 1] && done_[byOffset_[offLo_[o]].idx]) ++offLo_[o];
      for (size_t k = offLo_[o]; k < offBegin_[o + 1]; ++k) {
        const Entry& e = byOffset_[k];
        if (!done_[e.idx] && !busy(e.msg.src, e.msg.dst)) take(e.idx, e.msg, &p);
      }
      fill(&p);
      out.push_back(std::move(p));
    }
    return out;
  }

 private:
  struct Entry {
    Message msg;
    uint32_t idx;
  };
  struct SrcEntry {
    uint32_t idx;
    int dst;
  };

  int offset(const Message& x) const { return ((x.dst - x.src) % n_ + n_) % n_; }
  bool busy(int src, int dst) const {
    return sendStamp_[src] == stamp_ || recvStamp_[dst] == stamp_;
  }
  void take(uint32_t i, const Message& x, Phase* p) {
    done_[i] = 1;
    --left_;
    sendStamp_[x.src] = recvStamp_[x.dst] = stamp_;
    if (indexed_) ++dead_[x.src];
    p->messages.push_back(x);
  }

  // Each sender's unscheduled messages (index order) in [srcLo_, srcHi_); dead_ counts the
  // scheduled ones still in there. Built when a fill first needs it.
  void buildSrcIndex() {
    std::vector<size_t> begin(n_ + 1, 0);
    for (uint32_t i = 0; i < m_.size(); ++i)
      if (!done_[i]) ++begin[m_[i].src + 1];
    std::partial_sum(begin.begin(), begin.end(), begin.begin());
    srcLo_.assign(begin.begin(), begin.end() - 1);
    srcHi_ = srcLo_;
    bySrc_.resize(begin.back());
    for (uint32_t i = 0; i < m_.size(); ++i)
      if (!done_[i]) bySrc_[srcHi_[m_[i].src]++] = {i, m_[i].dst};
    dead_.assign(n_, 0);
    walk_.assign(n_, 0);
    heldStamp_.assign(n_, 0);
    held_.assign(n_, 0);
    holder_.assign(n_, 0);
    indexed_ = true;
  }
  // Drops sender s's scheduled messages once they are at least half of its list.
  void compact(int s) {
    if (2 * dead_[s] < srcHi_[s] - srcLo_[s]) return;
    size_t to = srcLo_[s];
    for (size_t k = srcLo_[s]; k < srcHi_[s]; ++k)
      if (!done_[bySrc_[k].idx]) bySrc_[to++] = bySrc_[k];
    srcHi_[s] = to;
    dead_[s] = 0;
  }
  // Sender s proposes its unscheduled messages from bySrc_[pos] on, in index order, to
  // receivers free of the phase so far, until one holds the proposal: one that holds none
  // or one of a later message, whose sender then proposes on (deferred acceptance).
  void propose(int s, size_t pos) {
    for (;;) {
      for (; pos < srcHi_[s]; ++pos) {
        const SrcEntry& e = bySrc_[pos];
        if (recvStamp_[e.dst] == stamp_) continue;
        if (heldStamp_[e.dst] == stamp_ && held_[e.dst] < e.idx) continue;
        if (!done_[e.idx]) break;
      }
      if (pos == srcHi_[s]) return;
      const int r = bySrc_[pos].dst;
      const bool replaces = heldStamp_[r] == stamp_;
      const int previous = holder_[r];
      if (!replaces) holding_.push_back(r);
      heldStamp_[r] = stamp_;
      held_[r] = bySrc_[pos].idx;
      holder_[r] = s;
      walk_[s] = pos;
      if (!replaces) return;
      s = previous;
      pos = walk_[s] + 1;
    }
  }
  // Adds to the phase every unscheduled message that fits, in index order. With priorities
  // from one order (a lower index is better for sender and receiver alike) the only stable
  // matching is the greedy one, so deferred acceptance finds the messages that scanning
  // them in index order would take; they join the phase in index order.
  void fill(Phase* p) {
    if (left_ == 0) return;
    holding_.clear();
    for (int s = 0; s < n_; ++s) {
      if (sendStamp_[s] == stamp_) continue;
      if (!indexed_) buildSrcIndex();
      compact(s);
      propose(s, srcLo_[s]);
    }
    taken_.clear();
    for (int r : holding_) taken_.push_back(held_[r]);
    std::sort(taken_.begin(), taken_.end());
    for (uint32_t i : taken_) take(i, m_[i], p);
  }

  const int n_;
  const std::vector<Message>& m_;
  std::vector<char> done_;
  size_t left_ = m_.size();
  uint32_t stamp_ = 0;
  std::vector<uint32_t> sendStamp_, recvStamp_;
  std::vector<Entry> byOffset_;
  std::vector<size_t> offBegin_, offLo_;
  bool indexed_ = false;
  std::vector<SrcEntry> bySrc_;
  std::vector<size_t> srcLo_, srcHi_, dead_, walk_;
  // the fill's proposals: per receiver the message it holds (if heldStamp_ is the phase's)
  // and its sender; the receivers holding one; the messages taken
  std::vector<uint32_t> heldStamp_, held_;
  std::vector<int> holder_, holding_;
  std::vector<uint32_t> taken_;
};

}  // namespace

int64_t Phase::largest() const {
  int64_t b = 0;
  for (const Message& m : messages) b = std::max(b, m.bytes);
  return b;
}

Phases greedy(int n, const Pattern& pattern, int64_t smallThreshold) {
  return greedySorted(n, sortedMessages(pattern), smallThreshold);
}

Phases allToAllBased(int n, const Pattern& pattern, int64_t smallThreshold) {
  const std::vector<Message> m = sortedMessages(pattern);
  return AllToAll(n, m).run(smallThreshold);
}

double estimateSeconds(const Phases& phases, const CostModel& model) {
  double t = 0;
  for (const Phase& p : phases) {
    if (!p.small) {
      t += static_cast<double>(p.largest()) / model.bytesPerSecond;
      continue;
    }
    // the small phase: bounded by the busiest host's bytes in or out
    int lo = 0, hi = 0;
    for (const Message& x : p.messages) {
      lo = std::min({lo, x.src, x.dst});
      hi = std::max({hi, x.src, x.dst});
    }
    int64_t busiest = 0;
    if (static_cast<int64_t>(hi) - lo < (int64_t{1} << 24)) {
      std::vector<int64_t> in(hi - lo + 1, 0), out(hi - lo + 1, 0);
      for (const Message& x : p.messages) {
        busiest = std::max(busiest, out[x.src - lo] += x.bytes);
        busiest = std::max(busiest, in[x.dst - lo] += x.bytes);
      }
    } else {
      std::map<int, int64_t> in, out;
      for (const Message& x : p.messages) {
        busiest = std::max(busiest, out[x.src] += x.bytes);
        busiest = std::max(busiest, in[x.dst] += x.bytes);
      }
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
  const std::vector<Message> m = sortedMessages(pattern);
  Phases a = AllToAll(n, m).run(smallThreshold);
  Phases g = greedySorted(n, m, smallThreshold);
  const bool greedyWins = estimateSeconds(g, model) < estimateSeconds(a, model);
  if (which) *which = greedyWins ? Scheduler::kGreedy : Scheduler::kAllToAllBased;
  return greedyWins ? std::move(g) : std::move(a);
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

namespace {

// The host pattern (messages between hosts summed per host pair, in the order of the
// pairs' first messages) and the local messages.
struct HostPattern {
  int hosts = 0;
  Pattern pairs, local;
  std::vector<int> pairOf;  // per schedulable message between hosts (pattern order): its pair
};

HostPattern hostPattern(const std::vector<int>& hostOf, const Pattern& pattern) {
  HostPattern hp;
  for (int h : hostOf) hp.hosts = std::max(hp.hosts, h + 1);
  std::map<std::pair<int, int>, int> index;
  for (const Message& x : pattern) {
    if (x.src == x.dst || x.bytes <= 0) continue;
    const int a = hostOf[x.src], b = hostOf[x.dst];
    if (a == b) {
      hp.local.push_back(x);
      continue;
    }
    auto [it, fresh] = index.try_emplace({a, b}, static_cast<int>(hp.pairs.size()));
    if (fresh) hp.pairs.push_back({a, b, 0});
    hp.pairs[it->second].bytes += x.bytes;
    hp.pairOf.push_back(it->second);
  }
  return hp;
}

// Expands host phases into rank phases (see HostSchedule).
HostSchedule expand(const std::vector<int>& hostOf, const Pattern& pattern, HostPattern hp,
                    Phases hostLevel) {
  HostSchedule out;
  out.local = std::move(hp.local);
  // Local index of each rank on its host, and the largest host's rank count.
  std::vector<int> localIndex(hostOf.size()), count(hp.hosts, 0);
  for (size_t r = 0; r < hostOf.size(); ++r) localIndex[r] = count[hostOf[r]]++;
  const int widest = count.empty() ? 1 : std::max(1, *std::max_element(count.begin(), count.end()));
  // Host phase of every host pair.
  std::map<std::pair<int, int>, int> phaseOfPair;
  for (size_t k = 0; k < hostLevel.size(); ++k)
    for (const Message& x : hostLevel[k].messages)
      phaseOfPair[{x.src, x.dst}] = static_cast<int>(k);
  std::vector<int> pairPhase(hp.pairs.size());
  for (size_t i = 0; i < hp.pairs.size(); ++i)
    pairPhase[i] = phaseOfPair.at({hp.pairs[i].src, hp.pairs[i].dst});
  std::vector<Pattern> bucket(hostLevel.size());
  size_t j = 0;
  for (const Message& x : pattern) {
    if (x.src == x.dst || x.bytes <= 0 || hostOf[x.src] == hostOf[x.dst]) continue;
    bucket[pairPhase[hp.pairOf[j++]]].push_back(x);
  }
  std::vector<int> compact(hostOf.size(), -1);
  for (size_t k = 0; k < hostLevel.size(); ++k) {
    Pattern& b = bucket[k];
    if (hostLevel[k].small) {
      Phase p;
      p.small = true;
      p.messages = std::move(b);
      out.phases.push_back(std::move(p));
      out.hostPhase.push_back(static_cast<int>(k));
      continue;
    }
    auto rotation = [&](const Message& x) {
      return ((localIndex[x.dst] - localIndex[x.src]) % widest + widest) % widest;
    };
    std::stable_sort(b.begin(), b.end(),
                     [&](const Message& x, const Message& y) { return rotation(x) < rotation(y); });
    // Greedy on the ranks of this host phase only, renumbered from 0.
    std::vector<int> ranks;
    Pattern renamed = b;
    for (Message& x : renamed)
      for (int* r : {&x.src, &x.dst}) {
        if (compact[*r] < 0) {
          compact[*r] = static_cast<int>(ranks.size());
          ranks.push_back(*r);
        }
        *r = compact[*r];
      }
    for (int r : ranks) compact[r] = -1;
    for (Phase& p : greedy(static_cast<int>(ranks.size()), renamed, 0)) {
      for (Message& x : p.messages) x.src = ranks[x.src], x.dst = ranks[x.dst];
      out.phases.push_back(std::move(p));
      out.hostPhase.push_back(static_cast<int>(k));
    }
  }
  out.hostLevel = std::move(hostLevel);
  return out;
}

}  // namespace

HostSchedule onHosts(Scheduler s, const std::vector<int>& hostOf, const Pattern& pattern,
                     int64_t smallThreshold) {
  HostPattern hp = hostPattern(hostOf, pattern);
  Phases hostLevel = s == Scheduler::kGreedy ? greedy(hp.hosts, hp.pairs, smallThreshold)
                                             : allToAllBased(hp.hosts, hp.pairs, smallThreshold);
  return expand(hostOf, pattern, std::move(hp), std::move(hostLevel));
}

HostSchedule bestOnHosts(const std::vector<int>& hostOf, const Pattern& pattern,
                         int64_t smallThreshold, const CostModel& model, Scheduler* which) {
  HostPattern hp = hostPattern(hostOf, pattern);
  Scheduler w = Scheduler::kAllToAllBased;
  Phases hostLevel = best(hp.hosts, hp.pairs, smallThreshold, model, &w);
  if (which) *which = w;
  return expand(hostOf, pattern, std::move(hp), std::move(hostLevel));
}

std::string validateHosts(const std::vector<int>& hostOf, const Pattern& pattern,
                          const HostSchedule& s, int64_t smallThreshold) {
  const int n = static_cast<int>(hostOf.size());
  int hosts = 0;
  for (int h : hostOf) {
    if (h < 0) return "a host id is negative";
    hosts = std::max(hosts, h + 1);
  }
  std::map<std::tuple<int, int, int64_t>, int> want, wantLocal;
  for (const Message& x : pattern) {
    if (x.src < 0 || x.src >= n || x.dst < 0 || x.dst >= n) return "message outside [0, n)";
    if (x.src == x.dst || x.bytes <= 0) continue;
    ++(hostOf[x.src] == hostOf[x.dst] ? wantLocal : want)[{x.src, x.dst, x.bytes}];
  }
  for (const Message& x : s.local) {
    if (x.src < 0 || x.src >= n || x.dst < 0 || x.dst >= n) return "local message outside [0, n)";
    auto it = wantLocal.find({x.src, x.dst, x.bytes});
    if (it == wantLocal.end() || it->second == 0)
      return "local holds a message not within one host of the pattern (or twice)";
    --it->second;
  }
  for (const auto& [key, left] : wantLocal)
    if (left) return "a message within a host is not in local";
  if (s.hostPhase.size() != s.phases.size()) return "hostPhase and phases differ in length";
  std::vector<int> sendsTo(hosts, -1), recvsFrom(hosts, -1);
  std::map<std::pair<int, int>, int64_t> smallPairs;
  for (size_t k = 0; k < s.phases.size(); ++k) {
    const Phase& p = s.phases[k];
    const std::string where = "phase " + std::to_string(k);
    if (p.messages.empty()) return where + " is empty";
    if (k > 0 && s.hostPhase[k] < s.hostPhase[k - 1]) return where + ": host phase goes back";
    const bool newHostPhase = k == 0 || s.hostPhase[k] != s.hostPhase[k - 1];
    if (p.small && k + 1 != s.phases.size()) return "the small phase is not the last";
    if (p.small && !newHostPhase) return "the small phase shares its host phase";
    if (newHostPhase) {
      std::fill(sendsTo.begin(), sendsTo.end(), -1);
      std::fill(recvsFrom.begin(), recvsFrom.end(), -1);
    } else if (s.phases[k - 1].small) {
      return where + " shares the small phase's host phase";
    }
    std::vector<int> sends(n, 0), recvs(n, 0);
    for (const Message& x : p.messages) {
      if (x.src < 0 || x.src >= n || x.dst < 0 || x.dst >= n) return where + ": rank outside";
      auto it = want.find({x.src, x.dst, x.bytes});
      if (it == want.end() || it->second == 0)
        return where + " holds a message not between hosts of the pattern (or twice)";
      --it->second;
      const int a = hostOf[x.src], b = hostOf[x.dst];
      if (p.small) {
        if ((smallPairs[{a, b}] += x.bytes) >= smallThreshold)
          return "the small phase holds " + std::to_string(smallPairs[{a, b}]) +
                 " bytes or more from host " + std::to_string(a) + " to host " + std::to_string(b);
        continue;
      }
      if (++sends[x.src] > 1) return where + ": rank " + std::to_string(x.src) + " sends twice";
      if (++recvs[x.dst] > 1) return where + ": rank " + std::to_string(x.dst) + " receives twice";
      if (sendsTo[a] >= 0 && sendsTo[a] != b)
        return where + ": host " + std::to_string(a) + " sends to hosts " +
               std::to_string(sendsTo[a]) + " and " + std::to_string(b) + " in one host phase";
      if (recvsFrom[b] >= 0 && recvsFrom[b] != a)
        return where + ": host " + std::to_string(b) + " receives from hosts " +
               std::to_string(recvsFrom[b]) + " and " + std::to_string(a) + " in one host phase";
      sendsTo[a] = b;
      recvsFrom[b] = a;
    }
  }
  for (const auto& [key, left] : want)
    if (left) return "a message between hosts is not scheduled";
  return "";
}

RankSteps allToAllOnHosts(const std::vector<int>& hostOf, int rank) {
  int hosts = 0;
  for (int h : hostOf) hosts = std::max(hosts, h + 1);
  std::vector<std::vector<int>> ranksOf(hosts);
  for (size_t r = 0; r < hostOf.size(); ++r) ranksOf[hostOf[r]].push_back(static_cast<int>(r));
  size_t widest = 1;
  for (const auto& v : ranksOf) widest = std::max(widest, v.size());
  RankSteps out;
  const int h = hostOf[rank];
  const std::vector<int>& mine = ranksOf[h];
  const size_t i = std::find(mine.begin(), mine.end(), rank) - mine.begin();
  for (int r : mine)
    if (r != rank) out.local.push_back(r);
  for (int k = 1; k < hosts; ++k) {
    const std::vector<int>& to = ranksOf[(h + k) % hosts];
    const std::vector<int>& from = ranksOf[(h - k + hosts) % hosts];
    for (size_t d = 0; d < widest; ++d) {
      const size_t j = (i + d) % widest, f = (i + widest - d) % widest;
      out.steps.push_back({j < to.size() ? to[j] : -1, f < from.size() ? from[f] : -1});
    }
  }
  return out;
}

bool parseHostMap(const std::string& spec, std::vector<int>* out) {
  out->clear();
  for (size_t at = 0; at <= spec.size();) {
    const size_t end = std::min(spec.find(',', at), spec.size());
    const std::string item = spec.substr(at, end - at);
    int host = -1;
    long count = 1;
    char extra = 0;
    const int got = sscanf(item.c_str(), "%d*%ld%c", &host, &count, &extra);
    const bool star = item.find('*') != std::string::npos;
    if (got < 1 || got > 2 || (got == 1 && star) || host < 0 || count < 1 ||
        out->size() + static_cast<size_t>(count) > (size_t{1} << 24)) {
      out->clear();
      return false;
    }
    out->insert(out->end(), static_cast<size_t>(count), host);
    at = end + 1;
  }
  return !out->empty();
}

}  // namespace ccmpi::sched
