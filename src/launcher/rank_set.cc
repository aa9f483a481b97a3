// Forking and watching the ranks of one host (see rank_set.h).
#include "launcher/rank_set.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <string>

#include "bootstrap/pmi_wire.h"

extern char** environ;

namespace ccmpi::launcher {

std::string signalName(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  if (abbrev) return std::string("SIG") + abbrev;
  return "signal " + std::to_string(sig);
}

std::vector<std::string> currentEnvironment() {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) env.emplace_back(*e);
  return env;
}

std::vector<std::string> buildEnvironment(const std::vector<std::string>& base,
                                          const std::vector<std::string>& unset,
                                          const std::vector<std::string>& set) {
  auto nameOf = [](const std::string& entry) { return entry.substr(0, entry.find('=')); };
  std::vector<std::string> env;
  std::map<std::string, std::size_t> index;
  auto apply = [&](const std::string& entry) {
    std::string name = nameOf(entry);
    auto it = index.find(name);
    if (it != index.end()) {
      env[it->second] = entry;
    } else {
      index[name] = env.size();
      env.push_back(entry);
    }
  };
  for (const auto& entry : base) {
    std::string name = nameOf(entry);
    bool drop = false;
    for (const auto& u : unset) drop = drop || u == name;
    if (!drop) apply(entry);
  }
  for (const auto& entry : set) apply(entry);
  return env;
}

void prepareChild(pid_t parent) {
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(1);  // the launcher died before prctl took effect
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGTTIN, SIGTTOU})
    signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
}

RankSet::RankSet(EventLoop& loop, Callbacks callbacks) : loop_(loop), cb_(std::move(callbacks)) {}

RankSet::~RankSet() {
  if (killTimerArmed_) loop_.cancel(killTimer_);
}

RankSet::Proc* RankSet::find(int rank) {
  for (auto& p : procs_)
    if (p->rank == rank) return p.get();
  return nullptr;
}

bool RankSet::hasRank(int rank) const {
  for (const auto& p : procs_)
    if (p->rank == rank) return true;
  return false;
}

pid_t RankSet::pidOf(int rank) const {
  for (const auto& p : procs_)
    if (p->rank == rank) return p->pid;
  return -1;
}

bool RankSet::launch(const LaunchSpec& spec, std::string* error) {
  for (const RankSlot& slot : spec.ranks) {
    auto proc = std::make_unique<Proc>();
    proc->rank = slot.rank;
    proc->localRank = slot.localRank;
    Proc* p = proc.get();
    procs_.push_back(std::move(proc));
    if (!spawnOne(spec, p, error)) return false;
  }
  return true;
}

bool RankSet::spawnOne(const LaunchSpec& spec, Proc* proc, std::string* error) {
  int sv[2] = {-1, -1}, outp[2] = {-1, -1}, errp[2] = {-1, -1}, inp[2] = {-1, -1};
  auto closeAll = [&] {
    for (int fd : {sv[0], sv[1], outp[0], outp[1], errp[0], errp[1], inp[0], inp[1]})
      if (fd >= 0) ::close(fd);
  };
  const StdinMode stdinMode = proc->rank == 0 ? spec.rank0Stdin : StdinMode::kNull;
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0 || pipe2(outp, O_CLOEXEC) < 0 ||
      pipe2(errp, O_CLOEXEC) < 0 || (stdinMode == StdinMode::kPipe && pipe2(inp, O_CLOEXEC) < 0)) {
    *error = std::string("cannot create pipes: ") + strerror(errno);
    closeAll();
    return false;
  }

  std::vector<std::string> set = spec.setEnv;
  set.push_back("PMI_FD=" + std::to_string(sv[1]));
  set.push_back("PMI_RANK=" + std::to_string(proc->rank));
  set.push_back("PMI_SIZE=" + std::to_string(spec.worldSize));
  set.push_back("CCMPI_LOCAL_RANK=" + std::to_string(proc->localRank));
  set.push_back("CCMPI_LOCAL_SIZE=" + std::to_string(spec.ranks.size()));
  std::vector<std::string> env = buildEnvironment(currentEnvironment(), spec.unsetEnv, set);
  std::vector<char*> envp, argv;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = spec.argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    *error = std::string("fork: ") + strerror(errno);
    closeAll();
    return false;
  }
  if (pid == 0) {
    prepareChild(parent);
    dup2(outp[1], 1);
    dup2(errp[1], 2);
    if (stdinMode == StdinMode::kPipe) {
      dup2(inp[0], 0);
    } else if (stdinMode == StdinMode::kNull) {
      int devnull = open("/dev/null", O_RDONLY);
      if (devnull >= 0 && devnull != 0) {
        dup2(devnull, 0);
        ::close(devnull);
      }
    }
    fcntl(sv[1], F_SETFD, 0);  // the PMI socket survives exec
    if (!spec.cwd.empty() && chdir(spec.cwd.c_str()) < 0) {
      dprintf(2, "mpirun: rank %d: cannot change to directory '%s': %s\n", proc->rank,
              spec.cwd.c_str(), strerror(errno));
      _exit(127);
    }
    execvpe(argv[0], argv.data(), envp.data());
    dprintf(2, "mpirun: rank %d: cannot execute '%s': %s\n", proc->rank, argv[0], strerror(errno));
    _exit(127);
  }

  setpgid(pid, pid);  // also done by the child; whichever runs first wins the race
  ::close(sv[1]);
  ::close(outp[1]);
  ::close(errp[1]);
  if (inp[0] >= 0) ::close(inp[0]);
  proc->pid = pid;
  proc->alive = true;
  ++live_;
  proc->pmi = std::make_unique<Channel>(
      loop_, sv[0], true, [this, proc](const char* d, std::size_t n) { onPmiData(proc, d, n); });
  const int rank = proc->rank;
  proc->out = std::make_unique<Channel>(
      loop_, outp[0], true,
      [this, rank](const char* d, std::size_t n) { cb_.output(rank, 1, d, n); });
  proc->err = std::make_unique<Channel>(
      loop_, errp[0], true,
      [this, rank](const char* d, std::size_t n) { cb_.output(rank, 2, d, n); });
  if (inp[1] >= 0) stdin_ = std::make_unique<Channel>(loop_, inp[1], false, nullptr);
  if (cb_.started) cb_.started(rank, pid);
  return true;
}

void RankSet::onPmiData(Proc* proc, const char* data, std::size_t n) {
  if (n == 0 || proc->pmiBroken) return;  // EOF: the rank closed its PMI socket
  proc->pmiBuffer.append(data, n);
  std::size_t start = 0;
  for (;;) {
    std::size_t nl = proc->pmiBuffer.find('\n', start);
    if (nl == std::string::npos) break;
    std::string line = proc->pmiBuffer.substr(start, nl - start);
    start = nl + 1;
    cb_.pmiLine(proc->rank, line);
    if (proc->pmiBroken) return;
  }
  proc->pmiBuffer.erase(0, start);
  if (proc->pmiBuffer.size() > bootstrap::kPmiMaxLine) {
    proc->pmiBroken = true;
    proc->pmiBuffer.clear();
    cb_.protocolError(proc->rank, "over-long PMI line");
  }
}

void RankSet::sendPmi(int rank, std::string_view data) {
  Proc* p = find(rank);
  if (p && p->pmi) p->pmi->send(data);
}

void RankSet::writeStdin(std::string_view data) {
  if (stdin_) stdin_->send(data);
}

void RankSet::closeStdin() {
  if (stdin_) stdin_->closeAfterFlush();
}

namespace {

// A rank's node-collective segment (coll/node/segment.h) has a name in /dev/shm,
// "ccmpi-<pid>-<random>", from its creation until every rank mapped it. A rank killed in
// between leaves the name: once the rank is reaped, whatever carries its pid goes.
void removeShmNamesOf(pid_t pid) {
  const std::string prefix = "ccmpi-" + std::to_string(pid) + "-";
  DIR* d = opendir("/dev/shm");
  if (!d) return;
  while (dirent* e = readdir(d)) {
    if (std::strncmp(e->d_name, prefix.c_str(), prefix.size()) == 0)
      unlinkat(dirfd(d), e->d_name, 0);
  }
  closedir(d);
}

}  // namespace

bool RankSet::handleExit(pid_t pid, int waitStatus) {
  for (auto& p : procs_) {
    if (p->pid != pid || !p->alive) continue;
    p->alive = false;
    --live_;
    removeShmNamesOf(pid);
    p->pmi->drainNow();
    p->out->drainNow();
    p->err->drainNow();
    if (live_ == 0 && killTimerArmed_) {
      loop_.cancel(killTimer_);
      killTimerArmed_ = false;
    }
    cb_.exited(p->rank, waitStatus);
    return true;
  }
  return false;
}

// A rank's process group holds the rank and whatever it started. After the rank itself
// has been reaped, its group is only signalled while its output pipes are still open,
// i.e. while descendants that hold them (and thus the group id) are certainly alive.
void RankSet::signalGroup(Proc* p, int sig) {
  if (p->pid <= 0) return;
  bool pipesHeld = (p->out && !p->out->closed() && !p->out->readEof()) ||
                   (p->err && !p->err->closed() && !p->err->readEof());
  if (!p->alive && !pipesHeld) return;
  if (kill(-p->pid, sig) < 0 && p->alive) kill(p->pid, sig);
}

void RankSet::terminate(std::chrono::milliseconds grace) {
  for (auto& p : procs_) signalGroup(p.get(), SIGTERM);
  if (live_ > 0 && !killTimerArmed_) {
    killTimerArmed_ = true;
    killTimer_ = loop_.after(grace, [this] {
      killTimerArmed_ = false;
      killNow();
    });
  }
}

void RankSet::killNow() {
  for (auto& p : procs_) signalGroup(p.get(), SIGKILL);
}

void RankSet::pauseOutput(bool paused) {
  for (auto& p : procs_) {
    if (p->out) p->out->pauseReading(paused);
    if (p->err) p->err->pauseReading(paused);
  }
}

void RankSet::closeOutputs() {
  for (auto& p : procs_) {
    signalGroup(p.get(), SIGKILL);  // descendants still holding the pipes
    for (auto* ch : {p->out.get(), p->err.get()}) {
      if (!ch || ch->closed()) continue;
      bool eof = ch->readEof();
      ch->close();
      if (!eof) cb_.output(p->rank, ch == p->out.get() ? 1 : 2, nullptr, 0);
    }
  }
}

std::vector<pid_t> RankSet::livePids() const {
  std::vector<pid_t> pids;
  for (const auto& p : procs_)
    if (p->alive) pids.push_back(p->pid);
  return pids;
}

bool RankSet::outputsClosed() const {
  for (const auto& p : procs_) {
    for (const auto* ch : {p->out.get(), p->err.get()})
      if (ch && !ch->closed() && !ch->readEof()) return false;
  }
  return true;
}

}  // namespace ccmpi::launcher
