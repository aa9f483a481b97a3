// ccmpi-schedule: computes a phased schedule for a communication pattern offline (the
// compiler side of compiled communication; CC-MPI section 4.2).
//
//   ccmpi-schedule [--hosts N] [--host-map MAP] [--scheduler greedy|all-to-all|best]
//                  [--threshold BYTES] [--bandwidth BYTES_PER_S] [--sync SECONDS] [-o OUT]
//                  PATTERN_FILE
//
// Reads "SRC DST BYTES" lines, schedules them (best = the cheaper of the two by the cost
// model: phases x largest message / bandwidth + synchronizations), checks the result and
// writes the schedule file (sched/files.h) to OUT or stdout; a summary goes to stderr.
// --host-map gives the host of every rank ("HOST*COUNT,..." or "HOST,HOST,..." in rank
// order, e.g. 0*4,1*4): the schedule is then host-level (sched.h, HostSchedule), its
// rank phases written with a "# host phase K" comment where a host phase starts and the
// messages within a host as "# local SRC DST BYTES" comments (they are not scheduled).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "base/tunables.h"
#include "sched/files.h"
#include "sched/sched.h"

namespace {

int usage() {
  fprintf(stderr,
          "usage: ccmpi-schedule [--hosts N] [--host-map MAP] "
          "[--scheduler greedy|all-to-all|best]\n"
          "                      [--threshold BYTES] [--bandwidth BYTES_PER_S] [--sync SECONDS] "
          "[-o OUT] PATTERN_FILE\n"
          "  MAP: the host of every rank, HOST*COUNT,... or HOST,HOST,... (host-level "
          "schedule)\n");
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
  std::vector<int> hostOf;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool hasValue = i + 1 < argc;
    if (a == "--hosts" && hasValue) {
      hosts = atoi(argv[++i]);
      if (hosts < 1) return fail("--hosts needs a positive number", "");
    } else if (a == "--host-map" && hasValue) {
      hostOf.clear();
      if (!parseHostMap(argv[++i], &hostOf))
        return fail("--host-map: HOST*COUNT,... or HOST,HOST,..., not ", argv[i]);
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
  if (!hostOf.empty()) {
    if (static_cast<int>(hostOf.size()) < hosts)
      return fail("--host-map names ",
                  std::to_string(hostOf.size()) + " ranks, the pattern " + std::to_string(hosts));
    hosts = static_cast<int>(hostOf.size());
    HostSchedule hs;
    Scheduler used = Scheduler::kAllToAllBased;
    if (which == "greedy") {
      hs = onHosts(Scheduler::kGreedy, hostOf, pattern, small);
      used = Scheduler::kGreedy;
    } else if (which == "all-to-all") {
      hs = onHosts(Scheduler::kAllToAllBased, hostOf, pattern, small);
    } else {
      hs = bestOnHosts(hostOf, pattern, small, model, &used);
    }
    if (std::string bad = validateHosts(hostOf, pattern, hs, small); !bad.empty())
      return fail("internal error: invalid host schedule: ", bad);
    // The rank phases, a comment where each host phase starts, the local messages.
    std::istringstream lines(formatSchedule(hosts, used, hs.phases));
    std::string text, line;
    size_t phase = 0;
    while (std::getline(lines, line)) {
      if (line.rfind("phase", 0) == 0) {
        if (phase == 0 || hs.hostPhase[phase] != hs.hostPhase[phase - 1]) {
          text += "# host phase " + std::to_string(hs.hostPhase[phase]) + ":";
          for (const Message& m : hs.hostLevel[hs.hostPhase[phase]].messages)
            text += " " + std::to_string(m.src) + "->" + std::to_string(m.dst);
          text += "\n";
        }
        ++phase;
      }
      text += line + "\n";
    }
    for (const Message& m : hs.local)
      text += "# local " + std::to_string(m.src) + " " + std::to_string(m.dst) + " " +
              std::to_string(m.bytes) + "\n";
    if (out.empty()) {
      fputs(text.c_str(), stdout);
    } else {
      std::ofstream o(out);
      if (!(o << text)) return fail("cannot write ", out);
    }
    int nHosts = 0;
    for (int h : hostOf) nHosts = std::max(nHosts, h + 1);
    fprintf(stderr,
            "ccmpi-schedule: %zu messages on %d ranks, %d hosts: %zu local, %zu host phases "
            "(%s), %zu rank phases, estimated %.3f ms\n",
            pattern.size(), hosts, nHosts, hs.local.size(), hs.hostLevel.size(),
            schedulerName(used), hs.phases.size(), estimateSeconds(hs.hostLevel, model) * 1e3);
    return 0;
  }
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
