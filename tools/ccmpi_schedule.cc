// ccmpi-schedule: computes a phased schedule for a communication pattern offline (the
// compiler side of compiled communication; CC-MPI section 4.2).
//
//   ccmpi-schedule [--hosts N] [--scheduler greedy|all-to-all|best] [--threshold BYTES]
//                  [--bandwidth BYTES_PER_S] [--sync SECONDS] [-o OUT] PATTERN_FILE
//
// Reads "SRC DST BYTES" lines, schedules them (best = the cheaper of the two by the cost
// model: phases x largest message / bandwidth + synchronizations), checks the result and
// writes the schedule file (sched/files.h) to OUT or stdout; a summary goes to stderr.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "base/tunables.h"
#include "sched/files.h"
#include "sched/sched.h"

namespace {

int usage() {
  fprintf(stderr,
          "usage: ccmpi-schedule [--hosts N] [--scheduler greedy|all-to-all|best] "
          "[--threshold BYTES]\n"
          "                      [--bandwidth BYTES_PER_S] [--sync SECONDS] [-o OUT] "
          "PATTERN_FILE\n");
  return 2;
}

int fail(const char* what, const std::string& detail) {
  fprintf(stderr, "ccmpi-schedule: %s%s\n", what, detail.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ccmpi::sched;
  int hosts = 0;
  std::string which = "best", out, in;
  uint64_t threshold = 0;
  CostModel model;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool hasValue = i + 1 < argc;
    if (a == "--hosts" && hasValue) {
      hosts = atoi(argv[++i]);
      if (hosts < 1) return fail("--hosts needs a positive number", "");
    } else if (a == "--scheduler" && hasValue) {
      which = argv[++i];
      if (which != "greedy" && which != "all-to-all" && which != "best")
        return fail("--scheduler: greedy, all-to-all or best, not ", which);
    } else if (a == "--threshold" && hasValue) {
      if (!ccmpi::parseSize(argv[++i], &threshold)) return fail("bad --threshold ", argv[i]);
    } else if (a == "--bandwidth" && hasValue) {
      model.bytesPerSecond = atof(argv[++i]);
      if (model.bytesPerSecond <= 0) return fail("bad --bandwidth ", argv[i]);
    } else if (a == "--sync" && hasValue) {
      model.syncSeconds = atof(argv[++i]);
      if (model.syncSeconds < 0) return fail("bad --sync ", argv[i]);
    } else if (a == "-o" && hasValue) {
      out = argv[++i];
    } else if (a == "-h" || a == "--help") {
      usage();
      return 0;
    } else if (in.empty() && a[0] != '-') {
      in = a;
    } else {
      return usage();
    }
  }
  if (in.empty()) return usage();
  std::ifstream f(in);
  if (!f) return fail("cannot read ", in);
  std::stringstream text;
  text << f.rdbuf();
  Pattern pattern;
  std::string error;
  if (!parsePattern(text.str(), &pattern, &error)) return fail("", in + ": " + error);
  int maxRank = -1;
  for (const Message& m : pattern) maxRank = std::max(maxRank, std::max(m.src, m.dst));
  if (hosts == 0) hosts = maxRank + 1;
  if (maxRank >= hosts)
    return fail("the pattern names rank ",
                std::to_string(maxRank) + " but --hosts is " + std::to_string(hosts));
  if (hosts < 1) return fail("empty pattern and no --hosts", "");
  const int64_t small = static_cast<int64_t>(threshold);
  Phases phases;
  Scheduler used = Scheduler::kAllToAllBased;
  if (which == "greedy") {
    phases = greedy(hosts, pattern, small);
    used = Scheduler::kGreedy;
  } else if (which == "all-to-all") {
    phases = allToAllBased(hosts, pattern, small);
  } else {
    phases = best(hosts, pattern, small, model, &used);
  }
  if (std::string bad = validate(hosts, pattern, phases, small); !bad.empty())
    return fail("internal error: invalid schedule: ", bad);
  const std::string sched = formatSchedule(hosts, used, phases);
  if (out.empty()) {
    fputs(sched.c_str(), stdout);
  } else {
    std::ofstream o(out);
    if (!(o << sched)) return fail("cannot write ", out);
  }
  fprintf(stderr, "ccmpi-schedule: %zu messages on %d hosts: %zu phases (%s), estimated %.3f ms\n",
          pattern.size(), hosts, phases.size(), schedulerName(used),
          estimateSeconds(phases, model) * 1e3);
  return 0;
}
