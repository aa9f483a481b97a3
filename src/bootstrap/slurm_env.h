#pragma once
// Slurm's compressed host and task lists (pure functions; shared by libccmpi and mpirun).
//
//   host lists   SLURM_JOB_NODELIST, SLURM_STEP_NODELIST: comma-separated names, each
//                with any number of bracketed ranges and single numbers, zero padding
//                kept: "node[01-03,07],login" -> node01 node02 node03 node07 login;
//                "r[1-2]n[1-2]" -> r1n1 r1n2 r2n1 r2n2.
//   task counts  SLURM_TASKS_PER_NODE, SLURM_STEP_TASKS_PER_NODE: comma-separated
//                counts, each optionally repeated: "2(x3),1" -> 2 2 2 1.
#include <string>
#include <string_view>
#include <vector>

namespace ccmpi::bootstrap {

// Returns false with *error set on a malformed list (unbalanced brackets, a bad range,
// more than kMaxSlurmHosts names).
bool expandSlurmHostList(std::string_view list, std::vector<std::string>* hosts,
                         std::string* error);
bool parseSlurmTaskCounts(std::string_view list, std::vector<int>* counts, std::string* error);

inline constexpr std::size_t kMaxSlurmHosts = 1u << 20;

}  // namespace ccmpi::bootstrap
