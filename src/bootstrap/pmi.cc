// PMI client over an inherited socket (PMI_FD), a TCP port (PMI_PORT), PMIx, or nothing
// (singleton). PMI-1 details follow MPICH's simple_pmi as served by Hydra and Slurm: the
// init line must list pmi_version before pmi_subversion, get answers rc=-1 (Hydra) or
// rc=1 (Slurm) for a missing key, and barrier_in is answered by barrier_out once every
// process of the job has entered.
#include "bootstrap/pmi.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <mpi.h>

#include "base/error.h"
#include "bootstrap/pmi_wire.h"
#include "bootstrap/pmix_client.h"
#include "bootstrap/slurm_env.h"

namespace ccmpi::bootstrap {
namespace {

// Reads an optional integer environment variable. Returns false if set but malformed.
bool envInt(const char* name, int* value, bool* present) {
  const char* s = getenv(name);
  *present = s != nullptr;
  if (!s) return true;
  return parsePmiInt(s, value);
}

long envLong(const char* name) {
  const char* s = getenv(name);
  if (!s || !*s) return 0;
  char* end = nullptr;
  const long v = strtol(s, &end, 10);
  return *end == '\0' ? v : 0;
}

// This node's task count in a Slurm step (SLURM_STEP_TASKS_PER_NODE at SLURM_NODEID).
int slurmLocalTasks() {
  const char* layout = getenv("SLURM_STEP_TASKS_PER_NODE");
  const char* node = getenv("SLURM_NODEID");
  if (!layout || !node) return -1;
  std::vector<int> counts;
  std::string error;
  const long index = envLong("SLURM_NODEID");
  if (!parseSlurmTaskCounts(layout, &counts, &error) || index < 0 ||
      index >= static_cast<long>(counts.size()) || counts[static_cast<std::size_t>(index)] < 1)
    return -1;
  return counts[static_cast<std::size_t>(index)];
}

// A key's publisher under PMIx: the number after the last '.', else rank 0.
int pmixOwner(const std::string& key) {
  const std::size_t dot = key.rfind('.');
  int owner = 0;
  if (dot == std::string::npos || !parsePmiInt(std::string_view(key).substr(dot + 1), &owner) ||
      owner < 0)
    return 0;
  return owner;
}

// Marker of a value stored in parts ("%Z<parts>"; escapePmiValue never writes "%Z").
constexpr std::string_view kPartsMarker = "%Z";

}  // namespace

bool pmixSupported() {
#ifdef CCMPI_HAVE_PMIX
  return true;
#else
  return false;
#endif
}

std::string launchedJobWithoutPmi() {
  const std::string use = pmixSupported() ? "srun --mpi=pmi2 or --mpi=pmix"
                                          : "srun --mpi=pmi2 (this ccmpi has no PMIx)";
  // A task of an srun step (a batch script or an allocation's shell has no SLURM_STEP_ID).
  long steps = envLong("SLURM_STEP_NUM_TASKS");
  if (steps <= 0 && getenv("SLURM_STEP_ID") && getenv("SLURM_PROCID"))
    steps = envLong("SLURM_NTASKS");
  if (steps > 1) {
    const char* mpi = getenv("SLURM_MPI_TYPE");
    return "this process is task " + std::to_string(envLong("SLURM_PROCID")) + " of " +
           std::to_string(steps) + " started by Slurm's srun (--mpi=" + (mpi ? mpi : "none") +
           "), which gives it no PMI ccmpi can use, so it would run alone as rank 0 of 1; "
           "launch with " +
           use + ", or with ccmpi's mpirun inside the allocation";
  }
  if (getenv("PMIX_RANK") || getenv("PMIX_NAMESPACE"))
    return std::string("this process was started by a PMIx launcher (PMIX_RANK is set) but ") +
           (pmixSupported() ? "the PMIx connection failed"
                            : "this ccmpi was built without PMIx support (libpmix-dev)") +
           "; under Slurm launch with srun --mpi=pmi2, else use ccmpi's mpirun";
  if (envLong("OMPI_COMM_WORLD_SIZE") > 1)
    return "this process is one of " + std::to_string(envLong("OMPI_COMM_WORLD_SIZE")) +
           " started by Open MPI's mpirun (OMPI_COMM_WORLD_SIZE), which ccmpi cannot talk to, so "
           "it would run alone as rank 0 of 1; use ccmpi's mpirun (or mpiexec)";
  if (envLong("PMI_SIZE") > 1)
    return "PMI_SIZE=" + std::to_string(envLong("PMI_SIZE")) +
           " says this process is one of several, but neither PMI_FD nor PMI_PORT tells how to "
           "reach the process manager, so it would run alone as rank 0 of 1";
  return "";
}

Pmi::Pmi() = default;

Pmi::~Pmi() {
  if (fd_ >= 0) ::close(fd_);
}

const char* Pmi::kind() const {
  if (singleton_) return "singleton";
  return pmix_ ? "PMIx" : "PMI-1";
}

int Pmi::fail(int errClass, const std::string& cause) {
  lastError_ = "PMI: " + cause;
  return setErrorCause(errClass, "%s", lastError_.c_str());
}

int Pmi::init() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (initialized_) return MPI_SUCCESS;
  readBuffer_.clear();

  bool present = false;
  int pmiFd = -1;
  if (!envInt("PMI_FD", &pmiFd, &present) || (present && pmiFd < 0))
    return fail(MPI_ERR_OTHER, "PMI_FD='" + std::string(getenv("PMI_FD")) + "' is not a valid fd");
  bool rankSizeKnown = false;
  if (present) {
    if (fcntl(pmiFd, F_GETFD) < 0)
      return fail(MPI_ERR_OTHER, "PMI_FD=" + std::to_string(pmiFd) + " is not an open descriptor");
    fd_ = pmiFd;
  } else if (const char* port = getenv("PMI_PORT")) {
    int rc = connectPort(port);
    if (rc != MPI_SUCCESS) return rc;
    int id = 0;
    if (!envInt("PMI_ID", &id, &present)) return fail(MPI_ERR_OTHER, "PMI_ID is not an integer");
    if (present) {
      rc = initackHandshake(id);
      if (rc != MPI_SUCCESS) {
        ::close(fd_);
        fd_ = -1;
        return rc;
      }
      rankSizeKnown = true;
    }
  } else if (getenv("PMIX_RANK") || getenv("PMIX_NAMESPACE")) {
    if (!pmixSupported()) return fail(MPI_ERR_OTHER, launchedJobWithoutPmi());
    return initPmix();
  } else {
    const std::string launched = launchedJobWithoutPmi();
    if (!launched.empty()) return fail(MPI_ERR_OTHER, launched);
    // No process manager: a job of one with a private key/value store.
    singleton_ = true;
    rank_ = 0;
    size_ = 1;
    appnum_ = 0;
    universeSize_ = 1;
    keyLenMax_ = kPmiKeyLenMax;
    valLenMax_ = kPmiValLenMax;
    kvsName_ = "singleton_kvs_" + std::to_string(getpid());
    localKvs_.clear();
    initialized_ = true;
    return MPI_SUCCESS;
  }
  fcntl(fd_, F_SETFD, FD_CLOEXEC);

  if (!rankSizeKnown) {
    int value = 0;
    size_ = 1;
    rank_ = 0;
    if (!envInt("PMI_SIZE", &value, &present)) return fail(MPI_ERR_OTHER, "PMI_SIZE is malformed");
    if (present) size_ = value;
    if (!envInt("PMI_RANK", &value, &present)) return fail(MPI_ERR_OTHER, "PMI_RANK is malformed");
    if (present) rank_ = value;
  }
  if (size_ < 1 || rank_ < 0 || rank_ >= size_)
    return fail(MPI_ERR_OTHER, "inconsistent rank " + std::to_string(rank_) + " / size " +
                                   std::to_string(size_) + " from the process manager");

  localSize_ = slurmLocalTasks();
  int rc = handshake();
  if (rc != MPI_SUCCESS) {
    // Leave an inherited PMI_FD open (it is not ours to close); close our own sockets.
    if (!getenv("PMI_FD")) ::close(fd_);
    fd_ = -1;
    return rc;
  }
  singleton_ = false;
  initialized_ = true;
  return MPI_SUCCESS;
}

int Pmi::initPmix() {
  auto client = std::make_unique<PmixClient>();
  std::string error = client->init();
  if (!error.empty())
    return fail(MPI_ERR_OTHER, "PMIX_RANK is set but the PMIx server cannot be reached (" + error +
                                   "); under Slurm, srun --mpi=pmi2 also works");
  rank_ = client->rank();
  size_ = client->size();
  appnum_ = client->appnum();
  universeSize_ = client->universeSize();
  localSize_ = client->localSize();
  kvsName_ = client->nspace();
  keyLenMax_ = kPmiKeyLenMax;
  valLenMax_ = kPmiValLenMax;
  pmix_ = std::move(client);
  singleton_ = false;
  initialized_ = true;
  return MPI_SUCCESS;
}

int Pmi::connectPort(const char* hostPort) {
  std::string s(hostPort);
  std::size_t colon = s.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == s.size())
    return fail(MPI_ERR_OTHER, "PMI_PORT='" + s + "' is not host:port");
  std::string host = s.substr(0, colon), port = s.substr(colon + 1);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);

  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* list = nullptr;
  int gai = getaddrinfo(host.c_str(), port.c_str(), &hints, &list);
  if (gai != 0)
    return fail(MPI_ERR_OTHER, "cannot resolve PMI_PORT host '" + host + "': " + gai_strerror(gai));
  int lastErrno = 0;
  for (addrinfo* ai = list; ai; ai = ai->ai_next) {
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      lastErrno = errno;
      continue;
    }
    int r;
    do r = connect(fd, ai->ai_addr, ai->ai_addrlen);
    while (r < 0 && errno == EINTR);
    if (r == 0) {
      int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      fd_ = fd;
      freeaddrinfo(list);
      return MPI_SUCCESS;
    }
    lastErrno = errno;
    ::close(fd);
  }
  freeaddrinfo(list);
  return fail(MPI_ERR_OTHER, "cannot connect to PMI_PORT " + s + ": " + strerror(lastErrno));
}

// simple_pmi's port handshake: -> cmd=initack pmiid=<id>; <- cmd=initack, then
// cmd=set size=<n>, cmd=set rank=<r>, cmd=set debug=<d> (each on its own line).
int Pmi::initackHandshake(int id) {
  int rc = sendLine(formatPmiLine("initack", {{"pmiid", std::to_string(id)}}));
  if (rc != MPI_SUCCESS) return rc;
  const char* expectKeys[] = {nullptr, "size", "rank", "debug"};
  for (const char* key : expectKeys) {
    std::string line;
    rc = readLine(&line);
    if (rc != MPI_SUCCESS) return rc;
    PmiMessage msg;
    std::string error;
    if (!parsePmiLine(line, &msg, &error))
      return fail(MPI_ERR_OTHER, "bad initack handshake line: " + error);
    if (!key) {
      if (msg.cmd != "initack") return fail(MPI_ERR_OTHER, "expected cmd=initack, got " + line);
      continue;
    }
    const std::string* v = msg.find(key);
    int value = 0;
    if (msg.cmd != "set" || !v || !parsePmiInt(*v, &value))
      return fail(MPI_ERR_OTHER, std::string("expected cmd=set ") + key + "=<n>, got " + line);
    if (std::strcmp(key, "size") == 0) size_ = value;
    if (std::strcmp(key, "rank") == 0) rank_ = value;
  }
  return MPI_SUCCESS;
}

int Pmi::handshake() {
  PmiMessage reply;
  int rc = transact(formatPmiLine("init", {{"pmi_version", "1"}, {"pmi_subversion", "1"}}),
                    "response_to_init", &reply);
  if (rc != MPI_SUCCESS) return rc;
  const std::string* r = reply.find("rc");
  if (r && *r != "0") {
    const std::string* ver = reply.find("pmi_version");
    return fail(MPI_ERR_OTHER, "process manager refused PMI version 1.1 (it speaks " +
                                   (ver ? *ver : std::string("?")) + ")");
  }

  rc = transact(formatPmiLine("get_maxes"), "maxes", &reply);
  if (rc != MPI_SUCCESS) return rc;
  const std::string* kv = reply.find("keylen_max");
  const std::string* vv = reply.find("vallen_max");
  if (!kv || !vv || !parsePmiInt(*kv, &keyLenMax_) || !parsePmiInt(*vv, &valLenMax_) ||
      keyLenMax_ < 2 || valLenMax_ < 2)
    return fail(MPI_ERR_OTHER, "malformed cmd=maxes reply");

  rc = transact(formatPmiLine("get_appnum"), "appnum", &reply);
  if (rc != MPI_SUCCESS) return rc;
  const std::string* a = reply.find("appnum");
  if (!a || !parsePmiInt(*a, &appnum_)) return fail(MPI_ERR_OTHER, "malformed cmd=appnum reply");

  rc = transact(formatPmiLine("get_my_kvsname"), "my_kvsname", &reply);
  if (rc != MPI_SUCCESS) return rc;
  const std::string* k = reply.find("kvsname");
  if (!k || k->empty()) return fail(MPI_ERR_OTHER, "malformed cmd=my_kvsname reply");
  kvsName_ = *k;

  rc = transact(formatPmiLine("get_universe_size"), "universe_size", &reply);
  if (rc != MPI_SUCCESS) return rc;
  const std::string* u = reply.find("size");
  if (!u || !parsePmiInt(*u, &universeSize_))
    return fail(MPI_ERR_OTHER, "malformed cmd=universe_size reply");
  return MPI_SUCCESS;
}

int Pmi::sendLine(const std::string& line) {
  std::size_t done = 0;
  bool useWrite = false;
  while (done < line.size()) {
    ssize_t n = useWrite ? ::write(fd_, line.data() + done, line.size() - done)
                         : ::send(fd_, line.data() + done, line.size() - done, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == ENOTSOCK && !useWrite) {
        useWrite = true;
        continue;
      }
      return fail(MPI_ERR_OTHER,
                  std::string("write to the process manager failed: ") + strerror(errno));
    }
    done += static_cast<std::size_t>(n);
  }
  return MPI_SUCCESS;
}

int Pmi::readLine(std::string* line) {
  for (;;) {
    std::size_t nl = readBuffer_.find('\n');
    if (nl != std::string::npos) {
      line->assign(readBuffer_, 0, nl);
      readBuffer_.erase(0, nl + 1);
      return MPI_SUCCESS;
    }
    if (readBuffer_.size() > kPmiMaxLine)
      return fail(MPI_ERR_OTHER, "over-long line from the process manager");
    char buf[4096];
    ssize_t n = ::read(fd_, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail(MPI_ERR_OTHER,
                  std::string("read from the process manager failed: ") + strerror(errno));
    }
    if (n == 0) return fail(MPI_ERR_OTHER, "the process manager closed the connection");
    readBuffer_.append(buf, static_cast<std::size_t>(n));
  }
}

int Pmi::transact(const std::string& request, const char* expected, PmiMessage* reply) {
  int rc = sendLine(request);
  if (rc != MPI_SUCCESS) return rc;
  return readReply(expected, reply);
}

int Pmi::readReply(const char* expected, PmiMessage* reply) {
  std::string line;
  int rc = readLine(&line);
  if (rc != MPI_SUCCESS) return rc;
  std::string error;
  if (!parsePmiLine(line, reply, &error))
    return fail(MPI_ERR_OTHER, "malformed reply from the process manager: " + error);
  if (reply->cmd != expected)
    return fail(MPI_ERR_OTHER, std::string("expected cmd=") + expected + ", got '" + line + "'");
  return MPI_SUCCESS;
}

int Pmi::put(const std::string& key, const std::string& value) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!initialized_) return fail(MPI_ERR_OTHER, "put before init or after finalize");
  if (!isPmiKey(key, static_cast<std::size_t>(keyLenMax_ - 1)))
    return fail(MPI_ERR_ARG, "invalid key '" + key.substr(0, 80) + "' (printable, no space, '=' " +
                                 "or '%', at most " + std::to_string(keyLenMax_ - 1) + " bytes)");
  std::string wire = escapePmiValue(value);
  // The limit is on the value itself; escaped, it may take more room, in parts.
  if (value.size() > static_cast<std::size_t>(valLenMax_ - 1))
    return fail(MPI_ERR_ARG, "value for key '" + key + "' too long (" +
                                 std::to_string(value.size()) + " bytes, limit " +
                                 std::to_string(valLenMax_ - 1) + ")");
  if (singleton_) {
    localKvs_[key] = value;
    return MPI_SUCCESS;
  }
  if (pmix_) {
    std::string error = pmix_->put(key, value);
    return error.empty() ? MPI_SUCCESS : fail(MPI_ERR_OTHER, error);
  }
  const std::size_t fixed =
      formatPmiLine("put", {{"kvsname", kvsName_}, {"key", key}, {"value", ""}}).size();
  if (fixed + wire.size() <= kPmiRequestMax) return putWire(key, wire);
  // Too long for one request line: store parts under <key>#1.. and the count under <key>.
  const auto tooLong = [&] {
    return fail(MPI_ERR_ARG, "key '" + key + "' too long for a value of " +
                                 std::to_string(wire.size()) + " bytes");
  };
  if (fixed + 8 >= kPmiRequestMax) return tooLong();
  const std::size_t room = kPmiRequestMax - fixed - 8;  // "#<parts>" in the key
  const std::size_t parts = (wire.size() + room - 1) / room;
  if (!isPmiKey(key + "#" + std::to_string(parts), static_cast<std::size_t>(keyLenMax_ - 1)))
    return tooLong();
  for (std::size_t i = 0; i < parts; ++i)
    if (int rc = putWire(key + "#" + std::to_string(i + 1), wire.substr(i * room, room))) return rc;
  return putWire(key, std::string(kPartsMarker) + std::to_string(parts));
}

int Pmi::putWire(const std::string& key, const std::string& wire) {
  PmiMessage reply;
  int rc = transact(formatPmiLine("put", {{"kvsname", kvsName_}, {"key", key}, {"value", wire}}),
                    "put_result", &reply);
  if (rc != MPI_SUCCESS) return rc;
  const std::string* r = reply.find("rc");
  if (r && *r != "0") {
    const std::string* msg = reply.find("msg");
    return fail(MPI_ERR_OTHER, "put of key '" + key + "' refused: " + (msg ? *msg : "?"));
  }
  return MPI_SUCCESS;
}

int Pmi::getWire(const std::string& key, std::string* wire, bool* found) {
  PmiMessage reply;
  int rc =
      transact(formatPmiLine("get", {{"kvsname", kvsName_}, {"key", key}}), "get_result", &reply);
  if (rc != MPI_SUCCESS) return rc;
  const std::string* r = reply.find("rc");
  *found = r && *r == "0";
  if (!*found) return MPI_SUCCESS;
  const std::string* v = reply.find("value");
  if (!v) return fail(MPI_ERR_OTHER, "get_result without value for key '" + key + "'");
  *wire = *v;
  return MPI_SUCCESS;
}

int Pmi::get(const std::string& key, std::string* value) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!initialized_) return fail(MPI_ERR_OTHER, "get before init or after finalize");
  if (!isPmiKey(key, static_cast<std::size_t>(keyLenMax_ - 1)))
    return fail(MPI_ERR_ARG, "invalid key '" + key.substr(0, 80) + "'");
  if (singleton_) {
    auto it = localKvs_.find(key);
    if (it == localKvs_.end()) return fail(MPI_ERR_INFO_NOKEY, "no key '" + key + "'");
    *value = it->second;
    return MPI_SUCCESS;
  }
  bool found = false;
  if (pmix_) {
    std::string error = pmix_->get(pmixOwner(key), key, value, &found);
    if (!error.empty()) return fail(MPI_ERR_OTHER, error);
    return found ? MPI_SUCCESS : fail(MPI_ERR_INFO_NOKEY, "no key '" + key + "'");
  }
  std::string wire;
  if (int rc = getWire(key, &wire, &found)) return rc;
  if (!found) return fail(MPI_ERR_INFO_NOKEY, "no key '" + key + "'");
  int parts = 0;
  if (wire.compare(0, kPartsMarker.size(), kPartsMarker) == 0 &&
      parsePmiInt(std::string_view(wire).substr(kPartsMarker.size()), &parts) && parts > 0) {
    wire.clear();
    for (int i = 1; i <= parts; ++i) {
      std::string part;
      if (int rc = getWire(key + "#" + std::to_string(i), &part, &found)) return rc;
      if (!found)
        return fail(MPI_ERR_OTHER,
                    "part " + std::to_string(i) + " of key '" + key + "' is missing");
      wire += part;
    }
  }
  if (!unescapePmiValue(wire, value))
    return fail(MPI_ERR_OTHER, "malformed escaped value for key '" + key + "'");
  return MPI_SUCCESS;
}

int Pmi::barrier(const std::function<void()>& whileWaiting) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!initialized_) return fail(MPI_ERR_OTHER, "barrier before init or after finalize");
  if (singleton_) return MPI_SUCCESS;
  if (pmix_) {
    std::string error = pmix_->fence(whileWaiting);
    return error.empty() ? MPI_SUCCESS : fail(MPI_ERR_OTHER, error);
  }
  PmiMessage reply;
  if (!whileWaiting) return transact(formatPmiLine("barrier_in"), "barrier_out", &reply);
  if (int rc = sendLine(formatPmiLine("barrier_in"))) return rc;
  while (readBuffer_.find('\n') == std::string::npos) {
    pollfd p{fd_, POLLIN, 0};
    const int n = ::poll(&p, 1, 0);
    if (n > 0) break;  // readable (or closed): readLine takes it from here
    if (n < 0 && errno != EINTR)
      return fail(MPI_ERR_OTHER,
                  std::string("poll on the process manager failed: ") + strerror(errno));
    whileWaiting();
  }
  return readReply("barrier_out", &reply);
}

int Pmi::finalize() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!initialized_) return MPI_SUCCESS;
  initialized_ = false;
  if (singleton_) {
    localKvs_.clear();
    return MPI_SUCCESS;
  }
  if (pmix_) {
    std::string error = pmix_->finalize();
    return error.empty() ? MPI_SUCCESS : fail(MPI_ERR_OTHER, error);
  }
  PmiMessage reply;
  int rc = transact(formatPmiLine("finalize"), "finalize_ack", &reply);
  ::close(fd_);
  fd_ = -1;
  return rc;
}

void Pmi::abort(int exitCode, const std::string& message) {
  int code = exitCode & 0xff;
  if (code == 0) code = 1;
  if (!message.empty()) {
    std::string line = message;
    if (line.back() != '\n') line += '\n';
    ssize_t ignored = ::write(2, line.data(), line.size());
    (void)ignored;
  }
  if (fd_ >= 0) {
    // A single short send; the launcher reads it before it learns that we exited.
    std::string line = formatPmiLine("abort", {{"exitcode", std::to_string(exitCode)}});
    ssize_t ignored = ::send(fd_, line.data(), line.size(), MSG_NOSIGNAL);
    if (ignored < 0 && errno == ENOTSOCK) ignored = ::write(fd_, line.data(), line.size());
    (void)ignored;
  }
  if (pmix_) pmix_->abort(exitCode, message);
  _exit(code);
}

}  // namespace ccmpi::bootstrap
