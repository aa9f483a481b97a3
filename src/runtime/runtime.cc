// MPI_Init / MPI_Finalize / MPI_Abort and MPI-4 sessions: bootstrap, progress engine,
// transport, objects.
//
// The infrastructure (PMI, epoll, TCP, p2p, predefined objects) is brought up once, by
// whichever comes first: MPI_Init (the world model) or MPI_Session_init. Each of them
// holds a reference. When the last one is released:
//   - if the world model was used, everything is torn down at once (as MPI_Finalize
//     always did; the PMI barrier in the teardown is met by every process);
//   - otherwise (sessions only) the infrastructure stays up, idle, so that a later
//     MPI_Session_init (or MPI_Init) can reuse it; an atexit handler (registered by the
//     first session) tears it down when the process exits normally, also when sessions
//     were never finalized. The PMI connection cannot be reopened, so bringing the
//     library up again after a teardown is refused.
#include "runtime/runtime.h"

#include <sys/epoll.h>
#include <sys/random.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>

#include "base/error.h"
#include "base/link.h"
#include "base/log.h"
#include "base/siphash.h"
#include "base/tunables.h"
#include "bootstrap/link_card.h"
#include "bootstrap/pmi.h"
#include "bootstrap/rail_card.h"
#include "coll/rules.h"
#include "comm/comm.h"
#include "comm/dynamic.h"
#include "comm/errhandler.h"
#include "datatype/datatype.h"
#include "op/op.h"
#include "p2p/engine.h"
#include "p2p/p2p.h"
#include "progress/engine.h"
#include "runtime/affinity.h"
#include "sched/sched.h"
#include "transport/link_finder.h"
#include "transport/link_probe.h"
#include "transport/mcast.h"
#include "transport/shm.h"
#include "transport/tcp.h"

namespace ccmpi::runtime {
namespace detail {
bool gActive = false;
}  // namespace detail

namespace {

Tunable<std::string> kIface(
    "CCMPI_IFACE", "",
    "network interface whose IPv4 address ranks listen on (mpirun --iface); "
    "empty = loopback for single-host jobs, else the first non-loopback "
    "interface. A comma-separated list names the rails (docs/multirail.md): the first "
    "carries all traffic, large messages are striped over all; with one name or none every "
    "interface that reaches another host's subnet is a rail");

Tunable<int> kRanksPerCore(
    "CCMPI_RANKS_PER_CORE", -1,
    "the job's ranks on its busiest machine per CPU of that machine (rounded down), as the "
    "collective rules see it; -1 = measured at MPI_Init (every rank reports its kernel's "
    "boot_id and online CPUs to mpirun). Must be the same on every rank");

// A rank bound by CCMPI_BIND=auto that another process keeps from its CPU (a bound rank
// cannot move away, and waits out the other's time slices: 1-2 ms per 64 KiB ping-pong
// instead of tens of us) lets go of its binding. Measured from /proc/thread-self/schedstat
// over windows of at least 100 ms, taken at the waits that hint at it
// (Engine::setStarvedHook): of the time the thread wanted a CPU (on one, or waiting on a
// run queue), more than a fifth spent waiting, in two windows in a row (each with at least
// 10 ms of such time: a rank that mostly sleeps, waiting for a starved peer, decides on
// what little it ran). A rank with a CPU of its own waits a few microseconds per second.
bool runQueueTimes(int64_t* onCpu, int64_t* waited) {
  FILE* f = fopen("/proc/thread-self/schedstat", "r");
  if (!f) return false;
  unsigned long long run = 0, wait = 0;
  const int got = fscanf(f, "%llu %llu", &run, &wait);
  fclose(f);
  *onCpu = static_cast<int64_t>(run);
  *waited = static_cast<int64_t>(wait);
  return got == 2;
}

void onStarved() {
  static int64_t windowStart = 0, cpuAtStart = 0, waitedAtStart = 0;
  static int strikes = 0;
  const int64_t now = progress::Engine::nowNs();
  if (windowStart != 0 && now - windowStart < 100000000) return;
  int64_t onCpu = 0, waited = 0;
  if (!runQueueTimes(&onCpu, &waited)) {
    progress::engine().setStarvedHook(nullptr);
    return;
  }
  if (windowStart != 0) {
    const int64_t w = waited - waitedAtStart, wanted = w + (onCpu - cpuAtStart);
    if (wanted < 10000000) return;  // too little to judge: the window goes on
    if (w * 5 > wanted)
      ++strikes;
    else
      strikes = 0;
  }
  windowStart = now;
  cpuAtStart = onCpu;
  waitedAtStart = waited;
  if (strikes < 2) return;
  progress::engine().setStarvedHook(nullptr);
  if (releaseBinding())
    log::info("let go of its CPU binding: another process keeps taking the CPU");
}

Tunable<int> kReportBindings(
    "CCMPI_REPORT_BINDINGS", 0,
    "1 = every rank prints the CPUs it may run on after binding at MPI_Init "
    "(mpirun --report-bindings)");

Tunable<double> kFinalizeNotice(
    "CCMPI_FINALIZE_NOTICE", 2,
    "seconds MPI_Finalize waits for the other ranks to call it before it says so on stderr, "
    "with what this rank still has in flight (output queued per peer, multicast messages "
    "not acknowledged)");
Tunable<double> kFinalizeTimeout(
    "CCMPI_FINALIZE_TIMEOUT", 2,
    "seconds MPI_Finalize keeps flushing output that is still queued once every rank has "
    "called it (sends no receive matched: an erroneous program); then it is dropped with a "
    "warning naming the peers");

long onlineCpus() {
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  return cpus < 1 ? 1 : cpus;
}

// This machine as PMI key ccmpi.cpu.<rank> holds it: "<kernel id>:<online CPUs>". Ranks
// in different network or UTS namespaces of one machine share its kernel, and so its
// boot_id and cores (an emulated cluster); without a boot_id, the host name stands in.
std::string machineCpuText() {
  std::string id;
  if (FILE* f = fopen("/proc/sys/kernel/random/boot_id", "r")) {
    char buf[64] = {};
    if (fgets(buf, sizeof buf, f)) id = buf;
    fclose(f);
  }
  while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
  if (id.empty()) {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    id = std::string("host_") + host;
  }
  for (char& ch : id)
    if (ch == ' ' || ch == '=' || ch == ':') ch = '_';  // PMI values end at a space
  return id + ":" + std::to_string(onlineCpus());
}

struct Runtime {
  bool initialized = false;  // world model: MPI_Init done
  bool finalized = false;    // world model: MPI_Finalize done
  bool up = false;           // infrastructure brought up and not torn down
  bool tornDown = false;     // infrastructure torn down (cannot come up again)
  bool exitHook = false;     // atexit teardown registered
  int users = 0;             // world model (while initialized) + live sessions
  int rank = 0;
  int size = 1;
  std::string processorName;
  bootstrap::Pmi pmi;
  transport::TcpTransport tcp;
  transport::ShmTransport shm;
  std::vector<int> hosts;  // worldHosts(), once gathered
  int hostCount = 0;
  transport::TcpConfig tcpConfig;  // for a listener opened later (myCard)
  int foreign = 0;                 // processes of other jobs (processCount)
};

Runtime& rt() {
  static Runtime r;
  return r;
}

// active()'s answer (runtime/active.h), kept beside rt() rather than read through its
// guard: every MPI call asks it.
void syncActive(const Runtime& r) {
  detail::gActive = r.up && r.users > 0;
}

// EOF on the PMI socket: the launcher is gone, so this rank must not linger.
class LauncherWatch final : public progress::EventHandler {
 public:
  void onEvent(uint32_t events) override {
    if (events & (EPOLLHUP | EPOLLRDHUP | EPOLLERR)) {
      log::error("the launcher (mpirun) went away; exiting");
      _exit(1);
    }
  }
};
LauncherWatch gLauncherWatch;
transport::ShmTransport* gShm = nullptr;  // the engine's fast path (shared memory)

void fatalHook(int code, const char* message) {
  abortJob(code, message);
}

std::string hexSecret() {
  SipKey k;
  if (getrandom(&k, sizeof k, 0) != sizeof k) {
    k.k0 = static_cast<uint64_t>(progress::Engine::nowNs());
    k.k1 = static_cast<uint64_t>(getpid()) * 0x9e3779b97f4a7c15ull;
  }
  char buf[33];
  formatSipKey(k, buf);
  return buf;
}

int localRanksHint(int size) {
  for (const char* name : {"CCMPI_LOCAL_SIZE", "MPI_LOCALNRANKS", "OMPI_COMM_WORLD_LOCAL_SIZE"}) {
    if (const char* v = getenv(name)) {
      const int n = atoi(v);
      if (n > 0) return n;
    }
  }
  // The process manager's word (PMIx, Slurm's task layout), else assume all ranks share
  // this host (safe: no spinning when oversubscribed).
  const int pmiLocal = rt().pmi.localSize();
  return pmiLocal > 0 ? pmiLocal : size;
}

}  // namespace

bool initialized() {
  return rt().initialized;
}
bool finalized() {
  return rt().finalized;
}
int worldRank() {
  return rt().rank;
}
int worldSize() {
  return rt().size;
}
const std::string& processorName() {
  return rt().processorName;
}
transport::TcpTransport& tcpTransport() {
  return rt().tcp;
}
transport::ShmTransport& shmTransport() {
  return rt().shm;
}

const std::vector<int>& launcherPlacement() {
  static const std::vector<int> hosts = [] {
    std::vector<int> out;
    const char* v = getenv("CCMPI_RANK_HOSTS");
    if (v) sched::parseHostMap(v, &out);
    return out;
  }();
  return hosts;
}

const std::vector<int>& worldHosts() {
  Runtime& r = rt();
  if (!r.hosts.empty()) return r.hosts;
  r.hosts.assign(static_cast<size_t>(r.size), 0);
  if (r.size > 1) {
    // Two ranks share a host when they share memory and the launcher placed them on one
    // host (a hostfile may name one machine twice, as tests of several hosts do).
    const std::vector<int>& placed = launcherPlacement();
    const bool usePlacement = static_cast<int>(placed.size()) == r.size;
    std::map<std::string, int> ids;
    for (int p = 0; p < r.size; ++p) {
      std::string key;
      if (p == r.rank)
        key = transport::shmHostKeyOf(p);
      else if (r.pmi.get("ccmpi.host." + std::to_string(p), &key) != 0 || key.empty())
        key = "rank." + std::to_string(p);  // unknown (another process manager's rank)
      if (usePlacement) key = std::to_string(placed[static_cast<size_t>(p)]) + "/" + key;
      r.hosts[static_cast<size_t>(p)] =
          ids.emplace(key, static_cast<int>(ids.size())).first->second;
    }
  }
  r.hostCount = 1 + *std::max_element(r.hosts.begin(), r.hosts.end());
  return r.hosts;
}

int worldHostCount() {
  worldHosts();
  return rt().hostCount;
}

namespace {

// The packet-train probe's socket (transport/link_probe.h), open from before the PMI
// barrier (a train may arrive before its receiver looks) until the probe is done.
transport::LinkProbe gLinkProbe;
constexpr int kProbePackets = 64;
constexpr int kProbeTrains = 3;
constexpr int64_t kProbeTimeoutNs = 2'000'000'000;

// Host leaders (the lowest rank of each host) measure the link with packet trains: each
// sends kProbeTrains to the next host's leader, one after the other, times those from the
// previous host's, and keeps the fastest. A train whose sender or receiver lost the CPU
// for a while arrives spread out (slower), never faster than the link, so the fastest is
// the link's (a single train measured 66.7 Mbit/s of a 100 Mbit/s cable once while the
// test suite loaded both cores). Their findings go through PMI like the first cards, and
// every rank combines the same ones.
std::string probeLink(Runtime& r, uint64_t jobId) {
  const std::vector<int>& hosts = worldHosts();
  const int H = worldHostCount();
  std::vector<int> leader(static_cast<size_t>(H), -1);
  for (int p = 0; p < r.size; ++p)
    if (leader[static_cast<size_t>(hosts[static_cast<size_t>(p)])] < 0)
      leader[static_cast<size_t>(hosts[static_cast<size_t>(p)])] = p;
  const int h = hosts[static_cast<size_t>(r.rank)];
  auto nonce = [jobId](int sender, int train) {
    return (jobId << 20) ^ (0x9e3779b97f4a7c15ull + static_cast<uint64_t>(sender) * kProbeTrains +
                            static_cast<uint64_t>(train));
  };
  if (leader[static_cast<size_t>(h)] == r.rank) {
    const int next = leader[static_cast<size_t>((h + 1) % H)];
    const int prev = leader[static_cast<size_t>((h + H - 1) % H)];
    std::string why, addr;
    double mbits = 0;
    if (!gLinkProbe.isOpen()) {
      why = "probe socket not open";
    } else if (r.pmi.get("ccmpi.addr." + std::to_string(next), &addr) != 0) {
      why = "no address of rank " + std::to_string(next);
    } else {
      for (int k = 0; k < kProbeTrains; ++k) {
        std::string w;
        if (!gLinkProbe.sendTrain(addr, nonce(r.rank, k), kProbePackets, &w)) {
          if (mbits <= 0) why = w;
          break;
        }
        int arrived = 0;
        const double m =
            gLinkProbe.receiveTrain(nonce(prev, k), kProbePackets, kProbeTimeoutNs, &w, &arrived);
        if (m > mbits) mbits = m;
        if (m <= 0 && mbits <= 0) why = w;
        if (arrived == 0) break;  // the previous host sends no trains: no use waiting again
      }
    }
    char how[160];
    if (mbits > 0)
      snprintf(how, sizeof how, "packet train from rank %d to rank %d", prev, r.rank);
    else
      snprintf(how, sizeof how, "no packet-train figure at rank %d (%s)", r.rank, why.c_str());
    r.pmi.put("ccmpi.linkprobe." + std::to_string(r.rank), bootstrap::formatLinkCard(mbits, how));
  }
  gLinkProbe.close();
  if (int rc = r.pmi.barrier()) {
    return bootstrap::formatLinkCard(
        0, "PMI barrier failed after the link probe (" + std::to_string(rc) + ")");
  }
  std::vector<std::string> cards;
  std::string card;
  for (int l : leader)
    if (r.pmi.get("ccmpi.linkprobe." + std::to_string(l), &card) == 0) cards.push_back(card);
  return bootstrap::combineLinkCards(cards);
}

// The job's link rate from every rank's card (bootstrap/link_card.h): combined by mpirun at
// the barrier, or here from the cards where the process manager does not (the same cards
// give the same answer on every rank). When no host found one, the probe measures it.
// The job's rails (coll::jobRails): combined by mpirun at the barrier, or here from every
// rank's card where the process manager does not. A rank with one rail knows the answer
// without reading them; every other rank reads its card among the rest.
void agreeOnRails(Runtime& r) {
  int rails = 1;
  std::string v;
  if (r.size > 1 && worldHostCount() > 1) {
    if (r.pmi.get(bootstrap::kJobRailsKey, &v) == 0 && !v.empty()) {
      rails = atoi(v.c_str());
    } else if (r.tcp.rails().size() > 1) {
      rails = static_cast<int>(r.tcp.rails().size());
      std::vector<transport::Rail> theirs;
      for (int p = 0; p < r.size && rails > 1; ++p)
        if (r.pmi.get(bootstrap::kRailCardKey + std::to_string(p), &v) != 0 ||
            !transport::parseRailCard(v, &theirs))
          rails = 1;
        else
          rails = std::min(rails, static_cast<int>(theirs.size()));
    }
  }
  coll::setJobRails(rails);
  log::debug("job rails: %d", coll::jobRails());
}

void agreeOnLink(Runtime& r, uint64_t jobId) {
  std::string job;
  if (r.pmi.get(bootstrap::kJobLinkKey, &job) != 0 || job.empty()) {
    std::vector<std::string> cards;
    std::string card;
    for (int p = 0; p < r.size; ++p)
      if (r.pmi.get(bootstrap::kLinkCardKey + std::to_string(p), &card) == 0) cards.push_back(card);
    job = bootstrap::combineLinkCards(cards);
  }
  double mbits = 0;
  std::string how;
  if (!bootstrap::parseLinkCard(job, &mbits, &how)) {
    mbits = 0;
    how = "malformed job link card '" + job + "'";
  }
  // Every rank takes the same decision: the same job card, the same host count.
  if (mbits <= 0 && transport::linkSourceEnabled("probe") && worldHostCount() > 1) {
    const std::string probed = probeLink(r, jobId);
    double pm = 0;
    std::string ph;
    if (bootstrap::parseLinkCard(probed, &pm, &ph)) {
      if (pm > 0) {
        mbits = pm;
        how = ph;
      } else {
        how += "; " + ph;
      }
    }
  }
  gLinkProbe.close();
  setFoundLink(mbits, how);
}

int bringUp() {
  Runtime& r = rt();
  if (r.up) return MPI_SUCCESS;
  if (r.tornDown)
    return setErrorCause(MPI_ERR_OTHER,
                         "the library was shut down by the last MPI_Finalize/"
                         "MPI_Session_finalize and cannot be initialized again in this process");
  for (TunableBase* t : allTunables()) t->reload();

  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  r.processorName = host;

  if (int rc = r.pmi.init()) return setErrorCause(rc, "%s", r.pmi.lastError().c_str());
  r.rank = r.pmi.rank();
  r.size = r.pmi.size();
  log::setRank(r.rank);
  log::setFatalHook(fatalHook);

  if (progress::engine().init() != 0) return setErrorCause(MPI_ERR_INTERN, "epoll_create failed");
  progress::engine().setLocalRanks(localRanksHint(r.size));
  if (r.pmi.fd() >= 0) progress::engine().add(r.pmi.fd(), EPOLLRDHUP, &gLauncherWatch);

  datatype::initPredefined();
  op::initPredefined();
  comm::initPredefinedErrhandlers();
  comm::initPredefined(r.rank, r.size);

  // The job secret: from the launcher, or made by rank 0 and shared through PMI.
  std::string secretHex;
  if (const char* s = getenv("CCMPI_JOB_SECRET")) secretHex = s;
  if (secretHex.empty()) {
    if (r.rank == 0) {
      secretHex = hexSecret();
      r.pmi.put("ccmpi.secret", secretHex);
    }
  }
  transport::TcpConfig cfg;
  cfg.myRank = r.rank;
  cfg.worldSize = r.size;
  cfg.limits.worldSize = r.size;
  // User tags end at kTagUb; partitioned messages use the tags above (p2p.h).
  cfg.limits.tagUb = p2p::kPartitionedTagBase + p2p::kTagUb;
  cfg.limits.maxEager = p2p::eagerLimit();
  const std::string ifaces = kIface.get();
  const std::string iface = ifaces.substr(0, ifaces.find(','));
  if (!iface.empty()) {
    cfg.bindAddress = transport::interfaceAddress(iface);
    if (cfg.bindAddress.empty())
      return setErrorCause(MPI_ERR_OTHER, "CCMPI_IFACE=%s: no such interface with an IPv4 address",
                           iface.c_str());
  } else if (localRanksHint(r.size) >= r.size) {
    cfg.bindAddress = "127.0.0.1";
  } else {
    cfg.bindAddress = transport::defaultAddress();
  }
  if (const char* j = getenv("CCMPI_JOB_ID")) cfg.jobId = strtoull(j, nullptr, 16);
  cfg.resolve = [](int peer, std::string* addr) {
    return rt().pmi.get("ccmpi.addr." + std::to_string(peer), addr);
  };
  if (r.size > 1) {
    std::string why;
    if (!transport::findRails(ifaces, cfg.bindAddress, &cfg.rails, &why))
      return setErrorCause(MPI_ERR_OTHER, "CCMPI_IFACE=%s: %s", ifaces.c_str(), why.c_str());
    cfg.resolveRails = [](int peer, std::string* card) {
      return rt().pmi.get(bootstrap::kRailCardKey + std::to_string(peer), card);
    };
  }
  if (r.size > 1) {
    if (r.tcp.init(cfg, p2p::sink()) != 0)
      return setErrorCause(MPI_ERR_OTHER, "cannot open a TCP listener on %s",
                           cfg.bindAddress.c_str());
    r.pmi.put("ccmpi.addr." + std::to_string(r.rank), r.tcp.address());
    r.pmi.put(bootstrap::kRailCardKey + std::to_string(r.rank), r.tcp.railCard());
    if (r.tcp.rails().size() > 1) log::debug("rails: %s", r.tcp.railCard().c_str());
    if (!linkMbitsDeclared()) {
      // This host's link rate, combined with every other host's after the barrier.
      transport::LinkFinding lf = transport::findLink(cfg.bindAddress);
      std::string why;
      if (!transport::linkSourcesValid(&why))
        return setErrorCause(MPI_ERR_OTHER, "%s", why.c_str());
      // Nothing found here: the probe may be needed (when no host finds anything either).
      if (lf.mbits <= 0 && transport::linkSourceEnabled("probe") &&
          cfg.bindAddress.rfind("127.", 0) != 0) {
        const std::string& a = r.tcp.address();
        const uint16_t port = static_cast<uint16_t>(atoi(a.c_str() + a.rfind(':') + 1));
        if (!gLinkProbe.open(cfg.bindAddress, port, &why)) lf.how += "; no probe: " + why;
      }
      r.pmi.put(bootstrap::kLinkCardKey + std::to_string(r.rank),
                bootstrap::formatLinkCard(lf.mbits, lf.how));
    }
  }
  // Shared memory with the ranks of this host: published before the barrier, connected
  // after it (transport/shm.h). Not when this rank is known to be alone on its host.
  std::string shmText;
  const bool shmOpen =
      r.size > 1 && localRanksHint(r.size) > 1 && r.shm.open(r.rank, r.size, &shmText);
  if (shmOpen) r.pmi.put("ccmpi.shm." + std::to_string(r.rank), shmText);
  if (r.size > 1)
    r.pmi.put("ccmpi.host." + std::to_string(r.rank), transport::shmHostKeyOf(r.rank));
  const int ranksPerCore = kRanksPerCore.get();
  if (ranksPerCore < 0 && r.size > 1)
    r.pmi.put("ccmpi.cpu." + std::to_string(r.rank), machineCpuText());
  if (int rc = r.pmi.barrier()) return setErrorCause(rc, "PMI barrier failed during MPI_Init");
  if (ranksPerCore >= 0) {
    coll::setJobRanksPerCore(ranksPerCore);
  } else if (r.size == 1) {
    coll::setJobRanksPerCore(static_cast<int>(1 / onlineCpus()));
  } else {
    // mpirun derives the figure at the barrier; another process manager does not (unknown).
    std::string v;
    if (r.pmi.get("ccmpi.ranks_per_core", &v) == 0 && !v.empty())
      coll::setJobRanksPerCore(atoi(v.c_str()));
  }
  progress::engine().setMachineRanksPerCore(coll::jobRanksPerCore());
  log::debug("ranks per core: %d (%s)", coll::jobRanksPerCore(),
             ranksPerCore >= 0 ? "CCMPI_RANKS_PER_CORE" : "measured; -1 = unknown");
  agreeOnRails(r);
  if (r.size > 1 && !linkMbitsDeclared()) agreeOnLink(r, cfg.jobId);
  log::debug("link: %g Mbit/s (%s)", linkMbits(), linkOrigin().c_str());
  if (secretHex.empty() && r.pmi.get("ccmpi.secret", &secretHex) != 0)
    return setErrorCause(MPI_ERR_OTHER, "cannot obtain the job secret");
  SipKey key;
  if (!parseSipKey(secretHex.c_str(), &key))
    return setErrorCause(MPI_ERR_OTHER, "CCMPI_JOB_SECRET is not 32 hex digits");
  cfg.secret = key;
  r.tcpConfig = cfg;
  if (r.size > 1) {
    // The transport copies its config at init; install the secret now.
    r.tcp.setSecret(key, cfg.jobId);
  }
  if (shmOpen) {
    std::vector<std::string> published(static_cast<size_t>(r.size));
    for (int p = 0; p < r.size; ++p) {
      if (p == r.rank) {
        published[static_cast<size_t>(p)] = shmText;
      } else if (r.pmi.get("ccmpi.shm." + std::to_string(p), &published[static_cast<size_t>(p)]) !=
                 0) {
        published[static_cast<size_t>(p)].clear();  // that rank has no shared memory
      }
    }
    if (int rc = r.shm.connect(published, key, cfg.limits, p2p::sink())) return rc;
    if (r.shm.localRanks() > 1) {
      progress::engine().setLocalRanks(r.shm.localRanks());
      progress::Engine::FastPath fp;
      gShm = &r.shm;  // the hot path skips rt()'s initialization guard
      fp.poll = [] { return gShm->poll(); };
      fp.prepareSleep = [] { return gShm->prepareSleep(); };
      fp.endSleep = [] { gShm->endSleep(); };
      progress::engine().setFastPath(fp);
    }
  }
  {
    // CPU binding (runtime/affinity.h), by the rank's place among those of its host.
    const std::vector<int>& local = r.shm.local();
    const auto at = std::find(local.begin(), local.end(), r.rank);
    const int index = at == local.end() ? 0 : static_cast<int>(at - local.begin());
    const int count = at == local.end() ? 1 : static_cast<int>(local.size());
    std::string why;
    const int cpu = bindToCore(index, count, &why);
    if (cpu == -2) return setErrorCause(MPI_ERR_OTHER, "%s", why.c_str());
    if (cpu >= 0)
      log::debug("bound to CPU %d (local rank %d of %d)", cpu, index, count);
    else
      log::debug("not bound to CPUs: %s", why.c_str());
    if (kReportBindings.get()) {
      // mpirun --report-bindings: one line per rank, written at once.
      const std::string line = "ccmpi: rank " + std::to_string(r.rank) + " on " + r.processorName +
                               ": " +
                               (cpu >= 0 ? "bound to CPUs " : "not bound (" + why + "), on CPUs ") +
                               describeAffinity() + "\n";
      ssize_t ignored = ::write(2, line.data(), line.size());
      (void)ignored;
    }
  }
  if (int rc = p2p::init(&r.tcp, &r.shm, r.rank, r.size)) return rc;
  if (r.size > 1)
    transport::mcast().init(r.rank, r.size, key, cfg.jobId, cfg.bindAddress, &r.tcp,
                            r.shm.localRanks() == r.size, r.tcp.rails());
  r.up = true;
  syncActive(r);
  // From here on (not while MPI_Init still waits for the others).
  if (bound()) progress::engine().setStarvedHook(onStarved);
  return MPI_SUCCESS;
}

// What this rank's MPI_Finalize still has in flight, for its diagnostics.
std::string describePending(Runtime& r) {
  std::string out;
  if (std::string t = r.tcp.pendingOutput(); !t.empty()) out += "TCP output queued for " + t;
  if (std::string s = r.shm.pendingOutput(); !s.empty())
    out += (out.empty() ? "" : "; ") + std::string("shared-memory output queued for ") + s;
  if (size_t n = transport::mcast().releasedPending())
    out += (out.empty() ? "" : "; ") + std::to_string(n) +
           " multicast messages sent early, still unacknowledged (context/seq/root/sub: " +
           transport::mcast().releasedKeys() + ")";
  return out.empty() ? "nothing of this rank's is in flight" : out;
}

void tearDown() {
  Runtime& r = rt();
  if (!r.up) return;
  r.up = false;
  syncActive(r);
  r.tornDown = true;
  // The others may still need this rank until they reach MPI_Finalize too: its queued
  // output, repairs of the multicast messages it completed early (the transport keeps a
  // copy until every receiver acknowledged), the answer to a cancelled send asking whether
  // its message is still unmatched here. So the network keeps going during the finalize
  // barrier. Once every rank is past it, every receive of a correct program has completed:
  // what is still queued (an unmatched send, an acknowledgement nobody waits for any more)
  // is needed by nobody, and is flushed for CCMPI_FINALIZE_TIMEOUT at most. An erroneous
  // program (roots that differ between ranks, say) thus does not hold up the exit.
  r.tcp.beginShutdown();
  r.shm.beginShutdown();
  if (r.pmi.fd() >= 0) progress::engine().remove(r.pmi.fd());
  const int64_t start = progress::Engine::nowNs();
  const int64_t notice = start + static_cast<int64_t>(std::max(0.0, kFinalizeNotice.get()) * 1e9);
  bool noticed = false;
  r.pmi.barrier([&] {
    progress::engine().poll(2);
    if (noticed || progress::Engine::nowNs() < notice) return;
    noticed = true;
    log::notice("MPI_Finalize: waiting %.0f s so far for other ranks to call MPI_Finalize; %s",
                static_cast<double>(progress::Engine::nowNs() - start) / 1e9,
                describePending(r).c_str());
  });
  if (r.tcp.hasPendingOutput() || r.shm.hasPendingOutput()) {
    const double limit = std::max(0.0, kFinalizeTimeout.get());
    const int64_t deadline = progress::Engine::nowNs() + static_cast<int64_t>(limit * 1e9);
    while ((r.tcp.hasPendingOutput() || r.shm.hasPendingOutput()) &&
           progress::Engine::nowNs() < deadline)
      progress::engine().poll(10);
    if (r.tcp.hasPendingOutput() || r.shm.hasPendingOutput())
      log::notice(
          "MPI_Finalize: every rank called MPI_Finalize, but output no receive matched is "
          "still unsent after %g s (CCMPI_FINALIZE_TIMEOUT); dropping it: %s",
          limit, describePending(r).c_str());
  }
  transport::mcast().shutdown();
  r.tcp.shutdown(0);
  r.shm.shutdown(0);
  progress::engine().setFastPath({});
  p2p::finalize();
  comm::finalizeComms();
  datatype::finalizeTypes();
  progress::engine().shutdown();
  r.pmi.finalize();
  // Last: the jobs this process spawned see it end normally only when nothing is left
  // that could still fail.
  comm::releaseSpawned();
  log::setFatalHook(nullptr);
}

// At normal process exit: tear down what sessions left up (idle, or sessions the program
// never finalized), unless the world model is still in use (an exit between MPI_Init and
// MPI_Finalize is an error the launcher handles; a PMI barrier here could hang).
void exitTearDown() {
  Runtime& r = rt();
  if (r.up && (!r.initialized || r.finalized)) tearDown();
}

// Drops one reference; the last one tears down or leaves the library idle (see top).
void release() {
  Runtime& r = rt();
  --r.users;
  syncActive(r);
  if (r.users > 0) return;
  if (r.initialized) tearDown();
}

int cappedThreadLevel(int required) {
  return required < MPI_THREAD_SERIALIZED ? required : MPI_THREAD_SERIALIZED;
}

}  // namespace

int pmiPut(const std::string& key, const std::string& value) {
  return rt().pmi.put(key, value);
}

int processCount() {
  return rt().size + rt().foreign;
}

uint64_t jobIdentity() {
  const Runtime& r = rt();
  return transport::TcpTransport::jobIdentity(r.tcpConfig.secret, r.tcpConfig.jobId);
}

int myCard(ProcessCard* card) {
  Runtime& r = rt();
  if (!r.tcp.listening()) {
    // A one-rank job has no listener until another job needs to reach it.
    if (r.tcp.init(r.tcpConfig, p2p::sink()) != 0)
      return setErrorCause(MPI_ERR_OTHER, "cannot open a TCP listener on %s",
                           r.tcpConfig.bindAddress.c_str());
    r.tcp.setSecret(r.tcpConfig.secret, r.tcpConfig.jobId);
  }
  *card = ProcessCard{};
  card->job = jobIdentity();
  card->rank = r.rank;
  card->key[0] = r.tcpConfig.secret.k0;
  card->key[1] = r.tcpConfig.secret.k1;
  const std::string& a = r.tcp.address();
  if (a.size() >= sizeof card->addr)
    return setErrorCause(MPI_ERR_INTERN, "listener address '%s' is too long", a.c_str());
  memcpy(card->addr, a.data(), a.size());
  return MPI_SUCCESS;
}

int addProcess(const ProcessCard& card, int* index) {
  Runtime& r = rt();
  if (card.addr[sizeof card.addr - 1] != 0 || card.rank < 0 || card.rank > INT32_MAX)
    return setErrorCause(MPI_ERR_INTERN, "malformed process description (rank %lld)",
                         static_cast<long long>(card.rank));
  const int rank = static_cast<int>(card.rank);
  if (card.job == jobIdentity()) {
    if (rank >= r.size)
      return setErrorCause(MPI_ERR_INTERN, "rank %d of this job does not exist (size %d)", rank,
                           r.size);
    *index = rank;
    return MPI_SUCCESS;
  }
  const int known = r.tcp.foreignIndex(card.job, rank);
  if (known >= 0) {
    *index = known;
    return MPI_SUCCESS;
  }
  if (!r.tcp.listening()) {
    ProcessCard mine;
    if (int rc = myCard(&mine)) return rc;
  }
  *index = r.size + r.foreign++;
  r.tcp.addForeign(*index, card.job, rank, SipKey{card.key[0], card.key[1]}, card.addr);
  p2p::growPeers(processCount());
  log::debug("process %d is rank %d of job %llx at %s", *index, rank,
             static_cast<unsigned long long>(card.job), card.addr);
  return MPI_SUCCESS;
}

int init(int*, char***, int required, int* provided) {
  Runtime& r = rt();
  if (r.initialized) return setErrorCause(MPI_ERR_OTHER, "MPI is already initialized");
  if (r.finalized)
    return setErrorCause(MPI_ERR_OTHER, "MPI cannot be initialized again after MPI_Finalize");
  if (int rc = bringUp()) return rc;
  ++r.users;
  syncActive(r);
  if (provided) *provided = cappedThreadLevel(required);
  r.initialized = true;
  return MPI_SUCCESS;
}

int finalize() {
  Runtime& r = rt();
  if (!r.initialized || r.finalized) return setErrorCause(MPI_ERR_OTHER, "MPI is not initialized");
  // MPI_COMM_SELF's attributes are deleted first, while communication still works (their
  // delete callbacks may communicate).
  comm::deleteSelfAttributes();
  r.finalized = true;
  release();
  return MPI_SUCCESS;
}

int sessionInit(int required, int* provided) {
  Runtime& r = rt();
  if (int rc = bringUp()) return rc;
  ++r.users;
  syncActive(r);
  if (!r.exitHook) {
    r.exitHook = true;
    atexit(exitTearDown);
  }
  if (provided) *provided = cappedThreadLevel(required);
  return MPI_SUCCESS;
}

void sessionFinalize() {
  if (rt().users > 0) release();
}

void abortJob(int code, const std::string& message) {
  Runtime& r = rt();
  r.pmi.abort(code, message);  // prints the message; a singleton just exits
}

}  // namespace ccmpi::runtime
