// Cross-memory attach (see cma.h).
#include "transport/cma.h"

#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/tunables.h"

namespace ccmpi::transport::cma {
namespace {

Tunable<bool> kCma("CCMPI_CMA", true,
                   "large messages between ranks of one host are read straight from the "
                   "sender's buffer (process_vm_readv) instead of crossing a loopback TCP "
                   "connection");
Tunable<uint64_t> kCmaSplit(
    "CCMPI_CMA_SPLIT", 512 * 1024,
    "smallest message (bytes) whose single-copy transfer within a host is split: the receiver "
    "reads the first half while the sender writes the second (process_vm_writev), each on "
    "its own core; not when ranks outnumber cores. 0 = never");
Tunable<uint64_t> kCmaMin("CCMPI_CMA_MIN", 0,
                          "smallest rendezvous message (bytes) moved by a single-copy read "
                          "within a host; smaller ones stream over TCP");

// Read by peers through process_vm_readv; volatile so the value is really in memory.
volatile uint64_t gToken = 0;

// Largest piece per system call: a bounded time inside the kernel per call.
constexpr size_t kMaxPiece = size_t{1} << 30;

// Moves len bytes between `local` and `remote` in process pid with process_vm_readv or
// process_vm_writev, in pieces of at most kMaxPiece; 0 or an errno value (EIO: a short
// transfer that moved nothing).
template <typename Call>
int transfer(Call call, pid_t pid, uint64_t remote, void* local, size_t len) {
  auto* at = static_cast<unsigned char*>(local);
  while (len > 0) {
    const size_t piece = len < kMaxPiece ? len : kMaxPiece;
    iovec l{at, piece};
    iovec r{reinterpret_cast<void*>(static_cast<uintptr_t>(remote)), piece};
    const ssize_t n = call(pid, &l, 1, &r, 1, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return EIO;
    at += n;
    remote += static_cast<uint64_t>(n);
    len -= static_cast<size_t>(n);
  }
  return 0;
}

}  // namespace

bool enabled() {
  return kCma.get();
}

uint64_t minBytes() {
  return kCmaMin.get();
}

uint64_t splitBytes() {
  return kCmaSplit.get();
}

int write(pid_t pid, uint64_t remote, const void* local, size_t len) {
  return transfer(process_vm_writev, pid, remote, const_cast<void*>(local), len);
}

void init() {
  if (!enabled()) return;
#ifdef PR_SET_PTRACER
  // Under Yama's ptrace_scope=1 only ancestors may read a process; the ranks of a job are
  // siblings. Harmless (EINVAL) where Yama is absent.
  prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
#endif
  uint64_t v = 0;
  while (v == 0) {
    if (getrandom(&v, sizeof v, 0) != static_cast<ssize_t>(sizeof v)) {
      v = reinterpret_cast<uintptr_t>(&v) ^ 0x9e3779b97f4a7c15ull;
    }
  }
  gToken = v;
}

uint64_t tokenAddress() {
  return reinterpret_cast<uintptr_t>(&gToken);
}

uint64_t tokenValue() {
  return gToken;
}

int read(pid_t pid, uint64_t remote, void* local, size_t len) {
  return transfer(process_vm_readv, pid, remote, local, len);
}

bool selfTest(std::string* why) {
  if (!enabled()) {
    *why = "switched off (CCMPI_CMA=off)";
    return false;
  }
  init();
  const pid_t parent = getpid();
  const pid_t child = fork();
  if (child < 0) {
    *why = std::string("fork failed: ") + strerror(errno);
    return false;
  }
  if (child == 0) {
    uint64_t got = 0;
    const int err = read(parent, tokenAddress(), &got, sizeof got);
    _exit(err != 0 ? (err & 0x7f) : got == tokenValue() ? 0 : 0x7f);
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status)) {
    *why = "the probing process died";
    return false;
  }
  const int code = WEXITSTATUS(status);
  if (code == 0) return true;
  *why = code == 0x7f ? "the read returned other bytes"
                      : std::string("process_vm_readv: ") + strerror(code);
  if (code == EPERM) *why += " (ptrace policy: kernel.yama.ptrace_scope, or a seccomp filter)";
  return false;
}

bool probe(pid_t pid, uint64_t address, uint64_t value, std::string* why) {
  if (pid <= 0) {
    *why = "no process id";
    return false;
  }
  uint64_t got = 0;
  const int err = read(pid, address, &got, sizeof got);
  if (err != 0) {
    *why = strerror(err);
    return false;
  }
  if (got != value) {
    *why = "the process id names another process (another pid namespace?)";
    return false;
  }
  return true;
}

}  // namespace ccmpi::transport::cma
