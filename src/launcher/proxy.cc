// The per-host proxy (`mpirun --ccmpi-proxy`), started by mpirun through the launch
// agent. It forks the ranks described by the first frame on stdin and relays their PMI
// lines, output and exit statuses over stdout (frame.h); mpirun answers PMI and decides
// everything else. With `--connect HOST[,HOST...]:PORT` (the proxies of a Slurm allocation,
// all started by one srun) it talks to mpirun over a TCP connection to the first HOST
// (a name or an address) that answers on PORT instead,
// opened with the line "ccmpi-proxy-hello <CCMPI_PROXY_TOKEN> <node>" (node: Slurm's
// SLURMD_NODENAME, else the host name), and stdin/stdout are not used. It ends:
//   - normally, once all its ranks have exited and their output is forwarded;
//   - on kKill: SIGTERM to the ranks, SIGKILL after 1 s, then as above;
//   - on EOF on stdin (mpirun or the agent died) or SIGINT/SIGTERM/SIGHUP: SIGKILL to
//     every rank and exit at once.
// Output to mpirun is queued without blocking; reading rank output pauses while more
// than kMaxBacklog bytes wait, so a slow mpirun throttles the ranks instead of growing
// the queue without bound.
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "launcher/event_loop.h"
#include "launcher/frame.h"
#include "launcher/launcher.h"
#include "launcher/rank_set.h"

namespace ccmpi::launcher {
namespace {

constexpr std::size_t kMaxBacklog = 8u << 20;
constexpr std::size_t kResumeBacklog = 1u << 20;
constexpr auto kKillGrace = std::chrono::milliseconds(1000);
constexpr auto kOutputDrain = std::chrono::milliseconds(1000);

// Connects to one host (name or address) at port; the socket or -1 (errno set).
int connectOne(const std::string& host, const std::string& port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* list = nullptr;
  if (getaddrinfo(host.c_str(), port.c_str(), &hints, &list) != 0) {
    errno = EHOSTUNREACH;
    return -1;
  }
  int fd = -1;
  for (addrinfo* ai = list; ai && fd < 0; ai = ai->ai_next) {
    fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
      const int e = errno;
      ::close(fd);
      fd = -1;
      errno = e;
    }
  }
  freeaddrinfo(list);
  return fd;
}

// Connects to mpirun at "host,host...:port" and says hello; the socket, or -1 with a
// message.
int connectBack(const std::string& hostPort) {
  const std::size_t colon = hostPort.rfind(':');
  const char* token = getenv("CCMPI_PROXY_TOKEN");
  if (colon == std::string::npos || !token) {
    dprintf(2, "mpirun proxy: --connect needs HOST:PORT and CCMPI_PROXY_TOKEN\n");
    return -1;
  }
  const std::string hosts = hostPort.substr(0, colon), port = hostPort.substr(colon + 1);
  int fd = -1;
  for (std::size_t start = 0; fd < 0 && start <= hosts.size();) {
    std::size_t comma = hosts.find(',', start);
    if (comma == std::string::npos) comma = hosts.size();
    if (comma > start) fd = connectOne(hosts.substr(start, comma - start), port);
    start = comma + 1;
  }
  if (fd < 0) {
    dprintf(2, "mpirun proxy: cannot connect to mpirun at %s: %s\n", hostPort.c_str(),
            strerror(errno));
    return -1;
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  std::string node;
  if (const char* n = getenv("SLURMD_NODENAME")) node = n;
  if (node.empty()) {
    char buf[256] = {};
    gethostname(buf, sizeof buf - 1);
    node = buf;
  }
  writeAll(fd, "ccmpi-proxy-hello " + std::string(token) + " " + node + "\n");
  return fd;
}

class Proxy {
 public:
  explicit Proxy(std::string connect) : connect_(std::move(connect)) {}
  int run();

 private:
  void onDown(const char* data, std::size_t n);
  void onFrame(const Frame& frame);
  void onSignal();
  void sendUp(FrameType type, int rank, std::string_view payload);
  void abortNow();

  EventLoop loop_;
  int signalFd_ = -1;
  std::unique_ptr<Channel> up_;
  std::unique_ptr<Channel> down_;
  FrameReader reader_{false};
  std::unique_ptr<RankSet> ranks_;
  bool launched_ = false;
  bool done_ = false;
  bool abort_ = false;
  bool paused_ = false;
  bool drainArmed_ = false;
  std::string host_ = "?";
  std::string connect_;  // --connect HOST:PORT, or empty (stdin/stdout)
};

void Proxy::sendUp(FrameType type, int rank, std::string_view payload) {
  std::string frame;
  appendFrame(&frame, type, rank, payload);
  up_->send(frame);
}

void Proxy::abortNow() {
  if (ranks_) ranks_->killNow();
  abort_ = true;
  done_ = true;
}

void Proxy::onSignal() {
  signalfd_siginfo info;
  bool child = false;
  while (::read(signalFd_, &info, sizeof info) == sizeof info) {
    if (info.ssi_signo == SIGCHLD)
      child = true;
    else
      abortNow();
  }
  if (!child) return;
  for (;;) {
    int status = 0;
    pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid <= 0) break;
    if (ranks_) ranks_->handleExit(pid, status);
  }
}

void Proxy::onDown(const char* data, std::size_t n) {
  if (n == 0) {  // mpirun (or the agent) is gone
    abortNow();
    return;
  }
  reader_.feed(data, n);
  Frame frame;
  std::string error;
  for (;;) {
    auto result = reader_.next(&frame, &error);
    if (result == FrameReader::Result::kNeedMore) return;
    if (result == FrameReader::Result::kError) {
      sendUp(FrameType::kError, -1, "proxy on " + host_ + ": " + error);
      abortNow();
      return;
    }
    onFrame(frame);
    if (done_) return;
  }
}

void Proxy::onFrame(const Frame& f) {
  if (!launched_) {
    LaunchSpec spec;
    std::string error;
    if (f.type != FrameType::kJob || !decodeLaunchSpec(f.payload, &spec, &error)) {
      sendUp(
          FrameType::kError, -1,
          "proxy: " + (f.type != FrameType::kJob ? std::string("no launch description") : error));
      abortNow();
      return;
    }
    host_ = spec.host;
    launched_ = true;
    // Like Open MPI: the same working directory as mpirun if it exists here, else $HOME.
    struct stat st;
    if (!spec.cwd.empty() && (stat(spec.cwd.c_str(), &st) < 0 || !S_ISDIR(st.st_mode))) {
      const char* home = getenv("HOME");
      spec.cwd = home ? home : "/";
    }
    RankSet::Callbacks cb;
    cb.started = [this](int rank, pid_t pid) { sendUp(FrameType::kStarted, rank, encodeInt(pid)); };
    cb.pmiLine = [this](int rank, const std::string& line) {
      sendUp(FrameType::kPmi, rank, line + "\n");
    };
    cb.output = [this](int rank, int stream, const char* d, std::size_t n) {
      sendUp(stream == 1 ? FrameType::kStdout : FrameType::kStderr, rank, std::string_view(d, n));
    };
    cb.exited = [this](int rank, int status) { sendUp(FrameType::kExit, rank, encodeInt(status)); };
    cb.protocolError = [this](int rank, const std::string& why) {
      sendUp(FrameType::kError, -1, "rank " + std::to_string(rank) + ": " + why);
    };
    ranks_ = std::make_unique<RankSet>(loop_, cb);
    if (!ranks_->launch(spec, &error)) {
      sendUp(FrameType::kError, -1, "cannot start ranks on " + host_ + ": " + error);
      ranks_->killNow();
    }
    return;
  }
  switch (f.type) {
    case FrameType::kPmi:
      ranks_->sendPmi(f.rank, f.payload);
      break;
    case FrameType::kStdin:
      if (f.payload.empty())
        ranks_->closeStdin();
      else
        ranks_->writeStdin(f.payload);
      break;
    case FrameType::kKill:
      ranks_->terminate(kKillGrace);
      break;
    default:
      sendUp(FrameType::kError, -1, "proxy on " + host_ + ": unexpected frame");
      abortNow();
  }
}

int Proxy::run() {
  signalFd_ = setupSignals();
  if (signalFd_ < 0) {
    dprintf(2, "mpirun proxy: cannot set up signals: %s\n", strerror(errno));
    return 1;
  }
  int upFd = 1, downFd = 0;
  if (!connect_.empty()) {
    upFd = downFd = connectBack(connect_);
    if (upFd < 0) return 1;
  }
  writeAll(upFd, kProxyMagic);
  up_ = std::make_unique<Channel>(loop_, dup(upFd), false, nullptr);
  down_ = std::make_unique<Channel>(loop_, dup(downFd), true,
                                    [this](const char* d, std::size_t n) { onDown(d, n); });
  if (!connect_.empty()) ::close(upFd);
  // Our stdin/stdout now live in the channels; keep 0/1 pointing at harmless files.
  int devnull = open("/dev/null", O_RDWR);
  if (devnull >= 0) {
    dup2(devnull, 0);
    dup2(devnull, 1);
    if (devnull > 2) close(devnull);
  }
  loop_.watch(signalFd_, POLLIN, [this](short) { onSignal(); });

  while (!done_) {
    loop_.runOnce();
    if (!paused_ && up_->pending() > kMaxBacklog) {
      paused_ = true;
      if (ranks_) ranks_->pauseOutput(true);
    } else if (paused_ && up_->pending() < kResumeBacklog) {
      paused_ = false;
      if (ranks_) ranks_->pauseOutput(false);
    }
    if (launched_ && ranks_ && ranks_->liveCount() == 0) {
      if (!ranks_->outputsClosed() && !drainArmed_) {
        drainArmed_ = true;
        loop_.after(kOutputDrain, [this] { ranks_->closeOutputs(); });
      }
      if (ranks_->outputsClosed()) done_ = true;
    }
  }

  if (!abort_) up_->flushBlocking(std::chrono::seconds(10));
  if (ranks_ && ranks_->liveCount() > 0) {
    std::vector<pid_t> left = ranks_->livePids();
    ranks_->killNow();
    reapAll(signalFd_, left, std::chrono::milliseconds(500));
  }
  return 0;
}

}  // namespace

int runProxy(const std::vector<std::string>& args) {
  std::string connect;
  for (std::size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == "--connect") connect = args[i + 1];
  Proxy proxy(connect);
  return proxy.run();
}

}  // namespace ccmpi::launcher
