#pragma once
// Entry points of the mpirun executable and helpers shared by its two modes:
// mpirun proper (mpirun.cc) and the per-host proxy (proxy.cc, `mpirun --ccmpi-proxy`).
#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace ccmpi::launcher {

int runMpirun(const std::vector<std::string>& args);
// `args`: the arguments after --ccmpi-proxy (`--connect HOST:PORT`, see proxy.cc).
int runProxy(const std::vector<std::string>& args);

// Ignores SIGPIPE, blocks SIGCHLD/SIGINT/SIGTERM/SIGHUP/SIGQUIT and returns a signalfd
// that reports them (-1 on failure). Children must call prepareChild() (rank_set.h).
int setupSignals();

// Waits up to `timeout` for each pid to exit, sleeping on `signalFd` (from setupSignals)
// between checks, then SIGKILLs what is left, so no child outlives the launcher. Signals
// other than SIGCHLD read meanwhile are dropped (we are exiting anyway).
void reapAll(int signalFd, std::vector<pid_t> pids, std::chrono::milliseconds timeout);

// `bytes` random bytes from /dev/urandom as lower-case hex ("" on failure).
std::string randomHex(std::size_t bytes);

// Path of the executable `program` would run as (execvp rules; relative paths against
// `dir` when not empty). Returns "" and sets *error if it is missing or not executable.
std::string findProgram(const std::string& program, const std::string& dir, std::string* error);

}  // namespace ccmpi::launcher
