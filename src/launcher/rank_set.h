#pragma once
// The ranks of one host, forked and watched by mpirun (its local ranks) or by a proxy.
//
// Each rank gets a socketpair for PMI (its end is PMI_FD), pipes for stdout and stderr,
// stdin from /dev/null (rank 0: see LaunchSpec::rank0Stdin), PR_SET_PDEATHSIG(SIGKILL)
// so it dies with its parent, default signal dispositions, an empty signal mask, and its
// own process group, so that killing the job also reaches what a rank started (and
// terminal signals reach only mpirun, which then ends the job). The
// environment is the inherited one minus LaunchSpec::unsetEnv, plus LaunchSpec::setEnv,
// plus PMI_FD, PMI_RANK, PMI_SIZE, CCMPI_LOCAL_RANK and CCMPI_LOCAL_SIZE.
//
// Events go to the callbacks: complete PMI lines, output chunks (n == 0 at EOF), and
// exits. When a rank has exited, its pending PMI lines and readable output are handled
// before `exited` is called, so an abort or an error message precedes the exit report.
#include <sys/types.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "launcher/event_loop.h"
#include "launcher/frame.h"

namespace ccmpi::launcher {

class RankSet {
 public:
  struct Callbacks {
    std::function<void(int rank, pid_t pid)> started;
    std::function<void(int rank, const std::string& line)> pmiLine;
    std::function<void(int rank, int stream, const char* data, std::size_t n)> output;
    std::function<void(int rank, int waitStatus)> exited;
    std::function<void(int rank, const std::string& why)> protocolError;
  };

  RankSet(EventLoop& loop, Callbacks callbacks);
  ~RankSet();

  // Forks all ranks of `spec`. On failure (fork, pipes) returns false with a message;
  // ranks already started keep running and are reported as usual.
  bool launch(const LaunchSpec& spec, std::string* error);

  void sendPmi(int rank, std::string_view data);
  void writeStdin(std::string_view data);
  void closeStdin();

  // Handles a reaped child; false if `pid` is not one of ours.
  bool handleExit(pid_t pid, int waitStatus);

  // SIGTERM to every live rank, SIGKILL to those still alive after `grace`.
  void terminate(std::chrono::milliseconds grace);
  void killNow();
  void pauseOutput(bool paused);
  // Stops waiting for output EOF: SIGKILLs the process groups of ranks whose pipes are
  // still held open by descendants, then closes the pipes.
  void closeOutputs();

  int liveCount() const { return live_; }
  std::vector<pid_t> livePids() const;
  bool outputsClosed() const;
  bool hasRank(int rank) const;
  pid_t pidOf(int rank) const;

 private:
  struct Proc {
    int rank = -1;
    int localRank = 0;
    pid_t pid = -1;
    bool alive = false;
    std::unique_ptr<Channel> pmi;
    std::unique_ptr<Channel> out;
    std::unique_ptr<Channel> err;
    std::string pmiBuffer;
    bool pmiBroken = false;
  };
  bool spawnOne(const LaunchSpec& spec, Proc* proc, std::string* error);
  void signalGroup(Proc* proc, int sig);
  void onPmiData(Proc* proc, const char* data, std::size_t n);
  Proc* find(int rank);

  EventLoop& loop_;
  Callbacks cb_;
  std::vector<std::unique_ptr<Proc>> procs_;
  std::unique_ptr<Channel> stdin_;
  int live_ = 0;
  bool killTimerArmed_ = false;
  EventLoop::TimerId killTimer_ = 0;
};

// Resets what a freshly forked child inherits from the launcher (signal mask and
// dispositions), makes it a process group leader and asks for SIGKILL when the launcher
// dies. `parent` is the launcher's pid.
void prepareChild(pid_t parent);

// Builds an environment: `base` (NAME=VALUE strings) minus `unset`, then `set` applied
// in order (later entries win).
std::vector<std::string> buildEnvironment(const std::vector<std::string>& base,
                                          const std::vector<std::string>& unset,
                                          const std::vector<std::string>& set);
std::vector<std::string> currentEnvironment();

// "SIGSEGV" for 11, "signal 99" if unknown.
std::string signalName(int sig);

}  // namespace ccmpi::launcher
