// Message schedulers: the paper's worked example (CC-MPI Figure 3), all-to-all patterns,
// and random patterns checked against the invariants (every message once, no host sending
// or receiving twice in a phase, the small-message phase last and small).
#include <gtest/gtest.h>

#include <random>

#include "sched/files.h"
#include "sched/sched.h"

namespace ccmpi::sched {
namespace {

constexpr int64_t kMB = 1 << 20, kKB = 1 << 10;

Pattern figure3() {
  return {{0, 1, kMB}, {1, 3, kMB}, {0, 2, 10 * kKB}, {2, 3, 100}, {1, 5, 100}, {2, 1, 100}};
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
