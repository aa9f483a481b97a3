// Scheduling cost (issue 5): times sched::greedy, sched::allToAllBased and sched::best on
//  - dense-1024: every ordered pair of 1024 ranks one message of 100 B, 16 KiB, 64 KiB or
//    1 MiB (uniformly at random), 1047552 messages; goal: under 200 ms;
//  - sparse-4096: 16 distinct random destinations per rank on 4096 ranks, same sizes,
//    65536 messages; goal: under 100 ms;
//  - table3-16: the paper's random pattern on 16 ranks (160 x 64 KiB, 20 x 16 KiB,
//    60 x 100 B over the 240 ordered pairs);
// each with the runtime's small-message threshold (4 KiB) and with none (0: every message
// in a contention-free phase). Prints a markdown table, one row per (pattern, threshold,
// scheduler): fastest and median time of --reps runs, phases (+ the small phase if any),
// the sum over phases of the largest message, the cost model's estimate (100 Mbit/s,
// 1 ms a synchronization) and sched::validate's verdict; --csv FILE writes the same rows.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "sched/sched.h"

using namespace ccmpi::sched;

namespace {

constexpr int64_t kSizes[] = {100, 16 << 10, 64 << 10, 1 << 20};

Pattern dense(int n, unsigned seed) {
  std::mt19937 rng(seed);
  Pattern p;
  for (int s = 0; s < n; ++s)
    for (int d = 0; d < n; ++d)
      if (s != d) p.push_back({s, d, kSizes[rng() % 4]});
  return p;
}

Pattern sparse(int n, int degree, unsigned seed) {
  std::mt19937 rng(seed);
  Pattern p;
  std::vector<int> dsts;
  for (int s = 0; s < n; ++s) {
    dsts.clear();
    while (static_cast<int>(dsts.size()) < degree) {
      const int d = (s + 1 + static_cast<int>(rng() % (n - 1))) % n;
      if (std::find(dsts.begin(), dsts.end(), d) == dsts.end()) dsts.push_back(d);
    }
    for (int d : dsts) p.push_back({s, d, kSizes[rng() % 4]});
  }
  return p;
}

Pattern table3(unsigned seed) {
  std::vector<int64_t> sizes(160, 64 << 10);
  sizes.insert(sizes.end(), 20, 16 << 10);
  sizes.insert(sizes.end(), 60, 100);
  std::shuffle(sizes.begin(), sizes.end(), std::mt19937(seed));
  Pattern p;
  size_t i = 0;
  for (int s = 0; s < 16; ++s)
    for (int d = 0; d < 16; ++d)
      if (s != d) p.push_back({s, d, sizes[i++]});
  return p;
}

struct Row {
  std::string pattern, scheduler, valid;
  int ranks = 0;
  size_t messages = 0;
  int64_t threshold = 0;
  double msMin = 0, msMedian = 0;
  size_t phases = 0;
  bool small = false;
  int64_t largestSum = 0;
  double estimate = 0;
  int goalMs = 0;  // 0: none
};

std::vector<Row> run(const char* name, int n, const Pattern& p, int64_t threshold, int goalMs,
                     int reps) {
  const CostModel model;
  std::vector<Row> rows;
  for (const char* sched : {"greedy", "all-to-all", "best"}) {
    std::vector<double> ms;
    Phases phases;
    for (int rep = 0; rep < reps; ++rep) {
      phases.clear();
      const auto t0 = std::chrono::steady_clock::now();
      phases = !strcmp(sched, "greedy")       ? greedy(n, p, threshold)
               : !strcmp(sched, "all-to-all") ? allToAllBased(n, p, threshold)
                                              : best(n, p, threshold, model);
      ms.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    Row r;
    r.pattern = name;
    r.scheduler = sched;
    r.valid = validate(n, p, phases, threshold);
    r.ranks = n;
    r.messages = p.size();
    r.threshold = threshold;
    r.msMin = ms.front();
    r.msMedian = ms[ms.size() / 2];
    r.phases = phases.size();
    r.small = !phases.empty() && phases.back().small;
    for (const Phase& ph : phases) r.largestSum += ph.largest();
    r.estimate = estimateSeconds(phases, model);
    r.goalMs = goalMs;
    if (r.valid.empty()) r.valid = "valid";
    rows.push_back(r);
  }
  return rows;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 5;
  const char* csv = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
      reps = std::max(1, atoi(argv[++i]));
    } else if (!strcmp(argv[i], "--csv") && i + 1 < argc) {
      csv = argv[++i];
    } else {
      fprintf(stderr, "usage: %s [--reps N] [--csv FILE]\n", argv[0]);
      return 2;
    }
  }
  std::vector<Row> rows;
  const Pattern d = dense(1024, 1), s = sparse(4096, 16, 2), t = table3(20031);
  for (int64_t threshold : {int64_t{4096}, int64_t{0}}) {
    for (const Row& r : run("dense-1024", 1024, d, threshold, 200, reps)) rows.push_back(r);
    for (const Row& r : run("sparse-4096", 4096, s, threshold, 100, reps)) rows.push_back(r);
    for (const Row& r : run("table3-16", 16, t, threshold, 0, reps)) rows.push_back(r);
  }
  printf(
      "| pattern | ranks | messages | small threshold | scheduler | ms (fastest) | ms (median) | "
      "phases | sum of largest (MiB) | estimate (s) | goal | schedule |\n"
      "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---|---|\n");
  for (const Row& r : rows) {
    std::string goal = "-";
    if (r.goalMs) goal = (r.msMin < r.goalMs ? "< " : "MISSED ") + std::to_string(r.goalMs) + " ms";
    printf("| %s | %d | %zu | %lld | %s | %.2f | %.2f | %zu%s | %.2f | %.3f | %s | %s |\n",
           r.pattern.c_str(), r.ranks, r.messages, static_cast<long long>(r.threshold),
           r.scheduler.c_str(), r.msMin, r.msMedian, r.phases, r.small ? " (1 small)" : "",
           r.largestSum / 1048576.0, r.estimate, goal.c_str(), r.valid.c_str());
  }
  if (csv) {
    FILE* f = fopen(csv, "w");
    if (!f) {
      perror(csv);
      return 1;
    }
    fprintf(f,
            "pattern,ranks,messages,small_threshold,scheduler,ms_fastest,ms_median,phases,"
            "small_phase,largest_sum_bytes,estimate_s,goal_ms,valid\n");
    for (const Row& r : rows)
      fprintf(f, "%s,%d,%zu,%lld,%s,%.3f,%.3f,%zu,%d,%lld,%.6f,%d,%s\n", r.pattern.c_str(), r.ranks,
              r.messages, static_cast<long long>(r.threshold), r.scheduler.c_str(), r.msMin,
              r.msMedian, r.phases, r.small ? 1 : 0, static_cast<long long>(r.largestSum),
              r.estimate, r.goalMs, r.valid == "valid" ? "1" : "0");
    fclose(f);
  }
  for (const Row& r : rows)
    if (r.valid != "valid" || (r.goalMs && r.msMin >= r.goalMs)) return 1;
  return 0;
}
