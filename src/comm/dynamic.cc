// Dynamic processes: ports, MPI_Comm_accept/connect, MPI_Comm_join, the name service
// (design in docs/dynamic.md).
//
// A port is a TCP listener of the process that opened it, named
// "ccmpi-port:<ip>:<port>:<token>" with a random 128-bit token. The roots of the two
// groups meet on it: the connecting root opens a connection and sends the token; the
// accepting root takes connections until one brings its port's token (others are closed),
// and answers. Over that socket the two roots then swap what the intercommunicator
// agreement (comm::connectGroups, intercomm.cc) needs: each group's context-id bitmap and
// every member's process card (its job, its rank there, its job's secret and its transport
// address). The socket is closed once the intercommunicator exists; its traffic goes over
// the transport like any other.
//
// The accepting root waits for a connection without limit (MPI_Comm_accept returns only
// once a client connected); every other wait has the CCMPI_PORT_TIMEOUT bound, so a
// wrong or stale port name fails with MPI_ERR_PORT instead of hanging. The progress
// engine keeps running while a root waits.
//
// The name service keeps one file per published name in a directory shared by the jobs
// of a user on a host: CCMPI_NAME_DIR, default $TMPDIR/ccmpi-names-<uid> (or /tmp). A
// name maps to the port name in its file; publishing again replaces it.
#include "comm/dynamic.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <vector>

#include "base/error.h"
#include "base/log.h"
#include "base/siphash.h"
#include "base/tunables.h"
#include "comm/internal.h"
#include "progress/engine.h"
#include "runtime/runtime.h"

namespace ccmpi::comm {
namespace {

Tunable<double> kPortTimeout(
    "CCMPI_PORT_TIMEOUT", 60,
    "seconds MPI_Comm_connect (and MPI_Comm_join) waits for the other side: for the "
    "connection to a port to open, for an MPI_Comm_accept to take it, and for each step of "
    "the exchange between the two roots; then MPI_ERR_PORT");
Tunable<std::string> kNameDir(
    "CCMPI_NAME_DIR", "",
    "directory of the name service (MPI_Publish_name/MPI_Lookup_name): one file per "
    "published name; jobs that share it see each other's names. Default "
    "$TMPDIR/ccmpi-names-<uid> (/tmp when TMPDIR is unset)");

constexpr char kPortPrefix[] = "ccmpi-port:";
constexpr char kHelloMagic[16] = {'C', 'C', 'M', 'P', 'I', '-', 'C', 'O',
                                  'N', 'N', 'E', 'C', 'T', '-', '1', '\n'};
constexpr char kAcceptMagic[16] = {'C', 'C', 'M', 'P', 'I', '-', 'A',  'C',
                                   'C', 'E', 'P', 'T', '-', '1', '\n', 0};
constexpr size_t kTokenChars = 32;
constexpr uint64_t kMaxSwapWords = uint64_t{1} << 26;

struct Port {
  int fd = -1;
  std::string token;
};

std::map<std::string, Port>& ports() {
  static std::map<std::string, Port> p;
  return p;
}

int64_t nowNs() {
  return progress::Engine::nowNs();
}

int64_t deadlineIn(double seconds) {
  return nowNs() + static_cast<int64_t>(std::max(0.0, seconds) * 1e9);
}

// Waits for `events` on fd while the progress engine runs: 1 ready, 0 past the deadline
// (0 = none), -1 on a poll error.
int waitFd(int fd, short events, int64_t deadline) {
  for (;;) {
    pollfd p{fd, events, 0};
    const int n = ::poll(&p, 1, 1);
    if (n > 0) return 1;
    if (n < 0 && errno != EINTR) return -1;
    if (deadline && nowNs() >= deadline) return 0;
    progress::engine().poll(0);
  }
}

// Sends / receives exactly n bytes on the non-blocking socket fd before the deadline.
int sendAll(int fd, const void* data, size_t n, int64_t deadline, const char* what) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t k = ::send(fd, p, n, MSG_NOSIGNAL);
    if (k > 0) {
      p += k;
      n -= static_cast<size_t>(k);
      continue;
    }
    if (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
      return setErrorCause(MPI_ERR_PORT, "cannot send %s to the other root: %s", what,
                           strerror(errno));
    const int w = waitFd(fd, POLLOUT, deadline);
    if (w == 0) return setErrorCause(MPI_ERR_PORT, "timed out sending %s to the other root", what);
    if (w < 0) return setErrorCause(MPI_ERR_PORT, "poll failed: %s", strerror(errno));
  }
  return MPI_SUCCESS;
}

int recvAll(int fd, void* data, size_t n, int64_t deadline, const char* what) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    const ssize_t k = ::recv(fd, p, n, 0);
    if (k > 0) {
      p += k;
      n -= static_cast<size_t>(k);
      continue;
    }
    if (k == 0)
      return setErrorCause(MPI_ERR_PORT, "the other root closed the connection before %s", what);
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
      return setErrorCause(MPI_ERR_PORT, "cannot receive %s from the other root: %s", what,
                           strerror(errno));
    const int w = waitFd(fd, POLLIN, deadline);
    if (w == 0)
      return setErrorCause(MPI_ERR_PORT,
                           "timed out after %g s waiting for %s from the other root "
                           "(CCMPI_PORT_TIMEOUT)",
                           kPortTimeout.get(), what);
    if (w < 0) return setErrorCause(MPI_ERR_PORT, "poll failed: %s", strerror(errno));
  }
  return MPI_SUCCESS;
}

// The roots' swap over the port connection: [count, words] each way.
WordSwap socketSwap(int fd) {
  return [fd](const std::vector<uint64_t>& mine, std::vector<uint64_t>* theirs) {
    const uint64_t n = mine.size();
    if (int rc = sendAll(fd, &n, sizeof n, deadlineIn(kPortTimeout.get()), "the group size"))
      return rc;
    if (int rc = sendAll(fd, mine.data(), n * sizeof(uint64_t), deadlineIn(kPortTimeout.get()),
                         "the group description"))
      return rc;
    uint64_t m = 0;
    if (int rc = recvAll(fd, &m, sizeof m, deadlineIn(kPortTimeout.get()), "the group size"))
      return rc;
    if (m > kMaxSwapWords)
      return setErrorCause(MPI_ERR_PORT, "the other root announced %llu words",
                           static_cast<unsigned long long>(m));
    theirs->assign(m, 0);
    return recvAll(fd, theirs->data(), m * sizeof(uint64_t), deadlineIn(kPortTimeout.get()),
                   "the group description");
  };
}

std::string randomToken() {
  unsigned char b[kTokenChars / 2];
  if (getrandom(b, sizeof b, 0) != static_cast<ssize_t>(sizeof b)) {
    const uint64_t t = static_cast<uint64_t>(nowNs()) ^ (static_cast<uint64_t>(getpid()) << 32);
    for (size_t i = 0; i < sizeof b; ++i) b[i] = static_cast<unsigned char>(t >> (8 * (i % 8)));
  }
  std::string s;
  char hex[3];
  for (unsigned char c : b) {
    snprintf(hex, sizeof hex, "%02x", c);
    s += hex;
  }
  return s;
}

// Splits "ccmpi-port:<ip>:<port>:<token>"; false when malformed.
bool parsePort(const std::string& name, sockaddr_in* sa, std::string* token) {
  const size_t pre = sizeof kPortPrefix - 1;
  if (name.compare(0, pre, kPortPrefix) != 0) return false;
  const size_t c1 = name.find(':', pre);
  if (c1 == std::string::npos) return false;
  const size_t c2 = name.find(':', c1 + 1);
  if (c2 == std::string::npos) return false;
  *token = name.substr(c2 + 1);
  if (token->size() != kTokenChars) return false;
  const std::string ip = name.substr(pre, c1 - pre);
  const std::string port = name.substr(c1 + 1, c2 - c1 - 1);
  char* end = nullptr;
  const long p = strtol(port.c_str(), &end, 10);
  if (port.empty() || *end || p <= 0 || p > 65535) return false;
  *sa = sockaddr_in{};
  sa->sin_family = AF_INET;
  sa->sin_port = htons(static_cast<uint16_t>(p));
  return inet_pton(AF_INET, ip.c_str(), &sa->sin_addr) == 1;
}

void setNonblocking(int fd) {
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

// The accepting root: the first connection that brings the port's token (none: wait).
// With a `child` (MPI_Comm_spawn), gives up when that process exits first.
int takeClient(const Port& port, int* out, pid_t child = 0, const char* what = "") {
  for (;;) {
    if (child > 0) {
      int st = 0;
      if (waitpid(child, &st, WNOHANG) == child)
        return setErrorCause(
            MPI_ERR_SPAWN, "the mpirun starting %s ended (%s %d) before its ranks connected", what,
            WIFEXITED(st) ? "exit code" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
      const int w = waitFd(port.fd, POLLIN, deadlineIn(0.05));
      if (w == 0) continue;
      if (w < 0) return setErrorCause(MPI_ERR_PORT, "poll on the port failed: %s", strerror(errno));
    } else if (waitFd(port.fd, POLLIN, 0) < 0) {
      return setErrorCause(MPI_ERR_PORT, "poll on the port failed: %s", strerror(errno));
    }
    const int fd = ::accept4(port.fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EAGAIN || errno == EINTR || errno == ECONNABORTED) continue;
      return setErrorCause(MPI_ERR_PORT, "accept on the port failed: %s", strerror(errno));
    }
    setNonblocking(fd);
    char hello[sizeof kHelloMagic + kTokenChars];
    // A client sends its hello at once; one that does not is dropped after the timeout.
    if (recvAll(fd, hello, sizeof hello, deadlineIn(kPortTimeout.get()), "the hello") ==
            MPI_SUCCESS &&
        memcmp(hello, kHelloMagic, sizeof kHelloMagic) == 0 &&
        memcmp(hello + sizeof kHelloMagic, port.token.data(), kTokenChars) == 0 &&
        sendAll(fd, kAcceptMagic, sizeof kAcceptMagic, deadlineIn(kPortTimeout.get()),
                "the answer") == MPI_SUCCESS) {
      *out = fd;
      return MPI_SUCCESS;
    }
    log::warn("MPI_Comm_accept: dropped a connection to the port that did not bring its token");
    ::close(fd);
  }
}

// The connecting root: a connection to the port whose acceptor took it.
int reachPort(const std::string& name, int* out) {
  sockaddr_in sa;
  std::string token;
  if (!parsePort(name, &sa, &token))
    return setErrorCause(MPI_ERR_PORT,
                         "'%s' is not a port name of ccmpi (MPI_Open_port gives "
                         "\"ccmpi-port:<ip>:<port>:<token>\")",
                         name.c_str());
  const int64_t deadline = deadlineIn(kPortTimeout.get());
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return setErrorCause(MPI_ERR_PORT, "socket() failed: %s", strerror(errno));
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  int rc = ::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa);
  if (rc != 0 && errno == EINPROGRESS) {
    const int w = waitFd(fd, POLLOUT, deadline);
    int err = 0;
    socklen_t len = sizeof err;
    if (w > 0) getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
    rc = w > 0 && err == 0 ? 0 : -1;
    errno = w > 0 ? err : ETIMEDOUT;
  }
  if (rc != 0) {
    const int err = errno;
    ::close(fd);
    return setErrorCause(MPI_ERR_PORT, "cannot reach port '%s': %s (is it open?)", name.c_str(),
                         strerror(err));
  }
  char hello[sizeof kHelloMagic + kTokenChars];
  memcpy(hello, kHelloMagic, sizeof kHelloMagic);
  memcpy(hello + sizeof kHelloMagic, token.data(), kTokenChars);
  char answer[sizeof kAcceptMagic];
  if (int e = sendAll(fd, hello, sizeof hello, deadline, "the hello")) {
    ::close(fd);
    return e;
  }
  if (int e = recvAll(fd, answer, sizeof answer, deadline,
                      "the answer of MPI_Comm_accept (none accepted the connection: the port "
                      "is closed, its token is wrong, or nobody accepts on it)")) {
    ::close(fd);
    return e;
  }
  if (memcmp(answer, kAcceptMagic, sizeof answer) != 0) {
    ::close(fd);
    return setErrorCause(MPI_ERR_PORT, "port '%s' answered with something else than ccmpi",
                         name.c_str());
  }
  *out = fd;
  return MPI_SUCCESS;
}

// Collective part of accept and connect: the root got `fd` (or failed with rootStatus).
int finishConnect(Comm& local, int root, int rootStatus, int fd, MPI_Comm* out) {
  const int rc = connectGroups(local, root, rootStatus, socketSwap(fd), out);
  if (fd >= 0) ::close(fd);
  return rc;
}

std::string nameDir() {
  std::string d = kNameDir.get();
  if (d.empty()) {
    const char* tmp = getenv("TMPDIR");
    d = std::string(tmp && *tmp ? tmp : "/tmp") + "/ccmpi-names-" + std::to_string(getuid());
  }
  return d;
}

// The file of a service name: its bytes in hex (a hash for long names).
int namePath(const std::string& service, std::string* path) {
  const std::string dir = nameDir();
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    return setErrorCause(MPI_ERR_SERVICE, "cannot create the name-service directory %s: %s",
                         dir.c_str(), strerror(errno));
  std::string file;
  char hex[17];
  if (service.size() <= 100) {
    for (unsigned char c : service) {
      snprintf(hex, sizeof hex, "%02x", c);
      file += hex;
    }
  } else {
    snprintf(
        hex, sizeof hex, "%016llx",
        static_cast<unsigned long long>(siphash24(
            SipKey{0x6e616d6573657276ull, 0x6963650000000000ull}, service.data(), service.size())));
    file = std::string("h") + hex;
  }
  *path = dir + "/n" + file;
  return MPI_SUCCESS;
}

bool readFile(const std::string& path, std::string* text) {
  FILE* f = fopen(path.c_str(), "r");
  if (!f) return false;
  char buf[MPI_MAX_PORT_NAME + 1];
  const size_t n = fread(buf, 1, MPI_MAX_PORT_NAME, f);
  fclose(f);
  text->assign(buf, n);
  return true;
}

}  // namespace

int openPort(std::string* name) {
  runtime::ProcessCard card;
  if (int rc = runtime::myCard(&card)) return rc;
  std::string ip(card.addr);
  ip = ip.substr(0, ip.rfind(':'));
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return setErrorCause(MPI_ERR_PORT, "socket() failed: %s", strerror(errno));
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  inet_pton(AF_INET, ip.c_str(), &sa.sin_addr);
  socklen_t len = sizeof sa;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 || ::listen(fd, 64) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len) != 0) {
    const int err = errno;
    ::close(fd);
    return setErrorCause(MPI_ERR_PORT, "cannot listen on %s: %s", ip.c_str(), strerror(err));
  }
  Port p;
  p.fd = fd;
  p.token = randomToken();
  *name = kPortPrefix + ip + ":" + std::to_string(ntohs(sa.sin_port)) + ":" + p.token;
  ports()[*name] = p;
  return MPI_SUCCESS;
}

int closePort(const std::string& name) {
  auto it = ports().find(name);
  if (it == ports().end())
    return setErrorCause(MPI_ERR_PORT, "'%s' is not a port this process opened", name.c_str());
  ::close(it->second.fd);
  ports().erase(it);
  return MPI_SUCCESS;
}

int acceptOn(const std::string& portName, int root, Comm& local, MPI_Comm* out) {
  int status = MPI_SUCCESS, fd = -1;
  if (local.rank == root) {
    auto it = ports().find(portName);
    if (it == ports().end())
      status = setErrorCause(MPI_ERR_PORT,
                             "'%s' is not a port this process opened (MPI_Open_port at the root)",
                             portName.c_str());
    else
      status = takeClient(it->second, &fd);
  }
  return finishConnect(local, root, status, fd, out);
}

int connectTo(const std::string& portName, int root, Comm& local, MPI_Comm* out) {
  int status = MPI_SUCCESS, fd = -1;
  if (local.rank == root) status = reachPort(portName, &fd);
  return finishConnect(local, root, status, fd, out);
}

int joinOver(int fd, MPI_Comm* out) {
  // Each side opens a port and sends its name over fd; the side with the smaller name
  // accepts, the other connects.
  std::string mine;
  if (int rc = openPort(&mine)) return rc;
  const int flags = fcntl(fd, F_GETFL);
  if (flags < 0) {
    closePort(mine);
    return setErrorCause(MPI_ERR_ARG, "fd %d is not an open socket: %s", fd, strerror(errno));
  }
  fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  const int64_t deadline = deadlineIn(kPortTimeout.get());
  const uint32_t n = static_cast<uint32_t>(mine.size());
  uint32_t m = 0;
  int rc = sendAll(fd, &n, sizeof n, deadline, "the port name length");
  if (!rc) rc = sendAll(fd, mine.data(), n, deadline, "the port name");
  if (!rc) rc = recvAll(fd, &m, sizeof m, deadline, "the port name length");
  std::string theirs;
  if (!rc && m > MPI_MAX_PORT_NAME)
    rc = setErrorCause(MPI_ERR_PORT, "the other side of fd %d sent a port name of %u bytes", fd, m);
  if (!rc) {
    theirs.assign(m, '\0');
    rc = recvAll(fd, theirs.data(), m, deadline, "the port name");
  }
  fcntl(fd, F_SETFL, flags);
  if (!rc) {
    Comm* self = lookup(MPI_COMM_SELF);
    if (mine == theirs)
      rc = setErrorCause(MPI_ERR_ARG, "fd %d is connected to this process itself", fd);
    else if (mine < theirs)
      rc = acceptOn(mine, 0, *self, out);
    else
      rc = connectTo(theirs, 0, *self, out);
  }
  closePort(mine);
  return rc;
}

namespace {

MPI_Comm gParent = MPI_COMM_NULL;
std::vector<pid_t> gSpawned;  // mpiruns started by MPI_Comm_spawn, reaped when they end
// Our ends of the lifelines of the mpiruns we started (see startChildren).
std::vector<int> gLifelines;

// The descriptor a spawned mpirun finds its lifeline on (CCMPI_PARENT_LIFELINE).
constexpr int kLifelineFd = 3;

void reapSpawned() {
  for (size_t i = 0; i < gSpawned.size();) {
    if (waitpid(gSpawned[i], nullptr, WNOHANG) == gSpawned[i]) {
      gSpawned.erase(gSpawned.begin() + static_cast<long>(i));
    } else {
      ++i;
    }
  }
}

const std::string* hint(const InfoEntries& hints, const char* key) {
  for (const auto& [k, v] : hints)
    if (k == key) return &v;
  return nullptr;
}

std::string hexOf(const std::string& t) {
  std::string out;
  char hex[3];
  for (unsigned char c : t) {
    snprintf(hex, sizeof hex, "%02x", c);
    out += hex;
  }
  return out;
}

// The root's part of MPI_Comm_spawn: the port, the mpirun, the connection of its ranks. One
// command runs directly; several (MPI_Comm_spawn_multiple) run through mpirun's
// --ccmpi-spawn-app, which gives each rank its command (CCMPI_SPAWN_APPS).
int startChildren(const std::vector<SpawnApp>& apps, int* fd) {
  reapSpawned();
  const char* mpirun = getenv("CCMPI_MPIRUN");
  if (!mpirun || !*mpirun)
    return setErrorCause(MPI_ERR_SPAWN,
                         "no mpirun to start the processes with (CCMPI_MPIRUN is unset: this job "
                         "was not started by ccmpi's mpirun)");
  std::string port;
  if (int rc = openPort(&port)) return rc;
  int total = 0;
  std::string appsEnv = "CCMPI_SPAWN_APPS=";
  std::string command;
  for (const SpawnApp& a : apps) {
    total += a.maxprocs;
    std::string cmd = a.command;
    if (const std::string* p = hint(a.hints, "path"); p && cmd.find('/') == std::string::npos)
      cmd = *p + "/" + cmd;
    const std::string* w = hint(a.hints, "wdir");
    appsEnv += (&a == &apps[0] ? "" : ";") + std::to_string(a.maxprocs) + "," + hexOf(w ? *w : "") +
               "," + hexOf(cmd);
    for (const std::string& arg : a.args) appsEnv += "," + hexOf(arg);
    command += (command.empty() ? "'" : ", '") + a.command + "'";
  }
  std::vector<std::string> argv = {mpirun, "-n", std::to_string(total)};
  if (const std::string* h = hint(apps[0].hints, "host")) argv.insert(argv.end(), {"-H", *h});
  if (apps.size() == 1) {
    const SpawnApp& a = apps[0];
    if (const std::string* w = hint(a.hints, "wdir")) argv.insert(argv.end(), {"--wdir", *w});
    std::string cmd = a.command;
    if (const std::string* p = hint(a.hints, "path"); p && cmd.find('/') == std::string::npos)
      cmd = *p + "/" + cmd;
    argv.push_back(cmd);
    argv.insert(argv.end(), a.args.begin(), a.args.end());
  } else {
    argv.insert(argv.end(), {mpirun, "--ccmpi-spawn-app"});
  }
  std::vector<char*> cargv;
  for (std::string& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  // The new mpirun's environment: ours without the parent job's PMI connection, plus the
  // port (and the commands). Built before fork: the child only closes and executes.
  const std::string portEnv = "CCMPI_PARENT_PORT=" + port;
  std::vector<char*> env;
  for (char** e = environ; *e; ++e) {
    const std::string var(*e, strcspn(*e, "="));
    if (var == "PMI_FD" || var == "PMI_RANK" || var == "PMI_SIZE" || var == "PMI_PORT" ||
        var.rfind("PMIX_", 0) == 0 || var == "CCMPI_PARENT_PORT" || var == "CCMPI_SPAWN_APPS" ||
        var == "CCMPI_PARENT_LIFELINE")
      continue;
    env.push_back(*e);
  }
  // The lifeline: a socket pair whose other end the new mpirun watches. This process
  // writes one byte on it in MPI_Finalize; should the socket close without that byte (this
  // process was killed, called MPI_Abort, exited without MPI_Finalize), the mpirun ends
  // the spawned job, saying why: the children would otherwise wait for their parents
  // forever, orphaned.
  int line[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, line) != 0) {
    closePort(port);
    return setErrorCause(MPI_ERR_SPAWN, "cannot create a socket pair: %s", strerror(errno));
  }
  const std::string lifelineEnv = "CCMPI_PARENT_LIFELINE=" + std::to_string(kLifelineFd) + "," +
                                  std::to_string(getpid()) + "," +
                                  std::to_string(runtime::worldRank());
  env.push_back(const_cast<char*>(portEnv.c_str()));
  env.push_back(const_cast<char*>(lifelineEnv.c_str()));
  if (apps.size() > 1) env.push_back(appsEnv.data());
  env.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    // The new mpirun gets nothing of this process but stdio, the environment and its end
    // of the lifeline (dup2 clears close-on-exec; the descriptor may already be the one).
    if (line[1] == kLifelineFd) line[1] = dup(line[1]);
    if (line[0] == kLifelineFd ? fcntl(kLifelineFd, F_SETFD, 0) != 0
                               : dup2(line[0], kLifelineFd) != kLifelineFd)
      _exit(127);
    for (int f = kLifelineFd + 1; f < 1024; ++f) ::close(f);
    execve(cargv[0], cargv.data(), env.data());
    _exit(127);
  }
  ::close(line[0]);
  if (pid < 0) {
    ::close(line[1]);
    closePort(port);
    return setErrorCause(MPI_ERR_SPAWN, "fork failed: %s", strerror(errno));
  }
  gSpawned.push_back(pid);
  const int rc = takeClient(ports()[port], fd, pid, command.c_str());
  if (rc) {
    // Its ranks may still be starting: end them (the mpirun kills its ranks).
    if (waitpid(pid, nullptr, WNOHANG) == 0) {
      kill(pid, SIGTERM);
      waitpid(pid, nullptr, 0);
    }
    gSpawned.pop_back();
    ::close(line[1]);
  } else {
    gLifelines.push_back(line[1]);
    // Our mpirun waits for the spawned job before it ends, as for its own ranks (ccmpi's
    // mpirun reads this key; another PMI server just stores it).
    static int spawns = 0;
    if (runtime::pmiPut("ccmpi.spawned." + std::to_string(runtime::worldRank()) + "." +
                            std::to_string(spawns++),
                        std::to_string(pid)) != 0)
      log::notice("MPI_Comm_spawn: could not tell the launcher about the new job (pid %d)",
                  static_cast<int>(pid));
  }
  closePort(port);
  return rc;
}

}  // namespace

int spawn(const std::vector<SpawnApp>& apps, int root, Comm& local, MPI_Comm* out) {
  int status = MPI_SUCCESS, fd = -1;
  if (local.rank == root) status = startChildren(apps, &fd);
  return finishConnect(local, root, status, fd, out);
}

int connectToParent() {
  const char* port = getenv("CCMPI_PARENT_PORT");
  if (!port || !*port) return MPI_SUCCESS;
  const std::string name = port;
  unsetenv("CCMPI_PARENT_PORT");  // not for the processes this one starts
  Comm* world = lookup(MPI_COMM_WORLD);
  if (int rc = connectTo(name, 0, *world, &gParent)) return rc;
  lookup(gParent)->name = "MPI_COMM_PARENT";
  return MPI_SUCCESS;
}

void releaseSpawned() {
  for (int fd : gLifelines) {
    // The mpirun may be gone already (its job ended): no SIGPIPE, nothing to report.
    (void)!::send(fd, "F", 1, MSG_NOSIGNAL | MSG_DONTWAIT);
    ::close(fd);
  }
  gLifelines.clear();
  reapSpawned();
}

MPI_Comm parent() {
  return gParent;
}

void forgetParent(MPI_Comm h) {
  if (h == gParent) gParent = MPI_COMM_NULL;
}

int publishName(const std::string& service, const std::string& port) {
  std::string path;
  if (int rc = namePath(service, &path)) return rc;
  const std::string tmp = path + ".tmp" + std::to_string(getpid());
  FILE* f = fopen(tmp.c_str(), "w");
  if (!f)
    return setErrorCause(MPI_ERR_SERVICE, "cannot write %s: %s", tmp.c_str(), strerror(errno));
  const bool ok = fwrite(port.data(), 1, port.size(), f) == port.size();
  if (fclose(f) != 0 || !ok || rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    unlink(tmp.c_str());
    return setErrorCause(MPI_ERR_SERVICE, "cannot publish '%s' in %s: %s", service.c_str(),
                         path.c_str(), strerror(err));
  }
  return MPI_SUCCESS;
}

int unpublishName(const std::string& service, const std::string& port) {
  std::string path, text;
  if (int rc = namePath(service, &path)) return rc;
  if (!readFile(path, &text))
    return setErrorCause(MPI_ERR_SERVICE, "service name '%s' is not published", service.c_str());
  if (text != port)
    return setErrorCause(MPI_ERR_SERVICE, "service name '%s' is published with another port (%s)",
                         service.c_str(), text.c_str());
  if (unlink(path.c_str()) != 0)
    return setErrorCause(MPI_ERR_SERVICE, "cannot remove %s: %s", path.c_str(), strerror(errno));
  return MPI_SUCCESS;
}

int lookupName(const std::string& service, std::string* port) {
  std::string path;
  if (int rc = namePath(service, &path)) return rc;
  if (!readFile(path, port))
    return setErrorCause(MPI_ERR_NAME, "service name '%s' is not published (%s)", service.c_str(),
                         nameDir().c_str());
  return MPI_SUCCESS;
}

}  // namespace ccmpi::comm
