// The mpirun/mpiexec executable: `mpirun --ccmpi-proxy` (started by mpirun itself through
// a launch agent) runs the per-host proxy; anything else is the launcher proper.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "launcher/launcher.h"

namespace ccmpi::launcher {

int setupSignals() {
  signal(SIGPIPE, SIG_IGN);
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaddset(&set, sig);
  if (sigprocmask(SIG_BLOCK, &set, nullptr) < 0) return -1;
  return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

void reapAll(int signalFd, std::vector<pid_t> pids, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  bool killed = false;
  while (!pids.empty()) {
    for (std::size_t i = 0; i < pids.size();) {
      int status = 0;
      pid_t r = waitpid(pids[i], &status, WNOHANG);
      if (r == pids[i] || (r < 0 && errno == ECHILD)) {
        pids[i] = pids.back();
        pids.pop_back();
      } else {
        ++i;
      }
    }
    if (pids.empty()) break;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      if (killed) break;  // SIGKILLed and still not reaped: give up rather than hang
      for (pid_t p : pids) kill(p, SIGKILL);
      killed = true;
      deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(1000);
      continue;
    }
    // Sleep until the next SIGCHLD (or the deadline).
    pollfd p{signalFd, POLLIN, 0};
    if (signalFd >= 0 && ::poll(&p, 1, static_cast<int>(left.count())) > 0) {
      signalfd_siginfo info;
      while (read(signalFd, &info, sizeof info) == sizeof info) {
      }
    } else if (signalFd < 0) {
      ::poll(nullptr, 0, 10);
    }
  }
}

std::string randomHex(std::size_t bytes) {
  std::vector<unsigned char> buf(bytes);
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  std::size_t got = 0;
  while (got < bytes) {
    ssize_t n = read(fd, buf.data() + got, bytes - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  close(fd);
  if (got < bytes) return "";
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : buf) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

std::string findProgram(const std::string& program, const std::string& dir, std::string* error) {
  auto check = [&](const std::string& path) { return access(path.c_str(), X_OK) == 0; };
  if (program.empty()) {
    *error = "empty program name";
    return "";
  }
  if (program.find('/') != std::string::npos) {
    std::string path = program[0] == '/' || dir.empty() ? program : dir + "/" + program;
    if (check(path)) return path;
    *error = "program '" + program + "' " +
             (access(path.c_str(), F_OK) == 0 ? "is not executable" : "not found");
    return "";
  }
  const char* env = getenv("PATH");
  std::string pathList = env ? env : "/bin:/usr/bin";
  std::size_t start = 0;
  while (start <= pathList.size()) {
    std::size_t colon = pathList.find(':', start);
    std::string d =
        pathList.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    std::string candidate = (d.empty() ? "." : d) + "/" + program;
    if (check(candidate)) return candidate;
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  *error = "program '" + program + "' not found in PATH";
  return "";
}

}  // namespace ccmpi::launcher

namespace {

// Makes sure descriptors 0-2 are open, so no pipe or socket we create lands on them.
void ensureStdFds() {
  for (int fd = 0; fd < 3; ++fd) {
    if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
      int n = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
      if (n >= 0 && n != fd) {
        dup2(n, fd);
        close(n);
      }
    }
  }
}

}  // namespace

namespace {

// "--ccmpi-spawn-app": the program every rank of a job MPI_Comm_spawn_multiple started runs
// first. CCMPI_SPAWN_APPS lists the commands, "COUNT,WDIR,COMMAND,ARG,...;..." with every
// string in hex; the rank (PMI_RANK) picks its command, changes to its directory, sets
// CCMPI_APPNUM (MPI_APPNUM) and executes it.
std::string unhex(const std::string& h) {
  std::string out;
  for (size_t i = 0; i + 1 < h.size(); i += 2)
    out += static_cast<char>(std::stoi(h.substr(i, 2), nullptr, 16));
  return out;
}

std::vector<std::string> splitAt(const std::string& s, char sep) {
  std::vector<std::string> out(1);
  for (char c : s) {
    if (c == sep)
      out.emplace_back();
    else
      out.back() += c;
  }
  return out;
}

int runSpawnApp() {
  const char* apps = getenv("CCMPI_SPAWN_APPS");
  const char* rankText = getenv("PMI_RANK");
  if (!apps || !rankText) {
    fprintf(stderr, "mpirun --ccmpi-spawn-app: CCMPI_SPAWN_APPS or PMI_RANK is unset\n");
    return 127;
  }
  int rank = atoi(rankText);
  int appnum = 0;
  for (const std::string& app : splitAt(apps, ';')) {
    const std::vector<std::string> f = splitAt(app, ',');
    if (f.size() < 3) break;
    const int count = atoi(f[0].c_str());
    if (rank >= count) {
      rank -= count;
      ++appnum;
      continue;
    }
    const std::string wdir = unhex(f[1]);
    if (!wdir.empty() && chdir(wdir.c_str()) != 0) {
      fprintf(stderr, "mpirun: cannot change to directory '%s': %s\n", wdir.c_str(),
              strerror(errno));
      return 127;
    }
    std::vector<std::string> words;
    for (size_t i = 2; i < f.size(); ++i) words.push_back(unhex(f[i]));
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    setenv("CCMPI_APPNUM", std::to_string(appnum).c_str(), 1);
    unsetenv("CCMPI_SPAWN_APPS");
    execvp(argv[0], argv.data());
    fprintf(stderr, "mpirun: cannot execute '%s': %s\n", argv[0], strerror(errno));
    return 127;
  }
  fprintf(stderr, "mpirun --ccmpi-spawn-app: no command for rank %s\n", rankText);
  return 127;
}

}  // namespace

int main(int argc, char** argv) {
  ensureStdFds();
  if (argc >= 2 && std::strcmp(argv[1], "--ccmpi-spawn-app") == 0) return runSpawnApp();
  if (argc >= 2 && std::strcmp(argv[1], "--ccmpi-proxy") == 0)
    return ccmpi::launcher::runProxy(std::vector<std::string>(argv + 2, argv + argc));
  std::vector<std::string> args(argv + 1, argv + argc);
  return ccmpi::launcher::runMpirun(args);
}
