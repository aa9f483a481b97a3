#pragma once
// Single-copy transfers between ranks of one host (cross-memory attach,
// process_vm_readv): the receiver of a large message reads it straight out of the
// sender's buffer, instead of the bytes crossing a loopback TCP connection (two copies
// through the kernel's socket buffers, one system call per frame on each side).
//
// Trust: a peer's pid is only used after the peer proved it with a probe. When a TCP
// connection opens between two ends on one address, each side sends HOSTINFO{pid, address
// of a random token in its memory, the token's value}; the other side reads the token
// through process_vm_readv and uses the pid only if the value matches. A pid of another
// pid namespace, another process, or a kernel that refuses the call (ptrace policy,
// seccomp) fails the probe and the pair keeps the TCP path. Emulated hosts (network
// namespaces of one machine) have distinct addresses and never get that far.
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace ccmpi::transport::cma {

// CCMPI_CMA: single-copy transfers within a host are allowed (default on).
bool enabled();
// Makes this process readable by its sibling ranks where the Yama LSM would only allow
// its ancestors (PR_SET_PTRACER), and draws the token. Called once at start-up.
void init();
uint64_t tokenAddress();
uint64_t tokenValue();
// Reads the peer's token; true if it holds `value`. *why gets the reason otherwise.
bool probe(pid_t pid, uint64_t address, uint64_t value, std::string* why);
// Copies len bytes at `remote` in process pid into `local`. Returns 0 or an errno value
// (EFAULT for a range the peer does not map, ESRCH when it is gone, EIO for a short read).
int read(pid_t pid, uint64_t remote, void* local, size_t len);
// Copies len bytes from `local` to `remote` in process pid (process_vm_writev); 0 or an errno.
int write(pid_t pid, uint64_t remote, const void* local, size_t len);
// Smallest rendezvous message (bytes) whose single-copy transfer the receiver splits with
// the sender, each copying half on its own core (CCMPI_CMA_SPLIT; 0 = never).
uint64_t splitBytes();
// Smallest message (bytes) the rendezvous protocol moves by a read (CCMPI_CMA_MIN).
uint64_t minBytes();
// Whether this machine lets one process read another's memory as sibling ranks would (a
// forked child reads this process after init()): true, or false with the reason in *why
// (ptrace policy, a container's seccomp filter, CCMPI_CMA=off).
bool selfTest(std::string* why);

}  // namespace ccmpi::transport::cma
