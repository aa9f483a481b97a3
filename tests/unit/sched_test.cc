// Message schedulers: the paper's worked example (CC-MPI Figure 3), all-to-all patterns,
// random patterns checked against the invariants (every message once, no host sending or
// receiving twice in a phase, the small-message phase last and small, at most n - 1
// phases for the all-to-all based scheduler), and the indexed schedulers checked against
// straightforward ones that rescan every remaining message for every phase.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <tuple>

#include "sched/files.h"
#include "sched/sched.h"

namespace ccmpi::sched {
namespace {

constexpr int64_t kMB = 1 << 20, kKB = 1 << 10;

Pattern figure3() {
  return {{0, 1, kMB}, {1, 3, kMB}, {0, 2, 10 * kKB}, {2, 3, 100}, {1, 5, 100}, {2, 1, 100}};
}

// The schedulers as the paper states them: every phase scans all remaining messages,
// largest first (stable). allToAll: the phase first takes the all-to-all phase of the
// largest remaining message.
Phases straightforward(int n, const Pattern& pattern, int64_t smallThreshold, bool allToAll) {
  std::vector<Message> m;
  for (const Message& x : pattern)
    if (x.src != x.dst && x.bytes > 0) m.push_back(x);
  std::stable_sort(m.begin(), m.end(),
                   [](const Message& a, const Message& b) { return a.bytes > b.bytes; });
  std::vector<bool> done(m.size(), false);
  size_t left = m.size();
  Phases out;
  while (left > 0) {
    const size_t first = std::find(done.begin(), done.end(), false) - done.begin();
    Phase p;
    if (m[first].bytes < smallThreshold) {
      p.small = true;
      for (size_t i = 0; i < m.size(); ++i)
        if (!done[i]) p.messages.push_back(m[i]);
      out.push_back(p);
      break;
    }
    std::vector<bool> sending(n, false), receiving(n, false);
    auto offset = [n](const Message& x) { return (x.dst - x.src + n) % n; };
    for (int pass = allToAll ? 0 : 1; pass < 2; ++pass)
      for (size_t i = 0; i < m.size(); ++i) {
        if (done[i] || sending[m[i].src] || receiving[m[i].dst]) continue;
        if (pass == 0 && offset(m[i]) != offset(m[first])) continue;
        sending[m[i].src] = receiving[m[i].dst] = true;
        done[i] = true;
        --left;
        p.messages.push_back(m[i]);
      }
    out.push_back(p);
  }
  return out;
}

void expectSamePhases(const Phases& got, const Phases& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t k = 0; k < got.size(); ++k) {
    ASSERT_EQ(got[k].small, want[k].small) << what << ", phase " << k;
    ASSERT_EQ(got[k].messages, want[k].messages) << what << ", phase " << k;
  }
}

// Every ordered pair at most once: with probability `density` (dense) or `perRank`
// distinct destinations a rank (sparse); sizes from the paper's mix and a few odd ones.
Pattern randomPattern(std::mt19937* rng, int n, double density, int perRank) {
  const int64_t sizes[] = {1, 100, 4096, 16 * 1024, 64 * 1024, 1 << 20, 3000, 70000};
  Pattern p;
  std::uniform_real_distribution<double> coin(0, 1);
  for (int s = 0; s < n; ++s) {
    std::vector<int> dsts;
    for (int d = 0; d < n; ++d)
      if (d != s) dsts.push_back(d);
    std::shuffle(dsts.begin(), dsts.end(), *rng);
    if (perRank > 0) dsts.resize(std::min<size_t>(dsts.size(), perRank));
    for (int d : dsts)
      if (perRank > 0 || coin(*rng) < density) p.push_back({s, d, sizes[(*rng)() % 8]});
  }
  std::shuffle(p.begin(), p.end(), *rng);
  return p;
}

TEST(Sched, Figure3Greedy) {
  const Phases p = greedy(6, figure3(), 0);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].messages, (std::vector<Message>{{0, 1, kMB}, {1, 3, kMB}}));
  EXPECT_EQ(p[1].messages, (std::vector<Message>{{0, 2, 10 * kKB}, {2, 3, 100}, {1, 5, 100}}));
  EXPECT_EQ(p[2].messages, (std::vector<Message>{{2, 1, 100}}));
  EXPECT_EQ(validate(6, figure3(), p, 0), "");
}

TEST(Sched, Figure3AllToAllBased) {
  const Phases p = allToAllBased(6, figure3(), 0);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].messages, (std::vector<Message>{{0, 1, kMB}, {2, 3, 100}, {1, 5, 100}}));
  EXPECT_EQ(p[1].messages, (std::vector<Message>{{1, 3, kMB}, {0, 2, 10 * kKB}, {2, 1, 100}}));
  EXPECT_EQ(validate(6, figure3(), p, 0), "");
}

TEST(Sched, CostModelPicksPerPattern) {
  // Figure 3 at 100 Mbit/s with a 1 ms barrier: greedy = 1MB + 10KB + 100B phases + 2
  // barriers, all-to-all based = two 1MB phases + 1 barrier: greedy is cheaper here.
  CostModel m{12.5e6, 1e-3};
  Scheduler which;
  const Phases p = best(6, figure3(), 0, m, &which);
  EXPECT_EQ(which, Scheduler::kGreedy);
  EXPECT_EQ(p.size(), 3u);
  // with an expensive barrier the fewer phases win
  m.syncSeconds = 0.2;
  best(6, figure3(), 0, m, &which);
  EXPECT_EQ(which, Scheduler::kAllToAllBased);
}

TEST(Sched, SmallMessagesGoInOneFinalPhase) {
  const Phases p = greedy(6, figure3(), 16 * kKB);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_FALSE(p[0].small);
  EXPECT_TRUE(p[1].small);
  EXPECT_EQ(p[1].messages.size(), 4u);
  EXPECT_EQ(validate(6, figure3(), p, 16 * kKB), "");
  // all-to-all based fills its two phases with the small messages before any is left
  const Phases a = allToAllBased(6, figure3(), 16 * kKB);
  EXPECT_EQ(a.size(), 2u);
  EXPECT_EQ(validate(6, figure3(), a, 16 * kKB), "");
  // everything small: a single phase, even with contention in it
  const Phases s = allToAllBased(6, figure3(), 2 * kMB);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_TRUE(s[0].small);
}

TEST(Sched, AllToAllNeedsNMinusOnePhases) {
  for (int n : {2, 3, 4, 7, 16}) {
    Pattern all;
    for (int s = 0; s < n; ++s)
      for (int d = 0; d < n; ++d) all.push_back({s, d, 4096});
    const Phases a = allToAllBased(n, all, 0);
    EXPECT_EQ(a.size(), static_cast<size_t>(n - 1)) << n;
    EXPECT_EQ(validate(n, all, a, 0), "") << n;
    for (const Phase& p : a) EXPECT_EQ(p.messages.size(), static_cast<size_t>(n)) << n;
    EXPECT_EQ(validate(n, all, greedy(n, all, 0), 0), "") << n;
  }
}

TEST(Sched, SelfAndEmptyMessagesAreNotScheduled) {
  const Pattern p = {{0, 0, 100}, {1, 2, 0}, {2, 1, 5}};
  const Phases g = greedy(3, p, 0);
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].messages, (std::vector<Message>{{2, 1, 5}}));
}

TEST(Sched, ValidateCatchesBrokenSchedules) {
  const Pattern p = figure3();
  Phases bad = greedy(6, p, 0);
  bad[1].messages.push_back({2, 1, 100});  // host 2 sends twice; message also twice
  EXPECT_NE(validate(6, p, bad, 0), "");
  Phases missing = greedy(6, p, 0);
  missing.pop_back();
  EXPECT_EQ(validate(6, p, missing, 0), "a message of the pattern is not scheduled");
  Phases twice = {{{{0, 1, kMB}, {0, 2, 10 * kKB}}, false}};
  EXPECT_NE(validate(6, {{0, 1, kMB}, {0, 2, 10 * kKB}}, twice, 0).find("sends twice"),
            std::string::npos);
}

TEST(Sched, RandomPatternsKeepTheInvariants) {
  std::mt19937 rng(12345);
  for (int iter = 0; iter < 300; ++iter) {
    const int n = 2 + static_cast<int>(rng() % 29);
    Pattern p;
    const int count = static_cast<int>(rng() % (n * n + 1));
    for (int k = 0; k < count; ++k) {
      const int64_t sizes[] = {1, 100, 4096, 16 * kKB, 64 * kKB, kMB};
      p.push_back({static_cast<int>(rng() % n), static_cast<int>(rng() % n), sizes[rng() % 6]});
    }
    const int64_t threshold = (iter % 3 == 0) ? 0 : 1024;
    const Phases g = greedy(n, p, threshold);
    const Phases a = allToAllBased(n, p, threshold);
    ASSERT_EQ(validate(n, p, g, threshold), "") << "greedy, iteration " << iter;
    ASSERT_EQ(validate(n, p, a, threshold), "") << "all-to-all based, iteration " << iter;
  }
}

TEST(Sched, Table3PatternAllToAllBasedWithinNMinusOne) {
  // the paper's random pattern on 16 hosts: 160 x 64 KB, 20 x 16 KB, 60 x 100 B, each
  // (src, dst) pair at most once
  std::mt19937 rng(7);
  std::vector<std::pair<int, int>> pairs;
  for (int s = 0; s < 16; ++s)
    for (int d = 0; d < 16; ++d)
      if (s != d) pairs.push_back({s, d});
  std::shuffle(pairs.begin(), pairs.end(), rng);
  Pattern p;
  for (size_t k = 0; k < 240; ++k)
    p.push_back({pairs[k].first, pairs[k].second, k < 160 ? 64 * kKB : k < 180 ? 16 * kKB : 100});
  const Phases a = allToAllBased(16, p, 0);
  EXPECT_LE(a.size(), 15u);
  EXPECT_EQ(validate(16, p, a, 0), "");
  EXPECT_EQ(validate(16, p, greedy(16, p, 0), 0), "");
}

TEST(Sched, AllToAllBasedWithinNMinusOnePhasesOnRandomPatterns) {
  // each pair at most once: every phase empties the all-to-all phase it starts from, so at
  // most n - 1 contention-free phases, plus at most one small phase
  std::mt19937 rng(2024);
  for (int n : {2, 3, 4, 5, 8, 13, 16, 31, 32, 64}) {
    for (int shape = 0; shape < 5; ++shape) {
      const Pattern p = shape == 0   ? randomPattern(&rng, n, 1.0, 0)
                        : shape == 1 ? randomPattern(&rng, n, 0.8, 0)
                        : shape == 2 ? randomPattern(&rng, n, 0.3, 0)
                        : shape == 3 ? randomPattern(&rng, n, 0, 1)
                                     : randomPattern(&rng, n, 0, std::max(1, n / 8));
      for (int64_t threshold : {int64_t{0}, 4 * kKB, 100 * kKB}) {
        const std::string what = "n " + std::to_string(n) + ", shape " + std::to_string(shape) +
                                 ", threshold " + std::to_string(threshold);
        const Phases a = allToAllBased(n, p, threshold);
        ASSERT_EQ(validate(n, p, a, threshold), "") << what;
        const size_t contentionFree =
            std::count_if(a.begin(), a.end(), [](const Phase& x) { return !x.small; });
        EXPECT_LE(contentionFree, static_cast<size_t>(n - 1)) << what;
        EXPECT_LE(a.size(), static_cast<size_t>(n)) << what;
        if (threshold == 0) {
          EXPECT_LE(a.size(), static_cast<size_t>(n - 1)) << what;
        }
      }
    }
  }
}

TEST(Sched, MatchSchedulersThatRescanEveryMessage) {
  // the indexed schedulers (first fit for greedy, per-offset and per-sender lists for the
  // all-to-all based one) give exactly the phases of the straightforward ones, duplicates
  // of a pair and thresholds included
  std::mt19937 rng(31337);
  for (int iter = 0; iter < 400; ++iter) {
    const int n = 1 + static_cast<int>(rng() % 64);
    Pattern p;
    if (iter % 2 == 0) {
      p = randomPattern(&rng, n, (rng() % 100) / 100.0, 0);
    } else {
      const int count = static_cast<int>(rng() % (2 * n * n + 1));
      for (int k = 0; k < count; ++k)  // pairs repeat, sizes mostly distinct
        p.push_back({static_cast<int>(rng() % n), static_cast<int>(rng() % n),
                     static_cast<int64_t>(rng() % 3 == 0 ? rng() % 10 : rng() % 200000)});
    }
    const int64_t threshold = std::vector<int64_t>{0, 1, 1024, 4096, 150000}[iter % 5];
    const std::string what = "iteration " + std::to_string(iter);
    expectSamePhases(greedy(n, p, threshold), straightforward(n, p, threshold, false),
                     "greedy, " + what);
    expectSamePhases(allToAllBased(n, p, threshold), straightforward(n, p, threshold, true),
                     "all-to-all based, " + what);
  }
}

TEST(Sched, GreedyWithMorePhasesThanOneBitsetWindow) {
  // 65536 hosts and 3000 messages, 1500 of them to host 0: 1500+ phases, more than the
  // phases greedy tracks per pass at this host count, so several passes
  std::mt19937 rng(5);
  const int n = 1 << 16;
  Pattern p;
  for (int k = 0; k < 3000; ++k) {
    const int src = 1 + static_cast<int>(rng() % (n - 1));
    const int dst = k % 2 ? 0 : static_cast<int>(rng() % n);
    p.push_back({src, dst, static_cast<int64_t>(1 + rng() % 100000)});
  }
  for (int64_t threshold : {int64_t{0}, int64_t{50000}}) {
    const Phases g = greedy(n, p, threshold);
    EXPECT_GE(g.size(), threshold ? 700u : 1500u);
    expectSamePhases(g, straightforward(n, p, threshold, false),
                     "threshold " + std::to_string(threshold));
  }
}

TEST(Sched, BestReturnsTheCheaperScheduleUnchanged) {
  std::mt19937 rng(77);
  for (int iter = 0; iter < 40; ++iter) {
    const int n = 2 + static_cast<int>(rng() % 40);
    const Pattern p = randomPattern(&rng, n, 0.5, 0);
    const CostModel model{12.5e6, iter % 2 ? 1e-3 : 1e-6};
    Scheduler which;
    const Phases b = best(n, p, 4 * kKB, model, &which);
    const Phases g = greedy(n, p, 4 * kKB), a = allToAllBased(n, p, 4 * kKB);
    const bool greedyCheaper = estimateSeconds(g, model) < estimateSeconds(a, model);
    EXPECT_EQ(which, greedyCheaper ? Scheduler::kGreedy : Scheduler::kAllToAllBased);
    expectSamePhases(b, greedyCheaper ? g : a, "iteration " + std::to_string(iter));
  }
}

TEST(Sched, EstimateChargesTheBusiestHostOfTheSmallPhase) {
  // phase 0: 1 MB; small phase: host 0 sends 300 B, host 1 receives 350 B; one sync
  Phases p(2);
  p[0].messages = {{0, 1, kMB}, {2, 3, 10}};
  p[1].small = true;
  p[1].messages = {{0, 1, 100}, {0, 2, 200}, {3, 1, 250}};
  const CostModel m{1e6, 0.5};
  EXPECT_DOUBLE_EQ(estimateSeconds(p, m), kMB / 1e6 + 350 / 1e6 + 0.5);
  EXPECT_DOUBLE_EQ(estimateSeconds({p[0]}, m), kMB / 1e6);
}

// ---- host-level schedules ----

// hosts x perHost ranks, ranks of a host consecutive.
std::vector<int> blockHosts(int hosts, int perHost) {
  std::vector<int> h;
  for (int a = 0; a < hosts; ++a) h.insert(h.end(), perHost, a);
  return h;
}

Pattern densePattern(int n, int64_t bytes) {
  Pattern p;
  for (int s = 0; s < n; ++s)
    for (int d = 0; d < n; ++d)
      if (s != d) p.push_back({s, d, bytes});
  return p;
}

TEST(SchedHosts, DenseAlltoallOnFourHostsOfFour) {
  const std::vector<int> hostOf = blockHosts(4, 4);
  const Pattern p = densePattern(16, 64 * kKB);
  for (Scheduler which : {Scheduler::kGreedy, Scheduler::kAllToAllBased}) {
    const HostSchedule s = onHosts(which, hostOf, p, 4096);
    ASSERT_EQ(validateHosts(hostOf, p, s, 4096), "") << schedulerName(which);
    EXPECT_EQ(s.local.size(), 4u * 4 * 3) << schedulerName(which);
    // Host pairs exchange 16 blocks each: 3 host phases (every host sends to another
    // host and receives from a third), each of 4 rank phases of 4 blocks a host pair.
    ASSERT_EQ(s.hostLevel.size(), 3u) << schedulerName(which);
    for (const Phase& h : s.hostLevel) {
      EXPECT_EQ(h.messages.size(), 4u);
      for (const Message& x : h.messages) EXPECT_EQ(x.bytes, 16 * 64 * kKB);
    }
    ASSERT_EQ(s.phases.size(), 12u) << schedulerName(which);
    for (const Phase& r : s.phases) EXPECT_EQ(r.messages.size(), 16u);
  }
}

TEST(SchedHosts, OneRankPerHostIsTheRankSchedule) {
  std::mt19937 rng(7);
  for (int iter = 0; iter < 40; ++iter) {
    const int n = 2 + static_cast<int>(rng() % 20);
    const Pattern p = randomPattern(&rng, n, 0.6, 0);
    std::vector<int> hostOf(n);
    std::iota(hostOf.begin(), hostOf.end(), 0);
    for (Scheduler which : {Scheduler::kGreedy, Scheduler::kAllToAllBased}) {
      const HostSchedule s = onHosts(which, hostOf, p, 4096);
      const Phases r = which == Scheduler::kGreedy ? greedy(n, p, 4096) : allToAllBased(n, p, 4096);
      ASSERT_EQ(validateHosts(hostOf, p, s, 4096), "");
      EXPECT_TRUE(s.local.empty());
      ASSERT_EQ(s.phases.size(), r.size()) << "iteration " << iter;
      for (size_t k = 0; k < r.size(); ++k) {
        auto key = [](const Message& a, const Message& b) {
          return std::tie(a.src, a.dst) < std::tie(b.src, b.dst);
        };
        std::vector<Message> got = s.phases[k].messages, want = r[k].messages;
        std::sort(got.begin(), got.end(), key);
        std::sort(want.begin(), want.end(), key);
        ASSERT_EQ(got, want) << "iteration " << iter << ", phase " << k;
        EXPECT_EQ(s.phases[k].small, r[k].small);
      }
    }
  }
}

TEST(SchedHosts, RandomPatternsOnRandomHostsKeepTheInvariants) {
  std::mt19937 rng(2026);
  for (int iter = 0; iter < 200; ++iter) {
    const int n = 2 + static_cast<int>(rng() % 40);
    const int hosts = 1 + static_cast<int>(rng() % std::min(n, 9));
    std::vector<int> hostOf(n);
    for (int r = 0; r < n; ++r) hostOf[r] = r < hosts ? r : static_cast<int>(rng() % hosts);
    std::shuffle(hostOf.begin(), hostOf.end(), rng);
    Pattern p = iter % 2 ? randomPattern(&rng, n, 0.5, 0) : randomPattern(&rng, n, 0, 3);
    if (iter % 5 == 0) p.push_back(p.empty() ? Message{0, 1, 5} : p[0]);  // a repeated pair
    const int64_t threshold = iter % 3 == 0 ? 0 : 20000;
    CostModel model;
    Scheduler w;
    for (int which = 0; which < 3; ++which) {
      const HostSchedule s = which == 2
                                 ? bestOnHosts(hostOf, p, threshold, model, &w)
                                 : onHosts(which ? Scheduler::kAllToAllBased : Scheduler::kGreedy,
                                           hostOf, p, threshold);
      ASSERT_EQ(validateHosts(hostOf, p, s, threshold), "")
          << "iteration " << iter << ", scheduler " << which;
      // Host pairs are unique in the host pattern: the all-to-all based scheduler needs at
      // most hosts - 1 host phases (plus the small one).
      size_t big = 0;
      for (const Phase& h : s.hostLevel) big += h.small ? 0 : 1;
      if (which == 1) {
        EXPECT_LE(big, static_cast<size_t>(std::max(hosts - 1, 0)));
      }
      // A host phase's rank phases: greedy's bound on its busiest rank.
      for (size_t k = 0; k < s.hostLevel.size(); ++k) {
        if (s.hostLevel[k].small) continue;
        std::vector<int> out(n, 0), in(n, 0);
        size_t phases = 0;
        for (size_t j = 0; j < s.phases.size(); ++j) {
          if (s.hostPhase[j] != static_cast<int>(k)) continue;
          ++phases;
          for (const Message& x : s.phases[j].messages) ++out[x.src], ++in[x.dst];
        }
        const int bound =
            *std::max_element(out.begin(), out.end()) + *std::max_element(in.begin(), in.end()) - 1;
        EXPECT_LE(phases, static_cast<size_t>(std::max(bound, 1)));
      }
    }
  }
}

TEST(SchedHosts, DirectAllToAllOnHostsIsAValidHostSchedule) {
  // Even and uneven hosts, ranks of a host consecutive or interleaved.
  const std::vector<std::vector<int>> maps = {blockHosts(4, 4),   blockHosts(3, 1),
                                              {0, 1, 0, 1, 0, 1}, {0, 0, 0, 1, 2, 2},
                                              {2, 0, 1, 0, 1},    {0, 0, 0, 0}};
  for (const std::vector<int>& hostOf : maps) {
    const int n = static_cast<int>(hostOf.size());
    const Pattern p = densePattern(n, 1000);
    const int hosts = 1 + *std::max_element(hostOf.begin(), hostOf.end());
    const size_t perHostPhase =
        hosts > 1 ? allToAllOnHosts(hostOf, 0).steps.size() / (hosts - 1) : 1;
    HostSchedule s;
    for (int r = 0; r < n; ++r) {
      const RankSteps rs = allToAllOnHosts(hostOf, r);
      if (r == 0) {
        s.phases.resize(rs.steps.size());
        s.hostPhase.resize(rs.steps.size());
      }
      ASSERT_EQ(rs.steps.size(), s.phases.size()) << "every rank has every phase";
      for (size_t k = 0; k < rs.steps.size(); ++k) {
        s.hostPhase[k] = static_cast<int>(k / perHostPhase);
        if (rs.steps[k].first >= 0) s.phases[k].messages.push_back({r, rs.steps[k].first, 1000});
      }
      for (int peer : rs.local) s.local.push_back({r, peer, 1000});
      // Receives mirror the sends: whoever sends to r in phase k is r's recvFrom there.
      for (int q = 0; q < n && r == n - 1; ++q) {
        const RankSteps qs = allToAllOnHosts(hostOf, q);
        for (size_t k = 0; k < qs.steps.size(); ++k) {
          const int to = qs.steps[k].first;
          if (to >= 0) {
            EXPECT_EQ(allToAllOnHosts(hostOf, to).steps[k].second, q);
          }
        }
      }
    }
    // Rank phases where nobody sends (uneven hosts) are dropped for the check.
    HostSchedule t;
    for (size_t k = 0; k < s.phases.size(); ++k)
      if (!s.phases[k].messages.empty()) {
        t.phases.push_back(s.phases[k]);
        t.hostPhase.push_back(s.hostPhase[k]);
      }
    t.local = s.local;
    EXPECT_EQ(validateHosts(hostOf, p, t, 0), "") << "hosts of " << n << " ranks";
  }
}

TEST(SchedHosts, ValidateCatchesHostConflicts) {
  const std::vector<int> hostOf = {0, 0, 1, 1, 2, 2};
  // Ranks 0 and 1 (host 0) send to hosts 1 and 2 in one host phase: rank-level fine,
  // two streams leave host 0.
  const Pattern p = {{0, 2, kMB}, {1, 4, kMB}, {0, 1, kMB}};
  HostSchedule s;
  s.phases = {{{{0, 2, kMB}, {1, 4, kMB}}, false}};
  s.hostPhase = {0};
  s.local = {{0, 1, kMB}};
  EXPECT_NE(validateHosts(hostOf, p, s, 0).find("host 0 sends to hosts 1 and 2"),
            std::string::npos);
  // The same in two rank phases of one host phase is still a conflict; in two host
  // phases it is fine.
  s.phases = {{{{0, 2, kMB}}, false}, {{{1, 4, kMB}}, false}};
  s.hostPhase = {0, 0};
  EXPECT_NE(validateHosts(hostOf, p, s, 0), "");
  s.hostPhase = {0, 1};
  EXPECT_EQ(validateHosts(hostOf, p, s, 0), "");
  // A local message in the phases, or missing from local.
  s.local.clear();
  EXPECT_EQ(validateHosts(hostOf, p, s, 0), "a message within a host is not in local");
  s.phases.push_back({{{0, 1, kMB}}, false});
  s.hostPhase.push_back(2);
  EXPECT_NE(validateHosts(hostOf, p, s, 0), "");
  // Receiving from two hosts in one host phase.
  const Pattern q = {{0, 4, kMB}, {2, 5, kMB}};
  HostSchedule t;
  t.phases = {{{{0, 4, kMB}, {2, 5, kMB}}, false}};
  t.hostPhase = {0};
  EXPECT_NE(validateHosts(hostOf, q, t, 0).find("host 2 receives from hosts 0 and 1"),
            std::string::npos);
}

TEST(SchedFiles, PatternAndScheduleRoundTrip) {
  Pattern p;
  std::string err;
  ASSERT_TRUE(
      parsePattern("# figure 3\n0 1 1m\n1 3 1m\n0 2 10k\n2 3 100\n1 5 100\n2 1 100\n", &p, &err))
      << err;
  EXPECT_EQ(p, figure3());
  const Phases a = allToAllBased(6, p, 0);
  const std::string text = formatSchedule(6, Scheduler::kAllToAllBased, a);
  int hosts = 0;
  Phases back;
  ASSERT_TRUE(parseSchedule(text, &hosts, &back, &err)) << err;
  EXPECT_EQ(hosts, 6);
  ASSERT_EQ(back.size(), a.size());
  for (size_t k = 0; k < a.size(); ++k) {
    EXPECT_EQ(back[k].messages, a[k].messages);
    EXPECT_EQ(back[k].small, a[k].small);
  }
  const Phases s = greedy(6, p, 16 * kKB);
  Phases sback;
  ASSERT_TRUE(parseSchedule(formatSchedule(6, Scheduler::kGreedy, s), &hosts, &sback, &err));
  EXPECT_TRUE(sback.back().small);
}

TEST(SchedFiles, BadFilesSayWhere) {
  Pattern p;
  std::string err;
  EXPECT_FALSE(parsePattern("0 1 5\n0 x 5\n", &p, &err));
  EXPECT_EQ(err, "line 2: expected SRC DST BYTES");
  int hosts;
  Phases ph;
  EXPECT_FALSE(parseSchedule("hosts 4\n", &hosts, &ph, &err));
  EXPECT_EQ(err, "line 1: not a ccmpi-schedule 1 file");
  ph.clear();
  EXPECT_FALSE(parseSchedule("ccmpi-schedule 1\nhosts 4\n0 1 5\n", &hosts, &ph, &err));
  EXPECT_EQ(err, "line 3: message before the first phase");
  ph.clear();
  EXPECT_FALSE(parseSchedule("ccmpi-schedule 1\nhosts 4\nphase\n0 7 5\n", &hosts, &ph, &err));
  EXPECT_EQ(err, "line 4: rank outside the host count");
}

}  // namespace
}  // namespace ccmpi::sched

namespace ccmpi::sched {
namespace {

// One parser serves mpirun's CCMPI_RANK_HOSTS, CCMPI_HOST_MAP and ccmpi-schedule --host-map.
TEST(SchedHostMap, RunsAndSingleHosts) {
  std::vector<int> v;
  ASSERT_TRUE(parseHostMap("0*2,1*1,0", &v));
  EXPECT_EQ(v, (std::vector<int>{0, 0, 1, 0}));
  for (const char* bad : {"", "0*", "0*0", "-1", "0*2,", "x", "1*2*3", "0,,1"}) {
    EXPECT_FALSE(parseHostMap(bad, &v)) << bad;
    EXPECT_TRUE(v.empty()) << bad;
  }
}

}  // namespace
}  // namespace ccmpi::sched

// ---- RS_N and RS_NH (the CM-5 seed) ----
namespace ccmpi::sched {
namespace {

// Every rank sends to d distinct random others (d-regular out, random in).
Pattern randomDestinations(int n, int d, uint64_t seed, int64_t lo, int64_t hi) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> size(lo, hi);
  Pattern p;
  for (int s = 0; s < n; ++s) {
    std::vector<int> others;
    for (int t = 0; t < n; ++t)
      if (t != s) others.push_back(t);
    std::shuffle(others.begin(), others.end(), rng);
    for (int k = 0; k < d; ++k) p.push_back({s, others[k], size(rng)});
  }
  return p;
}

TEST(RandomSched, RsNIsPartialPermutationsCoveringThePattern) {
  for (int d : {1, 4, 8, 16, 31}) {
    const Pattern p = randomDestinations(32, d, 100 + d, 16, 128 * 1024);
    const Phases ph = randomNode(32, p, 7);
    EXPECT_EQ(validatePieces(32, p, ph), "") << "d=" << d;
    size_t messages = 0;
    for (const Phase& x : ph) {
      messages += x.messages.size();
      EXPECT_FALSE(x.small);
      for (const Message& m : x.messages) EXPECT_EQ(m.offset, 0);
    }
    EXPECT_EQ(messages, p.size());
    // At least d phases (a row's d messages), and near the paper's d + log d on average:
    // well under 2d + 4 for these patterns.
    EXPECT_GE(ph.size(), static_cast<size_t>(d));
    EXPECT_LE(ph.size(), static_cast<size_t>(2 * d + 4)) << "d=" << d;
  }
}

TEST(RandomSched, RsNIsTheSameForTheSameSeedOnly) {
  const Pattern p = randomDestinations(16, 6, 3, 1, 1000);
  const Phases a = randomNode(16, p, 42), b = randomNode(16, p, 42), c = randomNode(16, p, 43);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].messages, b[i].messages);
  bool differs = a.size() != c.size();
  for (size_t i = 0; !differs && i < a.size(); ++i) differs = a[i].messages != c[i].messages;
  EXPECT_TRUE(differs);
}

TEST(RandomSched, RsNSkipsEmptyAndSelfMessages) {
  const Pattern p = {{0, 0, 100}, {0, 1, 0}, {1, 0, 5}, {2, 1, 7}};
  const Phases ph = randomNode(3, p, 1);
  EXPECT_EQ(validatePieces(3, p, ph), "");
  size_t m = 0;
  for (const Phase& x : ph) m += x.messages.size();
  EXPECT_EQ(m, 2u);
  EXPECT_TRUE(randomNode(4, {}, 1).empty());
}

TEST(RandomSched, RsNHSplitsLargeMessagesIntoOrderedPieces) {
  // Non-uniform sizes: a few huge messages among small ones.
  Pattern p = randomDestinations(16, 4, 11, 64, 4096);
  p[0].bytes = 1 << 20;
  p[5].bytes = 700001;
  const Phases ph = randomNodeHeap(16, p, 9, 1024, 8);
  EXPECT_EQ(validatePieces(16, p, ph), "");
  size_t pieces0 = 0;
  for (const Phase& x : ph)
    for (const Message& m : x.messages) {
      if (m.src == p[0].src && m.dst == p[0].dst) ++pieces0;
      // Every piece but a message's last is a multiple of the unit.
      const bool of5 = m.src == p[5].src && m.dst == p[5].dst;
      if (of5 && m.offset + m.bytes != p[5].bytes) {
        EXPECT_EQ(m.bytes % 8, 0);
      }
    }
  EXPECT_GT(pieces0, 1u);
  // The largest piece of a phase is far below the huge message: the phases are balanced.
  int64_t longest = 0;
  for (const Phase& x : ph) longest = std::max(longest, x.largest());
  EXPECT_LT(longest, int64_t{1} << 20);
  // Uniform sizes are not split.
  const Pattern u = randomDestinations(16, 4, 12, 5000, 5000);
  for (const Phase& x : randomNodeHeap(16, u, 9, 1024, 8))
    for (const Message& m : x.messages) EXPECT_EQ(m.bytes, 5000);
}

TEST(RandomSched, ValidatePiecesFindsErrors) {
  const Pattern p = {{0, 1, 10}, {2, 1, 10}};
  Phases bad(1);
  bad[0].messages = {{0, 1, 10}, {2, 1, 10}};  // rank 1 receives twice
  EXPECT_NE(validatePieces(3, p, bad), "");
  Phases gap(2);
  gap[0].messages = {{0, 1, 4}};
  gap[1].messages = {{0, 1, 6, 5}, {2, 1, 10}};  // piece at 5, expected 4
  EXPECT_NE(validatePieces(3, p, gap), "");
  Phases missing(1);
  missing[0].messages = {{0, 1, 10}};
  EXPECT_NE(validatePieces(3, p, missing), "");
}

}  // namespace
}  // namespace ccmpi::sched
