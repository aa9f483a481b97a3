#include "runtime/affinity.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "base/tunables.h"

namespace ccmpi::runtime {
namespace {

Tunable<std::string> kBind(
    "CCMPI_BIND", "auto",
    "binding of ranks to CPUs: none = never; auto (default) = bind the i-th rank of a host "
    "to the i-th block of CPUs/ranks CPUs when the host has 2 to CPUs ranks, no CPU mask "
    "was set for the process and the CPUs are free, and let go when another process keeps "
    "the rank from its CPU; core = always (one CPU each, round robin, when ranks "
    "outnumber CPUs); socket = like core, widened to every CPU of the socket of the rank's "
    "first CPU (mpirun --bind-to sets it)");

Tunable<int> kBindRunnable(
    "CCMPI_BIND_RUNNABLE", -1,
    "CCMPI_BIND=auto binds only while at most this many tasks are runnable on the machine "
    "(the fewest of three samples of /proc/loadavg a millisecond apart, the host's own "
    "ranks included); -1 = the number of CPUs the process may use");

// The socket (physical package) of a CPU, -1 if the kernel does not say.
int packageOf(int cpu) {
  char path[96];
  snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/physical_package_id", cpu);
  FILE* f = fopen(path, "r");
  if (!f) return -1;
  int id = -1;
  if (fscanf(f, "%d", &id) != 1) id = -1;
  fclose(f);
  return id;
}

// The mask the process had before CCMPI_BIND=auto narrowed it (releaseBinding restores
// it; a binding the user asked for, core or socket, is kept).
cpu_set_t gBefore;
bool gBound = false;

// Tasks runnable on the machine right now, this one included: the fourth field of
// /proc/loadavg ("1.00 0.50 0.20 3/250 1234"). -1 if unreadable.
int runnableNow() {
  FILE* f = fopen("/proc/loadavg", "r");
  if (!f) return -1;
  double a, b, c;
  int running = -1, total = 0;
  if (fscanf(f, "%lf %lf %lf %d/%d", &a, &b, &c, &running, &total) != 5) running = -1;
  fclose(f);
  return running;
}

// The fewest tasks runnable over a few samples a millisecond apart: the host's other
// ranks, still starting, come and go; a busy process stays.
int runnableLeast() {
  int least = -1;
  for (int i = 0; i < 3; ++i) {
    if (i) usleep(1000);
    const int n = runnableNow();
    if (n >= 0 && (least < 0 || n < least)) least = n;
  }
  return least;
}

}  // namespace

std::string describeAffinity() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof mask, &mask) != 0) return "?";
  std::string out;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (!CPU_ISSET(c, &mask)) continue;
    int e = c;
    while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, &mask)) ++e;
    out += (out.empty() ? "" : ",") + std::to_string(c) + (e > c ? "-" + std::to_string(e) : "");
    c = e;
  }
  return out;
}

int bindToCore(int localIndex, int localCount, std::string* why) {
  const std::string mode = kBind.get();
  if (mode == "none") {
    *why = "CCMPI_BIND=none";
    return -1;
  }
  if (mode != "auto" && mode != "core" && mode != "socket") {
    *why = "CCMPI_BIND=" + mode + " is not auto, core, socket or none";
    return -2;
  }
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof mask, &mask) != 0) {
    *why = std::string("sched_getaffinity: ") + strerror(errno);
    return -1;
  }
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &mask)) cpus.push_back(c);
  if (cpus.empty() || localIndex < 0 || localCount < 1) {
    *why = "no CPU to bind to";
    return -1;
  }
  if (mode == "auto") {
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (localCount < 2) {
      *why = "alone on its host";
      return -1;
    }
    if (static_cast<long>(cpus.size()) < online) {
      *why = "the process has a CPU mask already";
      return -1;
    }
    if (localCount > static_cast<int>(cpus.size())) {
      *why = "more ranks on this host than CPUs";
      return -1;
    }
    // A rank bound next to a busy process could not move away from it: bind only when
    // the CPUs are free (the ranks of this host count, runnable or not).
    int most = kBindRunnable.get();
    if (most < 0) most = static_cast<int>(cpus.size());
    const int runnable = runnableLeast();
    if (runnable > most) {
      *why = std::to_string(runnable) + " tasks runnable, more than " + std::to_string(most) +
             " (the host is busy)";
      return -1;
    }
  }
  // Local rank i gets the i-th block of n / ranks CPUs (one CPU when ranks outnumber them,
  // round robin): the ranks of a host never share a CPU while there are enough, and the
  // threads a rank starts later (OpenMP) have the rest of its block.
  const int n = static_cast<int>(cpus.size());
  const int per = std::max(1, n / localCount);
  const int first = (localIndex * per) % n;
  cpu_set_t block;
  CPU_ZERO(&block);
  for (int k = 0; k < per; ++k) CPU_SET(cpus[static_cast<size_t>((first + k) % n)], &block);
  const int cpu = cpus[static_cast<size_t>(first)];
  if (mode == "socket") {
    const int package = packageOf(cpu);
    for (int c : cpus)
      if (package >= 0 && packageOf(c) == package) CPU_SET(c, &block);
  }
  if (sched_setaffinity(0, sizeof block, &block) != 0) {
    *why = std::string("sched_setaffinity: ") + strerror(errno);
    return -1;
  }
  gBefore = mask;
  gBound = mode == "auto";
  return cpu;
}

bool bound() {
  return gBound;
}

bool releaseBinding() {
  if (!gBound) return false;
  if (sched_setaffinity(0, sizeof gBefore, &gBefore) != 0) return false;
  gBound = false;
  return true;
}

}  // namespace ccmpi::runtime
