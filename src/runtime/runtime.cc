// MPI_Init / MPI_Finalize / MPI_Abort: bootstrap, progress engine, transport, objects.
#include "runtime/runtime.h"

#include <sys/epoll.h>
#include <sys/random.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <memory>

#include "base/error.h"
#include "base/log.h"
#include "base/siphash.h"
#include "base/tunables.h"
#include "bootstrap/pmi.h"
#include "comm/comm.h"
#include "comm/errhandler.h"
#include "datatype/datatype.h"
#include "op/op.h"
#include "p2p/engine.h"
#include "p2p/p2p.h"
#include "progress/engine.h"
#include "transport/tcp.h"

namespace ccmpi::runtime {
namespace {

Tunable<std::string> kIface(
    "CCMPI_IFACE", "",
    "network interface whose IPv4 address ranks listen on (mpirun --iface); "
    "empty = loopback for single-host jobs, else the first non-loopback "
    "interface");

struct Runtime {
  bool initialized = false;
  bool finalized = false;
  int rank = 0;
  int size = 1;
  std::string processorName;
  bootstrap::Pmi pmi;
  transport::TcpTransport tcp;
};

Runtime& rt() {
  static Runtime r;
  return r;
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
  return size;  // unknown: assume all ranks share this host (safe: no spinning when oversubscribed)
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

int init(int*, char***, int required, int* provided) {
  Runtime& r = rt();
  if (r.initialized) return setErrorCause(MPI_ERR_OTHER, "MPI is already initialized");
  if (r.finalized)
    return setErrorCause(MPI_ERR_OTHER, "MPI cannot be initialized again after MPI_Finalize");
  for (TunableBase* t : allTunables()) t->reload();

  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  r.processorName = host;

  if (int rc = r.pmi.init()) return setErrorCause(rc, "cannot reach the process manager (PMI)");
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
  cfg.limits.tagUb = p2p::kTagUb;
  cfg.limits.maxEager = p2p::eagerLimit();
  const std::string iface = kIface.get();
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
    if (r.tcp.init(cfg, p2p::sink()) != 0)
      return setErrorCause(MPI_ERR_OTHER, "cannot open a TCP listener on %s",
                           cfg.bindAddress.c_str());
    r.pmi.put("ccmpi.addr." + std::to_string(r.rank), r.tcp.address());
  }
  if (int rc = r.pmi.barrier()) return setErrorCause(rc, "PMI barrier failed during MPI_Init");
  if (secretHex.empty() && r.pmi.get("ccmpi.secret", &secretHex) != 0)
    return setErrorCause(MPI_ERR_OTHER, "cannot obtain the job secret");
  SipKey key;
  if (!parseSipKey(secretHex.c_str(), &key))
    return setErrorCause(MPI_ERR_OTHER, "CCMPI_JOB_SECRET is not 32 hex digits");
  cfg.secret = key;
  if (r.size > 1) {
    // The transport copies its config at init; install the secret now.
    r.tcp.setSecret(key, cfg.jobId);
  }
  p2p::init(&r.tcp, r.rank, r.size);

  if (provided) *provided = required < MPI_THREAD_SERIALIZED ? required : MPI_THREAD_SERIALIZED;
  r.initialized = true;
  return MPI_SUCCESS;
}

int finalize() {
  Runtime& r = rt();
  if (!r.initialized || r.finalized) return setErrorCause(MPI_ERR_OTHER, "MPI is not initialized");
  // MPI_COMM_SELF's attributes are deleted first, while communication still works (their
  // delete callbacks may communicate).
  comm::deleteSelfAttributes();
  // Everything this rank sent is on the wire before the others may close.
  const int64_t deadline = progress::Engine::nowNs() + 30'000'000'000LL;
  while (r.tcp.hasPendingOutput() && progress::Engine::nowNs() < deadline)
    progress::engine().poll(10);
  r.tcp.beginShutdown();
  if (r.pmi.fd() >= 0) progress::engine().remove(r.pmi.fd());
  r.pmi.barrier();
  r.tcp.shutdown();
  p2p::finalize();
  comm::finalizeComms();
  datatype::finalizeTypes();
  progress::engine().shutdown();
  r.pmi.finalize();
  r.finalized = true;
  log::setFatalHook(nullptr);
  return MPI_SUCCESS;
}

void abortJob(int code, const std::string& message) {
  Runtime& r = rt();
  r.pmi.abort(code, message);  // prints the message; a singleton just exits
}

}  // namespace ccmpi::runtime
