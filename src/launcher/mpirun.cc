// mpirun proper: places the ranks on hosts, forks the local ones, starts one proxy per
// remote host through the launch agent, serves PMI-1 to all ranks, forwards their output
// line by line, and turns the first failure into killing the job and an exit status.
//
// Life of a job:
//   1. options, hosts (hostfile / -H / a Slurm allocation / just this machine),
//      placement, job id and secret;
//   2. launch: local ranks via RankSet; for each other host `<agent> <host> <mpirun>
//      --ccmpi-proxy`, then a kJob frame describing its ranks (frame.h). In a Slurm
//      allocation (no --launcher) one srun starts the proxies of all other nodes, one
//      per node, and each connects back to a TCP port of ours (proxy.cc's --connect),
//      saying which node it is on; it then gets its kJob frame over that connection;
//   3. event loop: PMI lines (local sockets or kPmi frames) go to PmiServer, whose
//      replies go back the same way; output goes through OutputAssembler to our
//      stdout/stderr; exits are checked against PMI state;
//   4. the first failure (a rank killed by a signal, exiting non-zero, exiting after PMI
//      init without finalize, MPI_Abort, a lost proxy, SIGINT/SIGTERM/SIGHUP to us)
//      prints one line and kills the job: SIGTERM to every rank, SIGKILL after 1 s; at
//      1.5 s whatever is left is SIGKILLed (agents too) and we exit regardless;
//   5. done when every rank has exited and all output has been forwarded (output pipes
//      still held open by a rank's descendants are abandoned 1 s after the last exit).
#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "bootstrap/slurm_env.h"
#include "launcher/event_loop.h"
#include "launcher/frame.h"
#include "launcher/hostfile.h"
#include "launcher/launcher.h"
#include "launcher/options.h"
#include "launcher/output.h"
#include "launcher/pmi_server.h"
#include "launcher/rank_set.h"

#ifndef CCMPI_VERSION_STRING
#define CCMPI_VERSION_STRING "unknown"
#endif

namespace ccmpi::launcher {
namespace {

constexpr auto kKillGrace = std::chrono::milliseconds(1000);
constexpr auto kHardDeadline = std::chrono::milliseconds(1500);
constexpr auto kOutputDrain = std::chrono::milliseconds(1000);
// Seconds every remote rank has to start (CCMPI_LAUNCH_TIMEOUT).
constexpr int kLaunchTimeoutSeconds = 60;
// Ranks per slot (per core where no hosts are given) that need --oversubscribe.
constexpr long long kOversubscribeFactor = 64;
constexpr int kUsageError = 2;
constexpr int kProgramNotFound = 127;
constexpr int kTimedOut = 124;  // as timeout(1)

void say(const std::string& msg) {
  writeAll(2, "mpirun: " + msg + "\n");
}

std::string myHostname() {
  char buf[HOST_NAME_MAX + 1] = {};
  if (gethostname(buf, sizeof buf - 1) < 0) return "localhost";
  return buf;
}

// A terminal stdin is read only when we are in the foreground; a background mpirun
// reading it would be stopped by SIGTTIN.
bool inForeground() {
  return tcgetpgrp(0) == getpgrp();
}

struct Host {
  std::string name;
  int slots = 1;
  bool local = false;
  std::string agentName;  // the name the launch agent gets (Slurm's node name)
};

// Where proxies may reach us: our host name, then the IPv4 addresses of our interfaces that
// are up, loopback last ("name,10.0.0.5,127.0.0.1"; proxy.cc tries them in order).
std::string connectHosts(const std::string& hostname) {
  std::string out = hostname, loopback;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return out;
  for (ifaddrs* i = list; i; i = i->ifa_next) {
    if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP)) continue;
    char buf[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr, buf, sizeof buf);
    if (i->ifa_flags & IFF_LOOPBACK)
      loopback += std::string(",") + buf;
    else
      out += std::string(",") + buf;
  }
  freeifaddrs(list);
  return out + loopback;
}

// How long the proxies started by srun have to connect back.
constexpr auto kConnectTimeout = std::chrono::seconds(60);

struct RankInfo {
  int host = 0;
  int proxy = -1;  // index into proxies_, -1 = local
  pid_t pid = -1;
  bool exited = false;
};

struct Proxy {
  int host = 0;
  pid_t agentPid = -1;
  bool agentReaped = false;
  int agentStatus = 0;
  std::unique_ptr<Channel> to;
  std::unique_ptr<Channel> from;
  FrameReader reader{true};
  bool eof = false;
  int ranksLeft = 0;
  bool connectBack = false;  // started by the shared srun; `to`/`from` once it connected
  std::string early;         // frames for it before it connected (its job, stdin)
};

class Job {
 public:
  explicit Job(Options options) : o_(std::move(options)), output_(o_.tagOutput, o_.labelOutput) {}
  int run();

 private:
  int prepare();
  int slurmHosts(std::vector<HostSlots>* list, std::string* text);
  void launch();
  bool startProxy(int proxyIndex, const LaunchSpec& spec);
  bool startSrunProxies();
  void onHello(int fd);
  void loseProxy(int index, const std::string& message);
  void sendToProxy(Proxy& p, const std::string& frame);
  void onSignal();
  void watchParent();
  void onSpawned(int rank, const std::string& value);
  void onProxyData(int index, const char* data, std::size_t n);
  void onProxyFrame(int index, const Frame& frame);
  void onOutput(int rank, int stream, const char* data, std::size_t n);
  void onRankExit(int rank, int status);
  void fail(const std::string& message, int exitCode);
  void forceEnd();
  void checkDone();
  void abandonUnstarted();
  void sendPmi(int rank, const std::string& line);
  std::string describe(int rank) const;
  bool anyRankAlive() const;

  Options o_;
  EventLoop loop_;
  OutputAssembler output_;
  std::string hostname_;
  std::vector<Host> hosts_;
  bool inSlurm_ = false;      // hosts from the Slurm allocation
  bool connectBack_ = false;  // remote proxies: one srun, connecting back to listenFd_
  int listenFd_ = -1;
  std::string proxyToken_;
  std::map<int, std::string> hellos_;  // accepted connections: fd -> hello read so far
  Placement placement_;
  int np_ = 0;
  std::vector<std::string> agent_;
  std::string self_;  // absolute path of this executable
  std::string jobId_, secret_;
  long long universe_ = 1;  // MPI_UNIVERSE_SIZE (CCMPI_UNIVERSE_SIZE)
  std::vector<RankInfo> ranks_;
  std::vector<Proxy> proxies_;
  std::unique_ptr<RankSet> local_;
  std::unique_ptr<PmiServer> pmi_;
  int signalFd_ = -1;
  int remoteStdinProxy_ = -1;
  bool relayStdin_ = false;
  bool failing_ = false;
  bool done_ = false;
  int exitCode_ = 0;
  bool drainArmed_ = false;
  int spawnedRunning_ = 0;  // mpiruns local ranks spawned that are still running (onSpawned)
};

std::string Job::describe(int rank) const {
  const RankInfo& r = ranks_[static_cast<std::size_t>(rank)];
  std::string s =
      "rank " + std::to_string(rank) + " (host " + hosts_[static_cast<std::size_t>(r.host)].name;
  if (r.pid > 0) s += ", pid " + std::to_string(r.pid);
  return s + ")";
}

bool Job::anyRankAlive() const {
  for (const auto& r : ranks_)
    if (!r.exited) return true;
  return false;
}

// The hosts and slots of the Slurm allocation we run in (salloc, sbatch), if any: the
// nodes of SLURM_JOB_NODELIST with the task counts of SLURM_TASKS_PER_NODE (else
// SLURM_JOB_CPUS_PER_NODE). Returns non-zero (an exit status) on a malformed allocation.
int Job::slurmHosts(std::vector<HostSlots>* list, std::string* text) {
  const char* nodes = getenv("SLURM_JOB_NODELIST");
  if (!nodes) nodes = getenv("SLURM_NODELIST");
  const char* tasksVar = "SLURM_TASKS_PER_NODE";
  const char* tasks = getenv(tasksVar);
  if (!tasks) tasks = getenv(tasksVar = "SLURM_JOB_CPUS_PER_NODE");
  if (!getenv("SLURM_JOB_ID") || !nodes || !*nodes || !tasks || !*tasks) return 0;
  std::vector<std::string> names;
  std::vector<int> counts;
  std::string error;
  if (!bootstrap::expandSlurmHostList(nodes, &names, &error)) {
    say(std::string("SLURM_JOB_NODELIST='") + nodes + "': " + error);
    return kUsageError;
  }
  if (!bootstrap::parseSlurmTaskCounts(tasks, &counts, &error)) {
    say(std::string(tasksVar) + "='" + tasks + "': " + error);
    return kUsageError;
  }
  if (counts.size() != names.size()) {
    say(std::string("the Slurm allocation names ") + std::to_string(names.size()) +
        " nodes (SLURM_JOB_NODELIST=" + nodes + ") but " + std::to_string(counts.size()) +
        " task counts (" + tasksVar + "=" + tasks + ")");
    return kUsageError;
  }
  for (std::size_t i = 0; i < names.size(); ++i)
    if (counts[i] > 0) list->push_back(HostSlots{names[i], counts[i]});
  *text = std::string("SLURM_JOB_NODELIST=") + nodes + ", " + tasksVar + "=" + tasks;
  inSlurm_ = !list->empty();
  if (o_.verbose && inSlurm_) say("Slurm allocation: " + *text);
  return 0;
}

int Job::prepare() {
  hostname_ = myHostname();
  std::vector<HostSlots> list = o_.hostList;
  if (!o_.hostfile.empty()) {
    std::ifstream in(o_.hostfile);
    if (!in) {
      say("cannot read hostfile '" + o_.hostfile + "': " + strerror(errno));
      return kUsageError;
    }
    std::stringstream text;
    text << in.rdbuf();
    std::string error;
    if (!parseHostfile(text.str(), &list, &error)) {
      say("hostfile '" + o_.hostfile + "': " + error);
      return kUsageError;
    }
  }
  const bool explicitHosts = !list.empty();
  std::string slurmText;  // the allocation, for messages
  if (!explicitHosts) {
    if (int rc = slurmHosts(&list, &slurmText)) return rc;
  }
  // No hosts given: this host, with a slot for every rank asked for. How far it may be
  // oversubscribed is measured against its cores (below).
  const bool implicitHost = list.empty();
  if (list.empty())
    list.push_back(HostSlots{hostname_, o_.ppn > 0 ? o_.ppn : o_.np > 0 ? o_.np : 1});
  std::map<std::string, std::string> agentNames;
  // Slurm's name for the node we run on may differ from its host name (NodeHostname).
  const char* slurmNode = inSlurm_ ? getenv("SLURMD_NODENAME") : nullptr;
  for (auto& h : list) {
    std::string original = h.name;
    if (isLocalHostName(h.name, hostname_) || (slurmNode && h.name == slurmNode))
      h.name = hostname_;
    agentNames.emplace(h.name, original);
  }
  const char* forceSrun = getenv("CCMPI_SLURM_LAUNCH");
  const bool allSrun = inSlurm_ && forceSrun && std::string(forceSrun) == "srun";
  for (const auto& h : mergeHosts(list))
    hosts_.push_back(Host{h.name, h.slots, h.name == hostname_ && !allSrun, agentNames[h.name]});

  long long totalSlots = 0;
  for (const auto& h : hosts_) totalSlots += h.slots;
  if (o_.ppn > 0) {
    for (const auto& h : hosts_) {
      if (inSlurm_ && o_.ppn > h.slots && !o_.oversubscribe) {
        say("-ppn " + std::to_string(o_.ppn) + " is more than the " + std::to_string(h.slots) +
            " tasks of the Slurm allocation on " + h.name + " (" + slurmText +
            "); add --oversubscribe to run them anyway");
        return kUsageError;
      }
    }
    for (auto& h : hosts_) h.slots = o_.ppn;
  }
  long long ppnSlots = 0;
  for (const auto& h : hosts_) ppnSlots += h.slots;
  np_ = o_.np > 0 ? o_.np : static_cast<int>(std::min<long long>(ppnSlots, 1000000));
  if (inSlurm_ && np_ > totalSlots && !o_.oversubscribe) {
    say("-n " + std::to_string(np_) + " is more than the " + std::to_string(totalSlots) +
        " tasks of the Slurm allocation (" + slurmText +
        "); add --oversubscribe to run them anyway");
    return kUsageError;
  }
  if (o_.ppn > 0 && o_.np > ppnSlots && !o_.oversubscribe) {
    say("-n " + std::to_string(o_.np) + " is more than -ppn " + std::to_string(o_.ppn) + " times " +
        std::to_string(hosts_.size()) + " hosts; add --oversubscribe to run them anyway");
    return kUsageError;
  }
  totalSlots = ppnSlots;
  std::vector<HostSlots> slots;
  for (const auto& h : hosts_) slots.push_back(HostSlots{h.name, h.slots});
  placement_ = o_.mapBy == "node" ? placeRanksByNode(slots, np_) : placeRanks(slots, np_);
  // MPI_UNIVERSE_SIZE: as many processes as mpirun starts on these hosts without
  // --oversubscribe (kOversubscribeFactor per slot, per core where no hosts are given), at
  // least -n. A job MPI_Comm_spawn started (its mpirun has CCMPI_UNIVERSE_SIZE from the
  // parent rank) is in its parents' universe.
  const char* inherited = getenv("CCMPI_UNIVERSE_SIZE");
  universe_ = std::max<long long>(
      np_, inherited && atoll(inherited) > 0
               ? atoll(inherited)
               : kOversubscribeFactor *
                     (implicitHost ? std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)) : totalSlots));
  // A sane multiple of the slots (of the cores where no hosts were given): beyond it a typo
  // (-n 100000) would fork until the machine's process table is full. --oversubscribe
  // allows it, as Open MPI's does.
  if (!o_.oversubscribe) {
    const long cores = std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
    for (std::size_t h = 0; h < hosts_.size(); ++h) {
      const long long base = implicitHost ? cores : hosts_[h].slots;
      const long long cap = kOversubscribeFactor * std::max(1LL, base);
      const long long here = static_cast<long long>(placement_.ranksOfHost[h].size());
      if (here > cap) {
        say(std::to_string(here) + " ranks on " + hosts_[h].name + " is more than " +
            std::to_string(kOversubscribeFactor) + " per " +
            (implicitHost ? "core (" + std::to_string(cores) + " cores)"
                          : "slot (" + std::to_string(hosts_[h].slots) + " slots)") +
            "; add --oversubscribe to run them anyway");
        return kUsageError;
      }
    }
  }
  if (o_.verbose) {
    if (placement_.oversubscribed)
      say("note: " + std::to_string(np_) + " ranks on " + std::to_string(totalSlots) +
          " slots: hosts are oversubscribed");
    for (std::size_t h = 0; h < hosts_.size(); ++h) {
      std::string ranks;
      for (int r : placement_.ranksOfHost[h]) ranks += " " + std::to_string(r);
      say("host " + hosts_[h].name + (hosts_[h].local ? " (local)" : "") + ", " +
          std::to_string(hosts_[h].slots) + " slots: ranks" + (ranks.empty() ? " none" : ranks));
    }
  }

  bool anyLocal = false, anyRemote = false;
  for (std::size_t h = 0; h < hosts_.size(); ++h) {
    if (placement_.ranksOfHost[h].empty()) continue;
    (hosts_[h].local ? anyLocal : anyRemote) = true;
  }
  std::string error;
  if (anyLocal && findProgram(o_.command[0], o_.wdir, &error).empty()) {
    say(error);
    return kProgramNotFound;
  }
  if (anyRemote) {
    agent_ = o_.agent;
    if (agent_.empty()) {
      const char* env = getenv("CCMPI_LAUNCHER");
      if (env && *env)
        agent_ = splitCommand(env);
      else if (inSlurm_ || getenv("SLURM_JOB_ID"))
        connectBack_ = true;  // one srun for all nodes (startSrunProxies)
      if (connectBack_)
        agent_ = {"srun"};
      else if (agent_.empty())
        agent_ = {"ssh"};
    }
    if (agent_.size() == 1 && agent_[0] == "ssh") agent_ = {"ssh", "-x", "-o", "BatchMode=yes"};
    if (findProgram(agent_[0], "", &error).empty()) {
      say("launcher: " + error);
      return kUsageError;
    }
    char buf[PATH_MAX + 1] = {};
    ssize_t n = readlink("/proc/self/exe", buf, PATH_MAX);
    if (n <= 0) {
      say(std::string("cannot find my own executable: ") + strerror(errno));
      return kUsageError;
    }
    self_.assign(buf, static_cast<std::size_t>(n));
  }

  jobId_ = randomHex(8);
  secret_ = randomHex(16);
  if (jobId_.empty() || secret_.empty()) {
    say("cannot read /dev/urandom");
    return 1;
  }
  return 0;
}

int Job::run() {
  int rc = prepare();
  if (rc != 0) return rc;
  signalFd_ = setupSignals();
  if (signalFd_ < 0) {
    say(std::string("cannot set up signal handling: ") + strerror(errno));
    return 1;
  }
  loop_.watch(signalFd_, POLLIN, [this](short) { onSignal(); });
  watchParent();

  ranks_.resize(static_cast<std::size_t>(np_));
  for (int r = 0; r < np_; ++r)
    ranks_[static_cast<std::size_t>(r)].host = placement_.hostOfRank[static_cast<std::size_t>(r)];
  long long totalSlots = 0;
  for (const auto& h : hosts_) totalSlots += h.slots;

  PmiServer::Config config;
  config.size = np_;
  config.universeSize =
      static_cast<int>(std::max<long long>(np_, std::min<long long>(totalSlots, INT_MAX)));
  config.kvsName = "ccmpi_" + jobId_;
  config.processMapping = processMapping(placement_);
  PmiServer::Actions actions;
  actions.reply = [this](int rank, const std::string& line) { sendPmi(rank, line); };
  actions.abort = [this](int rank, int code) {
    int status = code & 0xff;
    if (status == 0) status = 1;
    fail("rank " + std::to_string(rank) + " called MPI_Abort with error code " +
             std::to_string(code),
         status);
  };
  actions.protocolError = [this](int rank, const std::string& why) {
    fail(describe(rank) + ": " + why, 1);
  };
  actions.spawned = [this](int rank, const std::string& value) { onSpawned(rank, value); };
  pmi_ = std::make_unique<PmiServer>(config, actions);

  launch();
  // --timeout, else MPIEXEC_TIMEOUT (MPICH's test harness sets it for every test).
  int timeout = o_.timeout;
  if (timeout < 0) {
    const char* env = getenv("MPIEXEC_TIMEOUT");
    char* end = nullptr;
    const long v = env && *env ? strtol(env, &end, 10) : 0;
    if (env && *env && (*end != '\0' || v < 1 || v > INT_MAX)) {
      say(std::string("ignoring MPIEXEC_TIMEOUT='") + env + "' (not a positive number of seconds)");
    } else if (v > 0) {
      timeout = static_cast<int>(v);
    }
  }
  if (timeout > 0) {
    loop_.after(std::chrono::seconds(timeout), [this, timeout] {
      fail("the job did not finish within " + std::to_string(timeout) + " s (" +
               (o_.timeout > 0 ? "--timeout" : "MPIEXEC_TIMEOUT") + ")",
           kTimedOut);
    });
  }
  // A launch agent that never starts its ranks (an ssh waiting for a password, a host that
  // is down) would hold the job forever: CCMPI_LAUNCH_TIMEOUT seconds (default 60; 0: no
  // deadline) after the launch every remote rank must have started.
  int startup = kLaunchTimeoutSeconds;
  if (const char* env = getenv("CCMPI_LAUNCH_TIMEOUT"); env && *env) {
    char* end = nullptr;
    const long v = strtol(env, &end, 10);
    if (*end != '\0' || v < 0 || v > INT_MAX)
      say(std::string("ignoring CCMPI_LAUNCH_TIMEOUT='") + env +
          "' (not a number of seconds; 0 = no deadline)");
    else
      startup = static_cast<int>(v);
  }
  if (startup > 0 && !proxies_.empty()) {
    loop_.after(std::chrono::seconds(startup), [this, startup] {
      if (failing_ || done_) return;
      std::set<std::string> late;
      int missing = 0;
      for (const RankInfo& r : ranks_)
        if (r.proxy >= 0 && !r.exited && r.pid <= 0) {
          ++missing;
          late.insert(hosts_[static_cast<std::size_t>(r.host)].name);
        }
      if (late.empty()) return;
      std::string names;
      for (const std::string& h : late) names += (names.empty() ? "" : ", ") + h;
      fail(std::string(late.size() == 1 ? "host " : "hosts ") + names + " did not come up within " +
               std::to_string(startup) + " s: " + std::to_string(missing) +
               " rank(s) never started there (the launch agent did not start them; "
               "CCMPI_LAUNCH_TIMEOUT sets the deadline)",
           1);
    });
  }
  // A launch that failed before any rank started has nothing to wait for.
  checkDone();
  while (!done_) {
    loop_.runOnce();
    checkDone();
  }

  std::vector<pid_t> children;
  for (const auto& r : ranks_)
    if (r.proxy < 0 && !r.exited && r.pid > 0) children.push_back(r.pid);
  for (auto& p : proxies_) {
    p.to.reset();  // EOF tells a proxy still running to kill its ranks
    p.from.reset();
    if (!p.agentReaped && p.agentPid > 0) children.push_back(p.agentPid);
  }
  reapAll(signalFd_, children, std::chrono::milliseconds(failing_ ? 300 : 2000));
  return exitCode_;
}

void Job::launch() {
  // Hosts fill in order, so the hosts with ranks are a prefix of the list and the host
  // index doubles as the node id.
  std::size_t usedHosts = 0;
  for (const auto& ranks : placement_.ranksOfHost) usedHosts += ranks.empty() ? 0 : 1;
  // The host of every rank, run-length coded ("HOST*COUNT,..." in rank order), so that
  // the collective selector can count the hosts a communicator spans.
  std::string rankHosts;
  for (std::size_t r = 0; r < placement_.hostOfRank.size();) {
    std::size_t e = r;
    while (e < placement_.hostOfRank.size() && placement_.hostOfRank[e] == placement_.hostOfRank[r])
      ++e;
    rankHosts += (rankHosts.empty() ? "" : ",") + std::to_string(placement_.hostOfRank[r]) + "*" +
                 std::to_string(e - r);
    r = e;
  }
  std::vector<std::string> common = {"CCMPI_JOB_ID=" + jobId_, "CCMPI_JOB_SECRET=" + secret_,
                                     "CCMPI_NUM_NODES=" + std::to_string(usedHosts),
                                     "CCMPI_RANK_HOSTS=" + rankHosts,
                                     "CCMPI_UNIVERSE_SIZE=" + std::to_string(universe_)};
  // MPI_Comm_spawn starts the new ranks with this mpirun (docs/dynamic.md).
  {
    char self[4096];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) common.push_back("CCMPI_MPIRUN=" + std::string(self, static_cast<size_t>(n)));
  }
  std::vector<std::string> user;  // -x and --env, in order
  for (const auto& [name, value] : o_.exports) {
    if (value) {
      user.push_back(name + "=" + *value);
    } else if (const char* v = getenv(name.c_str())) {
      user.push_back(name + "=" + v);
    } else if (o_.verbose) {
      say("note: -x " + name + ": not set in our environment, not exported");
    }
  }
  for (const auto& [name, value] : o_.env) user.push_back(name + "=" + value);
  if (!o_.iface.empty()) user.push_back("CCMPI_IFACE=" + o_.iface);
  if (!o_.compress.empty()) user.push_back("CCMPI_COMPRESS=" + o_.compress);
  std::string bind = o_.bindTo;
  if (bind.empty() && (o_.mapBy == "core" || o_.mapBy == "socket")) bind = o_.mapBy;
  if (!bind.empty()) user.push_back("CCMPI_BIND=" + bind);
  if (o_.reportBindings) user.push_back("CCMPI_REPORT_BINDINGS=1");
  const std::vector<std::string> unset = {"PMI_PORT", "PMI_ID",   "PMI_SPAWNED",
                                          "PMI_FD",   "PMI_RANK", "PMI_SIZE"};
  // Remote ranks start in our working directory (or --wdir), made absolute.
  std::string cwd = o_.wdir;
  if (cwd.empty() || cwd[0] != '/') {
    char buf[PATH_MAX + 1] = {};
    if (getcwd(buf, PATH_MAX)) cwd = cwd.empty() ? std::string(buf) : std::string(buf) + "/" + cwd;
  }
  const int rank0Host = placement_.hostOfRank.empty() ? -1 : placement_.hostOfRank[0];

  for (std::size_t h = 0; h < hosts_.size(); ++h) {
    const auto& ranks = placement_.ranksOfHost[h];
    if (ranks.empty()) continue;
    LaunchSpec spec;
    spec.host = hosts_[h].name;
    spec.argv = o_.command;
    spec.worldSize = np_;
    spec.unsetEnv = unset;
    for (int r : ranks)
      spec.ranks.push_back(RankSlot{r, placement_.localRankOf[static_cast<std::size_t>(r)]});
    if (!hosts_[h].local) {
      // Remote ranks do not inherit our environment: forward every CCMPI_* variable.
      for (const auto& entry : currentEnvironment())
        if (entry.rfind("CCMPI_", 0) == 0) spec.setEnv.push_back(entry);
    }
    spec.setEnv.insert(spec.setEnv.end(), user.begin(), user.end());
    spec.setEnv.insert(spec.setEnv.end(), common.begin(), common.end());
    spec.setEnv.push_back("CCMPI_NODE_ID=" + std::to_string(h));

    if (hosts_[h].local) {
      spec.cwd = o_.wdir;
      // Ranks are not in the terminal's foreground process group: a terminal stdin is
      // relayed through a pipe; anything else is simply inherited.
      if (static_cast<int>(h) == rank0Host) {
        spec.rank0Stdin = !isatty(0)       ? StdinMode::kInherit
                          : inForeground() ? StdinMode::kPipe
                                           : StdinMode::kNull;
        relayStdin_ = spec.rank0Stdin == StdinMode::kPipe;
      }
      RankSet::Callbacks cb;
      cb.started = [this](int rank, pid_t pid) {
        ranks_[static_cast<std::size_t>(rank)].pid = pid;
      };
      cb.pmiLine = [this](int rank, const std::string& line) { pmi_->handleLine(rank, line); };
      cb.output = [this](int rank, int stream, const char* d, std::size_t n) {
        onOutput(rank, stream, d, n);
      };
      cb.exited = [this](int rank, int status) { onRankExit(rank, status); };
      cb.protocolError = [this](int rank, const std::string& why) {
        fail(describe(rank) + ": " + why, 1);
      };
      local_ = std::make_unique<RankSet>(loop_, cb);
      std::string error;
      if (!local_->launch(spec, &error)) {
        abandonUnstarted();
        fail("cannot start ranks on " + spec.host + ": " + error, 1);
        return;
      }
    } else {
      spec.cwd = cwd;
      spec.rank0Stdin = static_cast<int>(h) == rank0Host ? StdinMode::kPipe : StdinMode::kNull;
      proxies_.emplace_back();
      int index = static_cast<int>(proxies_.size()) - 1;
      proxies_.back().host = static_cast<int>(h);
      proxies_.back().ranksLeft = static_cast<int>(ranks.size());
      for (int r : ranks) ranks_[static_cast<std::size_t>(r)].proxy = index;
      if (static_cast<int>(h) == rank0Host && (!isatty(0) || inForeground())) {
        remoteStdinProxy_ = index;
        relayStdin_ = true;
      } else if (static_cast<int>(h) == rank0Host) {
        spec.rank0Stdin = StdinMode::kNull;
      }
      if (connectBack_) {
        proxies_.back().connectBack = true;
        appendFrame(&proxies_.back().early, FrameType::kJob, -1, encodeLaunchSpec(spec));
      } else if (!startProxy(index, spec)) {
        return;
      }
    }
  }
  if (connectBack_ && !proxies_.empty() && !startSrunProxies()) return;

  if (relayStdin_) {
    // Relay our stdin to rank 0 (no O_NONBLOCK on fd 0: it may be shared with others).
    loop_.watch(0, POLLIN, [this](short) {
      char buf[65536];
      ssize_t n = ::read(0, buf, sizeof buf);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
      std::string_view data = n > 0 ? std::string_view(buf, static_cast<std::size_t>(n)) : "";
      if (remoteStdinProxy_ < 0) {
        if (local_ && n > 0) local_->writeStdin(data);
        if (local_ && n <= 0) local_->closeStdin();
      } else {
        Proxy& p = proxies_[static_cast<std::size_t>(remoteStdinProxy_)];
        std::string frame;
        appendFrame(&frame, FrameType::kStdin, 0, data);
        sendToProxy(p, frame);
      }
      if (n <= 0) loop_.unwatch(0);
    });
  }
}

bool Job::startProxy(int index, const LaunchSpec& spec) {
  Proxy& p = proxies_[static_cast<std::size_t>(index)];
  int down[2], up[2];
  if (pipe2(down, O_CLOEXEC) < 0 || pipe2(up, O_CLOEXEC) < 0) {
    p.eof = true;
    abandonUnstarted();
    fail(std::string("pipe: ") + strerror(errno), 1);
    return false;
  }
  std::vector<std::string> args = agent_;
  const Host& host = hosts_[static_cast<std::size_t>(p.host)];
  args.push_back(host.agentName.empty() ? spec.host : host.agentName);
  args.push_back(self_);
  args.push_back("--ccmpi-proxy");
  if (o_.verbose) {
    std::string line;
    for (const auto& a : args) line += (line.empty() ? "" : " ") + a;
    say("starting proxy: " + line);
  }
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    for (int fd : {down[0], down[1], up[0], up[1]}) ::close(fd);
    p.eof = true;
    abandonUnstarted();
    fail(std::string("fork: ") + strerror(errno), 1);
    return false;
  }
  if (pid == 0) {
    prepareChild(parent);
    dup2(down[0], 0);
    dup2(up[1], 1);
    execvp(argv[0], argv.data());
    dprintf(2, "mpirun: cannot execute launcher '%s': %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  ::close(down[0]);
  ::close(up[1]);
  p.agentPid = pid;
  p.to = std::make_unique<Channel>(loop_, down[1], false, nullptr);
  p.from = std::make_unique<Channel>(
      loop_, up[0], true,
      [this, index](const char* d, std::size_t n) { onProxyData(index, d, n); });
  std::string frame;
  appendFrame(&frame, FrameType::kJob, -1, encodeLaunchSpec(spec));
  p.to->send(frame);
  return true;
}

void Job::sendToProxy(Proxy& p, const std::string& frame) {
  if (p.to)
    p.to->send(frame);
  else if (p.connectBack && !p.eof)
    p.early += frame;
}

// One srun starts the proxies of all remote nodes (one task per node); each connects to
// our listener and names its node (onHello).
bool Job::startSrunProxies() {
  proxyToken_ = randomHex(16);
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_ANY);
  socklen_t len = sizeof addr;
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      listen(fd, 1024) != 0 || getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0 ||
      proxyToken_.empty()) {
    const std::string why = strerror(errno);
    if (fd >= 0) ::close(fd);
    for (auto& p : proxies_) p.eof = true;
    abandonUnstarted();
    fail("cannot open a port for the proxies to connect to: " + why, 1);
    return false;
  }
  listenFd_ = fd;
  std::string nodes;
  for (const auto& p : proxies_) {
    const Host& h = hosts_[static_cast<std::size_t>(p.host)];
    nodes += (nodes.empty() ? "" : ",") + (h.agentName.empty() ? h.name : h.agentName);
  }
  const std::string count = std::to_string(proxies_.size());
  std::vector<std::string> args = {
      "srun",
      "--nodes=" + count,
      "--ntasks=" + count,
      "--ntasks-per-node=1",
      "--whole",
      "--overlap",
      "--mpi=none",
      "--quiet",
      "--kill-on-bad-exit=1",
      "--input=none",
      "--nodelist=" + nodes,
      self_,
      "--ccmpi-proxy",
      "--connect",
      connectHosts(hostname_) + ":" + std::to_string(ntohs(addr.sin_port))};
  if (o_.verbose) {
    std::string line;
    for (const auto& a : args) line += (line.empty() ? "" : " ") + a;
    say("starting proxies: " + line);
  }
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string token = "CCMPI_PROXY_TOKEN=" + proxyToken_;
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    for (auto& p : proxies_) p.eof = true;
    abandonUnstarted();
    fail(std::string("fork: ") + strerror(errno), 1);
    return false;
  }
  if (pid == 0) {
    prepareChild(parent);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    putenv(const_cast<char*>(token.c_str()));
    execvp(argv[0], argv.data());
    dprintf(2, "mpirun: cannot execute srun: %s\n", strerror(errno));
    _exit(127);
  }
  for (auto& p : proxies_) p.agentPid = pid;
  loop_.watch(listenFd_, POLLIN, [this](short) {
    for (;;) {
      int c = accept4(listenFd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (c < 0) break;
      hellos_[c].clear();
      loop_.watch(c, POLLIN, [this, c](short) { onHello(c); });
    }
  });
  loop_.after(kConnectTimeout, [this] {
    for (std::size_t i = 0; i < proxies_.size(); ++i)
      if (proxies_[i].connectBack && !proxies_[i].to && !proxies_[i].eof)
        loseProxy(static_cast<int>(i), "the proxy on host " +
                                           hosts_[static_cast<std::size_t>(proxies_[i].host)].name +
                                           " did not connect back within 60 s");
  });
  return true;
}

// A proxy's first line on its connection: "ccmpi-proxy-hello TOKEN NODE".
void Job::onHello(int fd) {
  std::string& buffer = hellos_[fd];
  char buf[4096];
  ssize_t n = ::read(fd, buf, sizeof buf);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  auto drop = [&] {
    loop_.unwatch(fd);
    ::close(fd);
    hellos_.erase(fd);
  };
  if (n <= 0) return drop();
  buffer.append(buf, static_cast<std::size_t>(n));
  const std::size_t nl = buffer.find('\n');
  if (nl == std::string::npos) {
    if (buffer.size() > 1024) drop();
    return;
  }
  std::vector<std::string> words = splitCommand(buffer.substr(0, nl));
  std::string rest = buffer.substr(nl + 1);
  if (words.size() != 3 || words[0] != "ccmpi-proxy-hello" || words[1] != proxyToken_)
    return drop();  // not one of ours
  int index = -1;
  for (std::size_t i = 0; i < proxies_.size() && index < 0; ++i) {
    const Proxy& p = proxies_[i];
    const Host& h = hosts_[static_cast<std::size_t>(p.host)];
    if (p.connectBack && !p.to && !p.eof &&
        (words[2] == h.agentName || words[2] == h.name || isLocalHostName(h.name, words[2])))
      index = static_cast<int>(i);
  }
  loop_.unwatch(fd);
  hellos_.erase(fd);
  if (index < 0 || failing_) {
    if (index < 0) say("a proxy connected from node " + words[2] + ", which has none to run");
    ::close(fd);
    return;
  }
  Proxy& p = proxies_[static_cast<std::size_t>(index)];
  p.to = std::make_unique<Channel>(loop_, dup(fd), false, nullptr);
  p.from = std::make_unique<Channel>(
      loop_, fd, true, [this, index](const char* d, std::size_t m) { onProxyData(index, d, m); });
  p.to->send(p.early);
  p.early.clear();
  bool waiting = false;  // for another proxy to connect
  for (const auto& q : proxies_) waiting = waiting || (q.connectBack && !q.to && !q.eof);
  if (!waiting && listenFd_ >= 0) {
    loop_.unwatch(listenFd_);
    ::close(listenFd_);
    listenFd_ = -1;
  }
  if (!rest.empty()) onProxyData(index, rest.data(), rest.size());
}

// A proxy that never connected: its ranks count as exited, and the job fails.
void Job::loseProxy(int index, const std::string& message) {
  Proxy& p = proxies_[static_cast<std::size_t>(index)];
  if (p.eof) return;
  p.eof = true;
  p.early.clear();
  for (int r : placement_.ranksOfHost[static_cast<std::size_t>(p.host)])
    ranks_[static_cast<std::size_t>(r)].exited = true;
  if (p.ranksLeft > 0) {
    p.ranksLeft = 0;
    fail(message, 1);
  }
}

// After a launch failure: ranks that were never started count as exited.
void Job::abandonUnstarted() {
  for (std::size_t i = 0; i < ranks_.size(); ++i) {
    RankInfo& r = ranks_[i];
    if (r.exited) continue;
    bool started = r.proxy < 0 ? local_ && local_->pidOf(static_cast<int>(i)) > 0
                               : proxies_[static_cast<std::size_t>(r.proxy)].agentPid > 0;
    if (!started) r.exited = true;
  }
  for (auto& p : proxies_)
    if (p.agentPid < 0) p.eof = true;
}

void Job::sendPmi(int rank, const std::string& line) {
  const RankInfo& r = ranks_[static_cast<std::size_t>(rank)];
  if (r.proxy < 0) {
    if (local_) local_->sendPmi(rank, line);
    return;
  }
  Proxy& p = proxies_[static_cast<std::size_t>(r.proxy)];
  std::string frame;
  appendFrame(&frame, FrameType::kPmi, rank, line);
  sendToProxy(p, frame);
}

void Job::onSignal() {
  signalfd_siginfo info;
  bool child = false;
  int stopSignal = 0;
  while (::read(signalFd_, &info, sizeof info) == sizeof info) {
    if (info.ssi_signo == SIGCHLD)
      child = true;
    else if (!stopSignal)
      stopSignal = static_cast<int>(info.ssi_signo);
  }
  if (stopSignal) {
    if (failing_) {
      forceEnd();  // a second interrupt: no more grace
    } else {
      fail("received signal " + std::to_string(stopSignal) + " (" + signalName(stopSignal) + ")",
           128 + stopSignal);
    }
  }
  if (!child) return;
  // Reap everything first, then report deaths by signal before plain exits: when a
  // crash makes other ranks fail, the crash is the failure worth naming.
  std::vector<std::pair<pid_t, int>> reaped;
  for (;;) {
    int status = 0;
    pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid <= 0) break;
    reaped.emplace_back(pid, status);
  }
  std::stable_partition(reaped.begin(), reaped.end(),
                        [](const auto& e) { return WIFSIGNALED(e.second); });
  for (const auto& [pid, status] : reaped) {
    if (local_ && local_->handleExit(pid, status)) continue;
    for (std::size_t i = 0; i < proxies_.size(); ++i) {
      Proxy& p = proxies_[i];
      if (p.agentPid != pid) continue;
      p.agentReaped = true;
      p.agentStatus = status;
      if (p.connectBack && !p.to)
        loseProxy(static_cast<int>(i), "srun ended before the proxy on host " +
                                           hosts_[static_cast<std::size_t>(p.host)].name +
                                           " connected back (see its message above)");
    }
  }
}

void Job::onProxyData(int index, const char* data, std::size_t n) {
  Proxy& p = proxies_[static_cast<std::size_t>(index)];
  const std::string& host = hosts_[static_cast<std::size_t>(p.host)].name;
  if (n == 0) {
    p.eof = true;
    bool sawMagic = p.reader.sawMagic();
    for (int r : placement_.ranksOfHost[static_cast<std::size_t>(p.host)]) {
      RankInfo& info = ranks_[static_cast<std::size_t>(r)];
      if (info.exited) continue;
      info.exited = true;
      for (int stream : {1, 2}) writeAll(stream, output_.finish(r, stream));
    }
    if (p.ranksLeft > 0) {
      p.ranksLeft = 0;
      fail(sawMagic ? "lost connection to the proxy on host " + host
                    : "could not start the proxy on host " + host + " (launcher '" + agent_[0] +
                          "' failed; see its message above)",
           1);
    }
    p.from->close();
    p.to.reset();
    return;
  }
  p.reader.feed(data, n);
  Frame frame;
  std::string error;
  for (;;) {
    auto result = p.reader.next(&frame, &error);
    if (result == FrameReader::Result::kNeedMore) break;
    if (result == FrameReader::Result::kError) {
      fail("host " + host + ": bad data from the proxy: " + error, 1);
      p.from->close();
      p.eof = true;
      if (p.agentPid > 0 && !p.agentReaped) kill(p.agentPid, SIGKILL);
      for (int r : placement_.ranksOfHost[static_cast<std::size_t>(p.host)])
        ranks_[static_cast<std::size_t>(r)].exited = true;
      p.ranksLeft = 0;
      return;
    }
    onProxyFrame(index, frame);
    if (p.from->closed()) return;
  }
}

void Job::onProxyFrame(int index, const Frame& f) {
  Proxy& p = proxies_[static_cast<std::size_t>(index)];
  const std::string& host = hosts_[static_cast<std::size_t>(p.host)].name;
  if (f.type == FrameType::kError) {
    fail("host " + host + ": " + f.payload, 1);
    return;
  }
  if (f.rank < 0 || f.rank >= np_ || ranks_[static_cast<std::size_t>(f.rank)].proxy != index) {
    fail("host " + host + ": proxy sent a frame for a rank it does not run", 1);
    return;
  }
  RankInfo& r = ranks_[static_cast<std::size_t>(f.rank)];
  std::int32_t value = 0;
  switch (f.type) {
    case FrameType::kStarted:
      if (decodeInt(f.payload, &value)) r.pid = value;
      break;
    case FrameType::kPmi: {
      std::string_view line = f.payload;
      if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
      if (!r.exited) pmi_->handleLine(f.rank, line);
      break;
    }
    case FrameType::kStdout:
    case FrameType::kStderr:
      onOutput(f.rank, f.type == FrameType::kStdout ? 1 : 2, f.payload.data(), f.payload.size());
      break;
    case FrameType::kExit:
      if (!decodeInt(f.payload, &value) || r.exited) break;
      --p.ranksLeft;
      onRankExit(f.rank, value);
      break;
    default:
      fail("host " + host + ": unexpected frame from the proxy", 1);
  }
}

void Job::onOutput(int rank, int stream, const char* data, std::size_t n) {
  std::string text =
      n == 0 ? output_.finish(rank, stream) : output_.feed(rank, stream, std::string_view(data, n));
  if (!text.empty()) writeAll(stream, text);
}

void Job::onRankExit(int rank, int status) {
  RankInfo& r = ranks_[static_cast<std::size_t>(rank)];
  r.exited = true;
  if (failing_) return;  // we are killing the job; later exits are our doing
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    fail(describe(rank) + " was killed by signal " + std::to_string(sig) + " (" + signalName(sig) +
             ")",
         128 + sig);
  } else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
    fail(describe(rank) + " exited with code " + std::to_string(WEXITSTATUS(status)),
         WEXITSTATUS(status));
  } else if (pmi_->initialized(rank) && !pmi_->finalized(rank)) {
    fail(describe(rank) + " exited without calling MPI_Finalize (PMI finalize)", 1);
  }
}

// A job started by MPI_Comm_spawn: the spawning process (a rank of the parent job) holds
// the other end of a socket on descriptor `fd` of CCMPI_PARENT_LIFELINE=fd,pid,rank. It
// writes one byte in MPI_Finalize; the socket closing without it means that process is
// gone before MPI_Finalize (killed, MPI_Abort, its job taken down), and our ranks would
// wait for their parents forever: the job ends, saying so.
void Job::watchParent() {
  const char* env = getenv("CCMPI_PARENT_LIFELINE");
  if (!env || !*env) return;
  int fd = -1;
  long pid = 0, rank = -1;
  const bool ok = sscanf(env, "%d,%ld,%ld", &fd, &pid, &rank) == 3 && fd >= 0 &&
                  fcntl(fd, F_SETFD, FD_CLOEXEC) == 0;
  const std::string who = "the process that spawned this job (rank " + std::to_string(rank) +
                          " of its parent job, pid " + std::to_string(pid) + ")";
  unsetenv("CCMPI_PARENT_LIFELINE");  // not for our ranks
  if (!ok) {
    say(std::string("ignoring CCMPI_PARENT_LIFELINE='") + env + "' (no such descriptor)");
    return;
  }
  loop_.watch(fd, POLLIN, [this, fd, who](short) {
    char c = 0;
    const ssize_t n = ::read(fd, &c, 1);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
    loop_.unwatch(fd);
    ::close(fd);
    if (n == 1) return;  // it finalized: our job goes on by itself
    fail(who + " ended without calling MPI_Finalize", 1);
  });
}

// A local rank started a job with MPI_Comm_spawn (its mpirun has process id `value`): like
// mpiexec elsewhere, this job ends only after that one did, and its output goes on being
// relayed until then (it writes to the rank's stdout and stderr). Should this job fail, the
// spawned mpirun goes with the rank's process group, and its lifeline (watchParent) ends
// it besides. Ranks on other hosts are not followed: their spawned jobs end with their
// lifelines, and are cut off when this job ends.
void Job::onSpawned(int rank, const std::string& value) {
  if (rank < 0 || rank >= np_ || ranks_[static_cast<std::size_t>(rank)].proxy >= 0) return;
  char* end = nullptr;
  const long pid = strtol(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || pid <= 1 || pid > INT_MAX) return;
  const int fd = static_cast<int>(syscall(SYS_pidfd_open, static_cast<pid_t>(pid), 0));
  if (fd < 0) return;  // gone already
  fcntl(fd, F_SETFD, FD_CLOEXEC);
  ++spawnedRunning_;
  loop_.watch(fd, POLLIN, [this, fd](short) {
    loop_.unwatch(fd);
    ::close(fd);
    --spawnedRunning_;
    checkDone();
  });
}

void Job::fail(const std::string& message, int exitCode) {
  if (failing_) return;
  failing_ = true;
  exitCode_ = exitCode;
  const bool others = anyRankAlive();
  say(message + (others ? "; killing the job" : ""));
  if (!others) return;
  if (local_) local_->terminate(kKillGrace);
  std::string frame;
  appendFrame(&frame, FrameType::kKill, -1, "");
  for (auto& p : proxies_)
    if (p.to && !p.eof) p.to->send(frame);
  for (auto& p : proxies_) p.early.clear();  // proxies yet to connect are turned away
  loop_.after(kHardDeadline, [this] { forceEnd(); });
}

void Job::forceEnd() {
  if (done_) return;
  if (local_) local_->killNow();
  for (auto& p : proxies_) {
    if (p.eof) continue;
    p.to.reset();
    if (p.agentPid > 0 && !p.agentReaped) kill(p.agentPid, SIGKILL);
  }
  if (!failing_) {
    failing_ = true;
    exitCode_ = 1;
  }
  done_ = true;
}

void Job::checkDone() {
  if (done_) return;
  if (anyRankAlive()) return;
  if (spawnedRunning_ > 0 && !failing_) return;  // a spawned job still runs (onSpawned)
  bool outputsOpen = local_ && !local_->outputsClosed();
  if (outputsOpen && !drainArmed_) {
    drainArmed_ = true;
    loop_.after(kOutputDrain, [this] {
      if (local_) local_->closeOutputs();
    });
  }
  if (outputsOpen) return;
  for (const auto& p : proxies_)
    if (!p.eof) return;  // the proxy still forwards output, or is about to exit
  done_ = true;
}

}  // namespace

int runMpirun(const std::vector<std::string>& args) {
  Options options;
  std::string error;
  if (!parseOptions(args, &options, &error)) {
    say(error);
    return kUsageError;
  }
  if (options.help) {
    writeAll(1, usageText());
    return 0;
  }
  if (options.version) {
    writeAll(1, std::string("mpirun (ccmpi) ") + CCMPI_VERSION_STRING + "\n");
    return 0;
  }
  Job job(std::move(options));
  return job.run();
}

}  // namespace ccmpi::launcher
