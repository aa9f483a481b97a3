#pragma once
// Text files of communication patterns and of schedules: what `ccmpi-schedule` reads and
// writes (the "compiler" side of compiled communication), and what a precomputed
// schedule is loaded from.
//
// Pattern file: one message a line, "SRC DST BYTES" (ranks from 0; BYTES takes k/m/g
// suffixes, powers of 1024); '#' starts a comment.
//
// Schedule file:
//   ccmpi-schedule 1
//   hosts N
//   scheduler greedy|all-to-all-based
//   phase            (a contention-free phase; "phase small" for the small-message phase)
//   SRC DST BYTES    (its messages, one a line)
//   ...
#include <string>

#include "sched/sched.h"

namespace ccmpi::sched {

// On error: false, *error = "line N: what".
bool parsePattern(const std::string& text, Pattern* out, std::string* error);
std::string formatSchedule(int hosts, Scheduler which, const Phases& phases);
bool parseSchedule(const std::string& text, int* hosts, Phases* out, std::string* error);

}  // namespace ccmpi::sched
