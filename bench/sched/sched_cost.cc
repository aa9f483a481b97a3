// Scheduling cost (issue 5): times sched::greedy, sched::allToAllBased and sched::best on
// a dense random pattern of 1024 ranks (every ordered pair a message of 100 B, 16 KiB,
// 64 KiB or 1 MiB), a sparse one of 4096 ranks (16 random destinations per rank) and the
// paper's Table 3 pattern on 16 ranks; prints one line per (pattern, scheduler): time in
// ms (best of 3), phases, estimated seconds, and checks every schedule with
// sched::validate. Built by bench/sched/run.sh against the library's object files.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>

#include "sched/sched.h"

using namespace ccmpi::sched;

namespace {

Pattern dense(int n, unsigned seed) {
  std::mt19937 rng(seed);
  const int64_t sizes[] = {100, 16 << 10, 64 << 10, 1 << 20};
  Pattern p;
  for (int s = 0; s < n; ++s)
    for (int d = 0; d < n; ++d)
      if (s != d) p.push_back({s, d, sizes[rng() % 4]});
  return p;
}

Pattern sparse(int n, int degree, unsigned seed) {
  std::mt19937 rng(seed);
  const int64_t sizes[] = {100, 16 << 10, 64 << 10, 1 << 20};
  Pattern p;
  for (int s = 0; s < n; ++s)
    for (int k = 0; k < degree; ++k) {
      const int d = (s + 1 + static_cast<int>(rng() % (n - 1))) % n;
      p.push_back({s, d, sizes[rng() % 4]});
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

void run(const char* name, int n, const Pattern& p, int64_t threshold) {
  const CostModel model;
  struct S {
    const char* name;
    int which;
  } scheds[] = {{"greedy", 0}, {"all-to-all", 1}, {"best", 2}};
  for (const S& s : scheds) {
    double bestMs = 1e30;
    Phases phases;
    for (int rep = 0; rep < 3; ++rep) {
      const auto t0 = std::chrono::steady_clock::now();
      phases = s.which == 0   ? greedy(n, p, threshold)
               : s.which == 1 ? allToAllBased(n, p, threshold)
                              : best(n, p, threshold, model);
      const double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      if (ms < bestMs) bestMs = ms;
    }
    const std::string why = validate(n, p, phases, threshold);
    printf("%-22s %5d ranks %8zu msgs  %-10s %9.2f ms  %5zu phases  est %.3f s  %s\n", name, n,
           p.size(), s.name, bestMs, phases.size(), estimateSeconds(phases, model),
           why.empty() ? "valid" : why.c_str());
  }
}

}  // namespace

int main() {
  run("dense-random", 1024, dense(1024, 1), 4096);
  run("sparse-16-per-rank", 4096, sparse(4096, 16, 2), 4096);
  run("cc-mpi-table3", 16, table3(20031), 4096);
  return 0;
}
