// The CM-5 seed's random schedulers RS_N and RS_NH (see sched.h).
#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "sched/sched.h"

namespace ccmpi::sched {
namespace {

// Each row's messages (indices into the pattern), schedulable ones only, in pattern order.
std::vector<std::vector<uint32_t>> rowsOf(int n, const Pattern& pattern) {
  std::vector<std::vector<uint32_t>> rows(n);
  for (uint32_t i = 0; i < pattern.size(); ++i) {
    const Message& m = pattern[i];
    if (m.bytes > 0 && m.src != m.dst) rows[m.src].push_back(i);
  }
  return rows;
}

}  // namespace

Phases randomNode(int n, const Pattern& pattern, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<uint32_t>> rows = rowsOf(n, pattern);
  size_t left = 0;
  for (auto& r : rows) {
    std::shuffle(r.begin(), r.end(), rng);
    left += r.size();
  }
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::vector<uint32_t> takenAt(n, 0);  // column k taken in phase takenAt[k] - 1
  Phases phases;
  while (left > 0) {
    Phase ph;
    const uint32_t stamp = static_cast<uint32_t>(phases.size()) + 1;
    std::shuffle(order.begin(), order.end(), rng);
    for (int i : order) {
      std::vector<uint32_t>& row = rows[i];
      for (size_t j = 0; j < row.size(); ++j) {
        const Message& m = pattern[row[j]];
        if (takenAt[m.dst] == stamp) continue;
        takenAt[m.dst] = stamp;
        ph.messages.push_back(m);
        row.erase(row.begin() + static_cast<std::ptrdiff_t>(j));
        --left;
        break;
      }
    }
    phases.push_back(std::move(ph));
  }
  return phases;
}

Phases randomNodeHeap(int n, const Pattern& pattern, uint64_t seed, int64_t minPiece,
                      int64_t unit) {
  std::mt19937_64 rng(seed);
  unit = std::max<int64_t>(1, unit);
  minPiece = std::max(minPiece, unit);
  std::vector<std::vector<uint32_t>> rows = rowsOf(n, pattern);
  std::vector<int64_t> sent(pattern.size(), 0);
  size_t left = 0;
  for (auto& r : rows) {
    std::shuffle(r.begin(), r.end(), rng);  // ties among equal sizes: a random order
    left += r.size();
  }
  auto rest = [&](uint32_t i) { return pattern[i].bytes - sent[i]; };
  // Largest remaining first (a max-heap per row, re-ordered as pieces go out).
  auto larger = [&](uint32_t a, uint32_t b) { return rest(a) < rest(b); };
  for (auto& r : rows) std::make_heap(r.begin(), r.end(), larger);
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::vector<uint32_t> takenAt(n, 0);
  std::vector<uint32_t> popped;
  Phases phases;
  while (left > 0) {
    const uint32_t stamp = static_cast<uint32_t>(phases.size()) + 1;
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<uint32_t> chosen;
    for (int i : order) {
      std::vector<uint32_t>& row = rows[i];
      popped.clear();
      // The largest message of the row whose destination is still free in this phase.
      while (!row.empty()) {
        std::pop_heap(row.begin(), row.end(), larger);
        const uint32_t m = row.back();
        row.pop_back();
        if (takenAt[pattern[m].dst] != stamp) {
          takenAt[pattern[m].dst] = stamp;
          chosen.push_back(m);
          break;
        }
        popped.push_back(m);
      }
      for (uint32_t m : popped) {
        row.push_back(m);
        std::push_heap(row.begin(), row.end(), larger);
      }
    }
    int64_t sum = 0;
    for (uint32_t m : chosen) sum += rest(m);
    int64_t cutoff = chosen.empty() ? 0 : sum / static_cast<int64_t>(chosen.size());
    cutoff = std::max(minPiece, (cutoff + unit - 1) / unit * unit);
    Phase ph;
    for (uint32_t m : chosen) {
      const int64_t piece = std::min(rest(m), cutoff);
      Message x = pattern[m];
      x.offset = sent[m];
      x.bytes = piece;
      ph.messages.push_back(x);
      sent[m] += piece;
      if (rest(m) > 0) {
        std::vector<uint32_t>& row = rows[pattern[m].src];
        row.push_back(m);
        std::push_heap(row.begin(), row.end(), larger);
      } else {
        --left;
      }
    }
    phases.push_back(std::move(ph));
  }
  return phases;
}

std::string validatePieces(int n, const Pattern& pattern, const Phases& phases) {
  std::map<std::pair<int, int>, int64_t> want, got;
  for (const Message& m : pattern)
    if (m.bytes > 0 && m.src != m.dst) want[{m.src, m.dst}] += m.bytes;
  for (size_t p = 0; p < phases.size(); ++p) {
    std::vector<char> s(n, 0), r(n, 0);
    for (const Message& m : phases[p].messages) {
      if (m.src < 0 || m.src >= n || m.dst < 0 || m.dst >= n || m.bytes <= 0)
        return "phase " + std::to_string(p) + ": a bad message";
      if (s[m.src]++ || r[m.dst]++)
        return "phase " + std::to_string(p) + ": rank " + std::to_string(m.src) + " or " +
               std::to_string(m.dst) + " twice";
      int64_t& g = got[{m.src, m.dst}];
      if (m.offset != g)
        return "phase " + std::to_string(p) + ": piece " + std::to_string(m.src) + "->" +
               std::to_string(m.dst) + " at " + std::to_string(m.offset) + ", expected " +
               std::to_string(g);
      g += m.bytes;
    }
  }
  if (got != want) return "the pieces do not cover the pattern";
  return "";
}

}  // namespace ccmpi::sched
